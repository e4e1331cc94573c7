// Unit tests of sdk/include/schedhost/helpers.hpp against hand-built views: the matching rules
// plugins rely on, with kube-scheduler's semantics (labels.Requirement, nodeaffinity,
// v1.Toleration.ToleratesTaint, helper.DefaultNormalizeScore, validation.IsQualifiedName).
#include <schedhost/helpers.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using schedhost::parseInt64;

// Ids for the test: keys and values are small integers, as the host's interner gives.
constexpr sh_id kFoo = 20;
constexpr sh_id kBar = 21;
constexpr sh_id kBaz = 22;
constexpr sh_id kKern = 23;
constexpr sh_id kMetadataName = 30;
constexpr sh_id kNodeA = 31;
constexpr sh_id kNodeB = 32;
constexpr sh_id kSix = 40;
constexpr sh_id kSixText = 41;

sh_str str(const char* s) { return sh_str{s, std::char_traits<char>::length(s)}; }

sh_label label(sh_id key, sh_id value, const char* valueText = "") {
  return sh_label{key, value, str(""), str(valueText)};
}

sh_requirement req(sh_id key, int32_t op, const std::vector<sh_id>& values, int64_t number = 0,
                   bool numberOk = false) {
  sh_requirement r{};
  r.key = key;
  r.op = op;
  r.values = values.data();
  r.value_count = static_cast<uint32_t>(values.size());
  r.number = number;
  r.number_ok = numberOk ? 1 : 0;
  return r;
}

// A node named "a" (id kNodeA) with labels foo=bar and kern=6 (sorted by key id).
struct TestNode {
  std::vector<sh_label> labels = {label(kFoo, kBar, "bar"), label(kKern, kSix, "6")};
  sh_node node{};
  TestNode() {
    node.struct_size = sizeof(sh_node);
    node.name = str("a");
    node.name_id = kNodeA;
    node.labels = labels.data();
    node.label_count = static_cast<uint32_t>(labels.size());
  }
};

TEST(HelpersTest, ParseInt64) {
  int64_t v = 0;
  EXPECT_TRUE(parseInt64("0", v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(parseInt64("+5", v));
  EXPECT_EQ(v, 5);
  EXPECT_TRUE(parseInt64("-5", v));
  EXPECT_EQ(v, -5);
  EXPECT_TRUE(parseInt64("9223372036854775807", v));
  EXPECT_EQ(v, INT64_MAX);
  EXPECT_TRUE(parseInt64("-9223372036854775808", v));
  EXPECT_EQ(v, INT64_MIN);
  for (const char* bad : {"", "-", "+", "9223372036854775808", "-9223372036854775809", "1a", " 1",
                          "0x10", "1_000", "1.5"}) {
    EXPECT_FALSE(parseInt64(bad, v)) << bad;
  }
}

TEST(HelpersTest, FindLabel) {
  TestNode n;
  ASSERT_NE(schedhost::findLabel(n.node, kFoo), nullptr);
  EXPECT_EQ(schedhost::findLabel(n.node, kFoo)->value, kBar);
  EXPECT_EQ(schedhost::findLabel(n.node, kBaz), nullptr);
  EXPECT_EQ(schedhost::findLabel(nullptr, 0, kFoo), nullptr);
}

TEST(HelpersTest, MatchRequirement) {
  TestNode n;
  auto match = [&](const sh_requirement& r) {
    return schedhost::requirementValid(r) &&
           schedhost::matchRequirement(r, n.node.labels, n.node.label_count);
  };
  std::vector<sh_id> bar = {kBar};
  std::vector<sh_id> baz = {kBaz};
  std::vector<sh_id> none;
  std::vector<sh_id> five = {kSixText};
  EXPECT_TRUE(match(req(kFoo, SH_OP_IN, bar)));
  EXPECT_FALSE(match(req(kFoo, SH_OP_IN, baz)));
  EXPECT_FALSE(match(req(kBaz, SH_OP_IN, bar)));
  EXPECT_TRUE(match(req(kFoo, SH_OP_NOT_IN, baz)));
  EXPECT_TRUE(match(req(kBaz, SH_OP_NOT_IN, bar)));  // a missing label is "not in"
  EXPECT_FALSE(match(req(kFoo, SH_OP_NOT_IN, bar)));
  EXPECT_TRUE(match(req(kFoo, SH_OP_EXISTS, none)));
  EXPECT_FALSE(match(req(kBaz, SH_OP_EXISTS, none)));
  EXPECT_TRUE(match(req(kBaz, SH_OP_DOES_NOT_EXIST, none)));
  EXPECT_TRUE(match(req(kKern, SH_OP_GT, five, 5, true)));
  EXPECT_FALSE(match(req(kKern, SH_OP_GT, five, 6, true)));  // strict
  EXPECT_TRUE(match(req(kKern, SH_OP_LT, five, 10, true)));  // integers, not strings
  EXPECT_FALSE(match(req(kFoo, SH_OP_GT, five, 1, true)));   // "bar" is no integer
  EXPECT_FALSE(match(req(kBaz, SH_OP_LT, five, 10, true)));  // a missing label never compares
  // labels.NewRequirement refuses these, so they match nothing.
  EXPECT_FALSE(schedhost::requirementValid(req(kFoo, SH_OP_IN, none)));
  EXPECT_FALSE(schedhost::requirementValid(req(kFoo, SH_OP_EXISTS, bar)));
  EXPECT_FALSE(schedhost::requirementValid(req(kKern, SH_OP_GT, five, 0, false)));
  EXPECT_FALSE(schedhost::requirementValid(req(kFoo, 17, bar)));
}

TEST(HelpersTest, MatchNodeSelectorTerm) {
  TestNode n;
  std::vector<sh_id> bar = {kBar};
  std::vector<sh_id> a = {kNodeA};
  std::vector<sh_id> b = {kNodeB};
  std::vector<sh_id> ab = {kNodeA, kNodeB};
  std::vector<sh_id> empty = {SH_ID_EMPTY};
  sh_requirement fooIsBar = req(kFoo, SH_OP_IN, bar);
  auto term = [](const sh_requirement* exprs, uint32_t ne, const sh_requirement* fields,
                 uint32_t nf) {
    sh_node_selector_term t{};
    t.match_expressions = exprs;
    t.match_expression_count = ne;
    t.match_fields = fields;
    t.match_field_count = nf;
    return t;
  };
  auto match = [&](const sh_node_selector_term& t) {
    return schedhost::matchNodeSelectorTerm(t, n.node, kMetadataName);
  };
  EXPECT_FALSE(match(term(nullptr, 0, nullptr, 0)));  // an empty term matches nothing
  EXPECT_TRUE(match(term(&fooIsBar, 1, nullptr, 0)));
  sh_requirement nameIsA = req(kMetadataName, SH_OP_IN, a);
  sh_requirement nameIsB = req(kMetadataName, SH_OP_IN, b);
  sh_requirement nameNotB = req(kMetadataName, SH_OP_NOT_IN, b);
  sh_requirement nameInAB = req(kMetadataName, SH_OP_IN, ab);
  EXPECT_TRUE(match(term(nullptr, 0, &nameIsA, 1)));
  EXPECT_FALSE(match(term(nullptr, 0, &nameIsB, 1)));
  EXPECT_TRUE(match(term(nullptr, 0, &nameNotB, 1)));
  EXPECT_FALSE(match(term(nullptr, 0, &nameInAB, 1)));   // a field needs exactly one value
  EXPECT_FALSE(match(term(&fooIsBar, 1, &nameIsB, 1)));  // ANDed
  // Other field keys read as "".
  sh_requirement otherIsEmpty = req(kBaz, SH_OP_IN, empty);
  EXPECT_TRUE(match(term(nullptr, 0, &otherIsEmpty, 1)));
  // A node without a name skips the fields.
  n.node.name = str("");
  EXPECT_TRUE(match(term(nullptr, 0, &nameIsB, 1)));

  // Terms are ORed; a selector without terms matches nothing.
  n.node.name = str("a");
  sh_node_selector_term terms[] = {term(nullptr, 0, &nameIsB, 1), term(&fooIsBar, 1, nullptr, 0)};
  EXPECT_TRUE(schedhost::matchNodeSelectorTerms(terms, 2, n.node, kMetadataName));
  EXPECT_FALSE(schedhost::matchNodeSelectorTerms(terms, 1, n.node, kMetadataName));
  EXPECT_FALSE(schedhost::matchNodeSelectorTerms(terms, 0, n.node, kMetadataName));
}

TEST(HelpersTest, MatchRequiredNodeAffinity) {
  TestNode n;
  sh_pod pod{};
  EXPECT_TRUE(schedhost::matchRequiredNodeAffinity(pod, n.node, kMetadataName));
  sh_label selector[] = {label(kFoo, kBar)};
  pod.node_selector = selector;
  pod.node_selector_count = 1;
  EXPECT_TRUE(schedhost::matchRequiredNodeAffinity(pod, n.node, kMetadataName));
  sh_label wrong[] = {label(kFoo, kBaz)};
  pod.node_selector = wrong;
  EXPECT_FALSE(schedhost::matchRequiredNodeAffinity(pod, n.node, kMetadataName));
  pod.node_selector = selector;
  sh_node_affinity affinity{};
  affinity.has_required = 1;  // present, with no terms: matches no node
  pod.node_affinity = &affinity;
  EXPECT_FALSE(schedhost::matchRequiredNodeAffinity(pod, n.node, kMetadataName));
  affinity.has_required = 0;
  EXPECT_TRUE(schedhost::matchRequiredNodeAffinity(pod, n.node, kMetadataName));
}

TEST(HelpersTest, PreferredTerms) {
  TestNode n;
  std::vector<sh_id> bar = {kBar};
  sh_requirement fooIsBar = req(kFoo, SH_OP_IN, bar);
  sh_preferred_term terms[3] = {};
  terms[0].weight = 3;
  terms[0].preference.match_expressions = &fooIsBar;
  terms[0].preference.match_expression_count = 1;
  terms[1] = terms[0];
  terms[1].weight = 0;  // ignored
  terms[2].weight = 7;  // empty preference: ignored
  EXPECT_EQ(schedhost::scorePreferredTerms(terms, 3, n.node, kMetadataName), 3);
}

TEST(HelpersTest, MatchLabelSelector) {
  TestNode n;
  const sh_label* labels = n.node.labels;
  EXPECT_FALSE(schedhost::matchLabelSelector(nullptr, labels, 2));
  sh_label_selector everything{};
  EXPECT_TRUE(schedhost::matchLabelSelector(&everything, labels, 2));
  sh_label want[] = {label(kFoo, kBar)};
  sh_label_selector byLabel{};
  byLabel.match_labels = want;
  byLabel.match_label_count = 1;
  EXPECT_TRUE(schedhost::matchLabelSelector(&byLabel, labels, 2));
  EXPECT_FALSE(schedhost::matchLabelSelector(&byLabel, labels, 0));
  std::vector<sh_id> five = {kSixText};
  sh_requirement gt = req(kKern, SH_OP_GT, five, 5, true);
  sh_label_selector byGt{};
  byGt.match_expressions = &gt;
  byGt.match_expression_count = 1;
  EXPECT_FALSE(schedhost::matchLabelSelector(&byGt, labels, 2));  // not a selector operator
}

TEST(HelpersTest, Tolerations) {
  using schedhost::toleratesTaint;
  sh_taint taint{kFoo, kBar, SH_EFFECT_NO_SCHEDULE, 0};
  auto tol = [](sh_id key, sh_id value, int32_t op, int32_t effect) {
    return sh_toleration{key, value, op, effect, -1};
  };
  EXPECT_TRUE(toleratesTaint(tol(kFoo, kBar, SH_TOLERATION_EQUAL, SH_EFFECT_NO_SCHEDULE), taint));
  EXPECT_TRUE(toleratesTaint(tol(kFoo, kBar, SH_TOLERATION_EQUAL, SH_EFFECT_NONE), taint));
  EXPECT_FALSE(toleratesTaint(tol(kFoo, kBar, SH_TOLERATION_EQUAL, SH_EFFECT_NO_EXECUTE), taint));
  EXPECT_FALSE(toleratesTaint(tol(kFoo, kBaz, SH_TOLERATION_EQUAL, SH_EFFECT_NONE), taint));
  EXPECT_TRUE(toleratesTaint(tol(kFoo, SH_ID_NONE, SH_TOLERATION_EXISTS, SH_EFFECT_NONE), taint));
  EXPECT_TRUE(
      toleratesTaint(tol(SH_ID_NONE, SH_ID_NONE, SH_TOLERATION_EXISTS, SH_EFFECT_NONE), taint));
  EXPECT_FALSE(toleratesTaint(tol(kBaz, SH_ID_NONE, SH_TOLERATION_EXISTS, SH_EFFECT_NONE), taint));
  EXPECT_FALSE(toleratesTaint(tol(kFoo, kBar, SH_TOLERATION_GT, SH_EFFECT_NONE), taint));
  // The empty value as SH_ID_NONE or SH_ID_EMPTY is the same value.
  sh_taint noValue{kFoo, SH_ID_EMPTY, SH_EFFECT_NO_EXECUTE, 0};
  EXPECT_TRUE(toleratesTaint(tol(kFoo, SH_ID_NONE, SH_TOLERATION_EQUAL, SH_EFFECT_NONE), noValue));

  sh_taint taints[] = {{kBaz, kBar, SH_EFFECT_PREFER_NO_SCHEDULE, 0}, taint, noValue};
  sh_toleration tolerations[] = {tol(kFoo, kBar, SH_TOLERATION_EQUAL, SH_EFFECT_NONE)};
  const sh_taint* first =
      schedhost::findUntoleratedTaint(taints, 3, tolerations, 1, schedhost::kDoNotScheduleEffects);
  EXPECT_EQ(first, &taints[2]);  // PreferNoSchedule is filtered out, foo=bar tolerated
  EXPECT_EQ(schedhost::findUntoleratedTaint(taints, 3, tolerations, 1,
                                            schedhost::effectBit(SH_EFFECT_PREFER_NO_SCHEDULE)),
            &taints[0]);
}

TEST(HelpersTest, Resources) {
  sh_quantity scalars[] = {{kFoo, 3}, {kBaz, 7}};
  sh_resources r{};
  r.milli_cpu = 1500;
  r.memory = 1024;
  r.ephemeral_storage = 10;
  r.allowed_pod_number = 32;
  r.scalars = scalars;
  r.scalar_count = 2;
  EXPECT_EQ(schedhost::resourceValue(r, SH_ID_CPU), 1500);
  EXPECT_EQ(schedhost::resourceValue(r, SH_ID_MEMORY), 1024);
  EXPECT_EQ(schedhost::resourceValue(r, SH_ID_EPHEMERAL_STORAGE), 10);
  EXPECT_EQ(schedhost::resourceValue(r, SH_ID_PODS), 32);
  EXPECT_EQ(schedhost::resourceValue(r, kBaz), 7);
  EXPECT_EQ(schedhost::resourceValue(r, kBar), 0);
  EXPECT_EQ(schedhost::findScalar(r, kBar), nullptr);
  EXPECT_FALSE(schedhost::requestsNothing(r));
  EXPECT_TRUE(schedhost::requestsNothing(sh_resources{}));

  EXPECT_TRUE(schedhost::isExtendedResourceName("example.com/foo"));
  EXPECT_TRUE(schedhost::isExtendedResourceName("nvidia.com/gpu"));
  EXPECT_FALSE(schedhost::isExtendedResourceName("kubernetes.io/foo"));
  EXPECT_FALSE(schedhost::isExtendedResourceName("sub.kubernetes.io/foo"));
  EXPECT_FALSE(schedhost::isExtendedResourceName("cpu"));
  EXPECT_FALSE(schedhost::isExtendedResourceName("requests.example.com/foo"));
  EXPECT_FALSE(schedhost::isExtendedResourceName("Example.com/foo"));
  EXPECT_FALSE(schedhost::isExtendedResourceName("example.com/foo/bar"));
  EXPECT_TRUE(schedhost::isScalarResourceName("hugepages-2Mi"));
  EXPECT_TRUE(schedhost::isScalarResourceName("attachable-volumes-aws-ebs"));
  EXPECT_TRUE(schedhost::isScalarResourceName("kubernetes.io/something"));
  EXPECT_TRUE(schedhost::isScalarResourceName("example.com/foo"));
  EXPECT_FALSE(schedhost::isScalarResourceName("memory"));
  EXPECT_FALSE(schedhost::isScalarResourceName("pods"));
}

TEST(HelpersTest, ResourceAllocation) {
  sh_quantity allocScalars[] = {{kFoo, 8}};
  sh_quantity usedScalars[] = {{kFoo, 2}};
  sh_node node{};
  node.allocatable.milli_cpu = 4000;
  node.allocatable.memory = 8000;
  node.allocatable.scalars = allocScalars;
  node.allocatable.scalar_count = 1;
  sh_node_info info{};
  info.node = &node;
  info.requested.milli_cpu = 1000;
  info.requested.memory = 1000;
  info.requested.scalars = usedScalars;
  info.requested.scalar_count = 1;
  info.non_zero_milli_cpu = 1100;
  info.non_zero_memory = 2000;
  using schedhost::resourceAllocation;
  auto a = resourceAllocation(info, SH_ID_CPU, false, 500, false);
  EXPECT_EQ(a.allocatable, 4000);
  EXPECT_EQ(a.allocated, 1100);  // non-zero sums for scoring
  EXPECT_EQ(a.requested, 1600);
  a = resourceAllocation(info, SH_ID_MEMORY, false, 500, true);
  EXPECT_EQ(a.allocated, 1000);  // actual requests
  EXPECT_EQ(a.requested, 1500);
  a = resourceAllocation(info, kFoo, true, 1, false);
  EXPECT_EQ(a.allocatable, 8);
  EXPECT_EQ(a.requested, 3);
  a = resourceAllocation(info, kFoo, true, 0, false);  // not requested: left out
  EXPECT_EQ(a.allocatable, 0);
  a = resourceAllocation(info, kBaz, true, 1, false);  // not offered: left out
  EXPECT_EQ(a.allocatable, 0);

  sh_pod pod{};
  pod.requests.milli_cpu = 0;
  pod.non_zero_milli_cpu = 100;
  EXPECT_EQ(schedhost::podResourceRequest(pod, SH_ID_CPU, false), 100);
  EXPECT_EQ(schedhost::podResourceRequest(pod, SH_ID_CPU, true), 0);
}

TEST(HelpersTest, DefaultNormalizeScore) {
  auto normalize = [](std::vector<int64_t> in, bool reverse) {
    std::vector<sh_node_score> scores;
    for (int64_t s : in) {
      scores.push_back({nullptr, s});
    }
    schedhost::defaultNormalizeScore(SH_MAX_NODE_SCORE, reverse, scores.data(), scores.size());
    std::vector<int64_t> out;
    for (const sh_node_score& s : scores) {
      out.push_back(s.score);
    }
    return out;
  };
  // 100*s/max: 100*10/30 = 33, 100*20/30 = 66, 100
  EXPECT_EQ(normalize({10, 20, 30}, false), (std::vector<int64_t>{33, 66, 100}));
  EXPECT_EQ(normalize({10, 20, 30}, true), (std::vector<int64_t>{67, 34, 0}));
  EXPECT_EQ(normalize({0, 0}, false), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(normalize({0, 0}, true), (std::vector<int64_t>{100, 100}));
  EXPECT_EQ(normalize({}, true), (std::vector<int64_t>{}));
}

TEST(HelpersTest, QualifiedNameErrors) {
  EXPECT_TRUE(schedhost::qualifiedNameErrors("foo").empty());
  EXPECT_TRUE(schedhost::qualifiedNameErrors("example.com/Foo_bar.1").empty());
  EXPECT_EQ(schedhost::qualifiedNameErrors(""),
            std::vector<std::string>{"name part must be non-empty"});
  EXPECT_EQ(schedhost::qualifiedNameErrors("/foo"),
            std::vector<std::string>{"prefix part must be non-empty"});
  EXPECT_EQ(schedhost::qualifiedNameErrors(std::string(64, 'a')),
            std::vector<std::string>{"name part must be no more than 63 characters"});
  auto errs = schedhost::qualifiedNameErrors("a/b/c");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].rfind("a qualified name must consist of alphanumeric characters", 0), 0u);
  errs = schedhost::qualifiedNameErrors("Example.com/foo");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].rfind("prefix part a lowercase RFC 1123 subdomain", 0), 0u);
  errs = schedhost::qualifiedNameErrors("-foo");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].rfind("name part must consist of alphanumeric characters", 0), 0u);
}

}  // namespace
