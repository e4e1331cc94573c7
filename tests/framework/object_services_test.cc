// The object services of the host table (ABI 1.2), called as a plugin calls them: reads from
// the cycle's version and from the latest one, the assume cache seen through reads, the JSON
// tree, and the refusals of writes and of bad arguments.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "host/connectors/object_store.h"
#include "host/connectors/object_write.h"
#include "host/framework/cycle_state.h"
#include "host/framework/plugin_instance.h"

namespace sh::object_services_test {
namespace {

class StoreServices : public NullHostServices {
 public:
  connectors::ObjectStore* objectStore() override { return &store; }
  Status writeObject(const connectors::ObjectKind& kind, const connectors::ObjectWrite& write,
                     std::string_view, std::string_view) override {
    writes.push_back(write.describe(kind));
    return Status();
  }
  connectors::ObjectStore store;
  std::vector<std::string> writes;
};

connectors::ObjectPtr podGroup(const std::string& ns, const std::string& name, int rv,
                               const std::string& team, int minMember) {
  std::string error;
  auto o = connectors::StoredObject::parse(
      boost::json::parse(R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup",)"
                         R"("metadata":{"namespace":")" +
                         ns + R"(","name":")" + name + R"(","resourceVersion":")" +
                         std::to_string(rv) + R"(","labels":{"team":")" + team +
                         R"("}},"spec":{"minMember":)" + std::to_string(minMember) +
                         R"(,"tags":["a","b"],"ratio":1.5,"gang":true}})"),
      error);
  EXPECT_NE(o, nullptr) << error;
  return o;
}

class ObjectServicesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    api_ = hostApi();
    ASSERT_GE(api_->abi_minor, 2);
    kind_ = services_.store.addKind(
        {"scheduling.x-k8s.io", "v1alpha1", "podgroups", "PodGroup", true, "", ""},
        SH_VERB_UPDATE_STATUS, "P");
    host_.pluginName = "P";
    host_.services = &services_;
    host_.kindIds = {kind_};
    host_.kindVerbs = {SH_VERB_UPDATE_STATUS};
    std::vector<connectors::ObjectEvent> events;
    services_.store.apply(kind_, false, podGroup("a", "g1", 1, "red", 2), events);
    services_.store.apply(kind_, false, podGroup("a", "g2", 1, "blue", 3), events);
    services_.store.apply(kind_, false, podGroup("b", "g3", 1, "red", 4), events);
  }
  std::string nameOf(const sh_object* o) { return std::string(o->name.ptr, o->name.len); }

  const sh_host_api* api_ = nullptr;
  StoreServices services_;
  sh_host host_;
  std::size_t kind_ = 0;
};

TEST_F(ObjectServicesTest, GetAndListReadTheCyclesVersion) {
  CycleState cycle;
  cycle.objects = services_.store.snapshot();
  // A change after the cycle began is not seen through the cycle, but is without one.
  std::vector<connectors::ObjectEvent> events;
  services_.store.apply(kind_, false, podGroup("a", "g4", 1, "red", 5), events);

  EXPECT_EQ(api_->object_get(&host_, &cycle, 0, "a", 1, "g4", 2), nullptr);
  const sh_object* latest = api_->object_get(&host_, nullptr, 0, "a", 1, "g4", 2);
  ASSERT_NE(latest, nullptr);
  EXPECT_EQ(nameOf(latest), "g4");

  const sh_object* const* out = nullptr;
  ASSERT_EQ(api_->object_list(&host_, &cycle, 0, "", 0, "", 0, &out), 3u);
  EXPECT_EQ(nameOf(out[0]), "g1");
  EXPECT_EQ(nameOf(out[2]), "g3");
  ASSERT_EQ(api_->object_list(&host_, &cycle, 0, "a", 1, "team=red", 8, &out), 1u);
  EXPECT_EQ(nameOf(out[0]), "g1");
  ASSERT_EQ(api_->object_list(&host_, nullptr, 0, "", 0, "team in (red)", 13, &out), 3u);
  // A selector that does not parse matches nothing.
  EXPECT_EQ(api_->object_list(&host_, &cycle, 0, "", 0, "team in (", 9, &out), 0u);
}

TEST_F(ObjectServicesTest, TheJsonTreeReadsEveryType) {
  const sh_object* g = api_->object_get(&host_, nullptr, 0, "a", 1, "g2", 2);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(api_->json_int(api_->json_path(g->root, "spec.minMember", 14)), 3);
  EXPECT_EQ(api_->json_type(api_->json_path(g->root, "spec.tags", 9)), SH_ARGS_ARRAY);
  EXPECT_EQ(api_->json_size(api_->json_path(g->root, "spec.tags", 9)), 2u);
  sh_str tag = api_->json_string(api_->json_path(g->root, "spec.tags.1", 11));
  EXPECT_EQ(std::string(tag.ptr, tag.len), "b");
  EXPECT_DOUBLE_EQ(api_->json_double(api_->json_path(g->root, "spec.ratio", 10)), 1.5);
  EXPECT_EQ(api_->json_bool(api_->json_path(g->root, "spec.gang", 9)), 1);
  EXPECT_EQ(api_->json_path(g->root, "spec.tags.2", 11), nullptr);
  EXPECT_EQ(api_->json_path(g->root, "spec.nothing.deeper", 19), nullptr);
  const sh_json* spec = api_->json_get(g->root, "spec", 4);
  sh_str key = api_->json_key_at(spec, 0);
  EXPECT_EQ(std::string(key.ptr, key.len), "minMember");
  // Accessors on the wrong type answer their "nothing".
  EXPECT_EQ(api_->json_int(api_->json_path(g->root, "spec.tags", 9)), 0);
  sh_str none = api_->json_string(nullptr);
  EXPECT_EQ(none.len, 0u);
  std::string text(api_->object_json(g, nullptr, 0), '\0');
  api_->object_json(g, text.data(), text.size());
  EXPECT_EQ(boost::json::parse(text).at("metadata").at("name"), "g2");
}

TEST_F(ObjectServicesTest, AnAssumedVersionHidesTheStoredOneUntilRestored) {
  const std::string assumed =
      R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup","metadata":)"
      R"({"namespace":"a","name":"g1","resourceVersion":"1"},"spec":{"minMember":9}})";
  sh_status* st = api_->status_create();
  ASSERT_EQ(api_->object_assume(&host_, 0, assumed.data(), assumed.size(), st), SH_SUCCESS);
  CycleState cycle;
  cycle.objects = services_.store.snapshot();
  const sh_object* g = api_->object_get(&host_, &cycle, 0, "a", 1, "g1", 2);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->assumed, 1);
  EXPECT_EQ(api_->json_int(api_->json_path(g->root, "spec.minMember", 14)), 9);
  const sh_object* const* out = nullptr;
  ASSERT_EQ(api_->object_list(&host_, &cycle, 0, "a", 1, "", 0, &out), 2u);
  EXPECT_EQ(out[0]->assumed, 1);
  api_->object_restore(&host_, 0, "a", 1, "g1", 2);
  g = api_->object_get(&host_, &cycle, 0, "a", 1, "g1", 2);
  EXPECT_EQ(g->assumed, 0);
  // Refused: not JSON, and an object that is not stored.
  EXPECT_EQ(api_->object_assume(&host_, 0, "{", 1, st), SH_ERROR);
  const std::string missing = R"({"metadata":{"namespace":"a","name":"zz"}})";
  EXPECT_EQ(api_->object_assume(&host_, 0, missing.data(), missing.size(), st), SH_ERROR);
  ASSERT_EQ(api_->status_reason_count(st), 2u);
  sh_str why = api_->status_reason_at(st, 1);
  EXPECT_NE(std::string(why.ptr, why.len).find("is not stored"), std::string::npos);
  api_->status_destroy(st);
}

TEST_F(ObjectServicesTest, KindVersionNamesWhatTheCycleReads) {
  ASSERT_GE(api_->abi_minor, 3);
  CycleState cycle;
  cycle.objects = services_.store.snapshot();
  const uint64_t taken = api_->object_kind_version(&host_, &cycle, 0);
  EXPECT_NE(taken, 0u);
  EXPECT_EQ(api_->object_kind_version(&host_, nullptr, 0), taken);  // nothing changed since

  // A change after the cycle began: the cycle still reads (and names) what it took.
  std::vector<connectors::ObjectEvent> events;
  services_.store.apply(kind_, false, podGroup("a", "g4", 1, "red", 5), events);
  EXPECT_EQ(api_->object_kind_version(&host_, &cycle, 0), taken);
  const uint64_t now = api_->object_kind_version(&host_, nullptr, 0);
  EXPECT_NE(now, taken);

  // An assumed object changes what both read, and so both numbers.
  const std::string assumed =
      R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup","metadata":)"
      R"({"namespace":"a","name":"g1","resourceVersion":"1"},"spec":{"minMember":9}})";
  sh_status* st = api_->status_create();
  ASSERT_EQ(api_->object_assume(&host_, 0, assumed.data(), assumed.size(), st), SH_SUCCESS);
  api_->status_destroy(st);
  EXPECT_NE(api_->object_kind_version(&host_, &cycle, 0), taken);
  EXPECT_NE(api_->object_kind_version(&host_, nullptr, 0), now);

  // Refused: a kind the plugin did not declare, no host.
  EXPECT_EQ(api_->object_kind_version(&host_, nullptr, 1), 0u);
  EXPECT_EQ(api_->object_kind_version(nullptr, nullptr, 0), 0u);
}

TEST_F(ObjectServicesTest, WritesAreRefusedWithTheirCause) {
  sh_status* st = api_->status_create();
  sh_object_write w{};
  w.struct_size = sizeof w;
  w.kind = 0;
  w.verb = SH_VERB_DELETE;  // not declared
  w.namespace_ = {"a", 1};
  w.name = {"g1", 2};
  EXPECT_EQ(api_->object_write(&host_, nullptr, &w, st), SH_ERROR);
  w.verb = SH_VERB_UPDATE_STATUS;
  w.patch_type = SH_PATCH_MERGE;
  w.body = {"{}", 2};
  // Declared, but not from a plugin call at a writing point.
  EXPECT_EQ(api_->object_write(&host_, nullptr, &w, st), SH_ERROR);
  w.kind = 7;  // not declared at all
  EXPECT_EQ(api_->object_write(&host_, nullptr, &w, st), SH_ERROR);
  ASSERT_EQ(api_->status_reason_count(st), 3u);
  auto reason = [&](std::size_t i) {
    sh_str r = api_->status_reason_at(st, i);
    return std::string(r.ptr, r.len);
  };
  EXPECT_NE(reason(0).find("did not declare the verb \"delete\""), std::string::npos) << reason(0);
  EXPECT_NE(reason(0).find("PodGroup (podgroups.v1alpha1.scheduling.x-k8s.io)"), std::string::npos);
  EXPECT_NE(reason(1).find("from outside a plugin call"), std::string::npos) << reason(1);
  EXPECT_NE(reason(2).find("kind 7 is not declared by plugin \"P\""), std::string::npos)
      << reason(2);
  EXPECT_TRUE(services_.writes.empty());
  api_->status_destroy(st);
}

TEST_F(ObjectServicesTest, BadArgumentsAreRefusedWithoutHarm) {
  const sh_object* const* out = nullptr;
  EXPECT_EQ(api_->object_get(&host_, nullptr, 3, "a", 1, "g1", 2), nullptr);  // no kind 3
  EXPECT_EQ(api_->object_get(&host_, nullptr, 0, nullptr, 5, "g1", 2), nullptr);
  EXPECT_EQ(api_->object_get(nullptr, nullptr, 0, "a", 1, "g1", 2), nullptr);
  EXPECT_EQ(api_->object_list(&host_, nullptr, 0, "", 0, "", 0, nullptr), 0u);
  EXPECT_EQ(api_->object_list(&host_, nullptr, 0, "", 0, nullptr, 3, &out), 0u);
  EXPECT_EQ(api_->object_write(&host_, nullptr, nullptr, nullptr), SH_ERROR);
  api_->object_restore(&host_, 9, "a", 1, "g1", 2);
  EXPECT_EQ(api_->object_json(nullptr, nullptr, 0), 0u);
  EXPECT_EQ(api_->json_type(nullptr), SH_ARGS_NULL);
}

}  // namespace
}  // namespace sh::object_services_test
