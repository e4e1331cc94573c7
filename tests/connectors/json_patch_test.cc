#include "host/connectors/json_patch.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

namespace sh::connectors::json_patch_test {
namespace {

boost::json::value parse(const char* text) { return boost::json::parse(text); }

// ---- RFC 7386 ------------------------------------------------------------------------------

struct MergeCase {
  const char* original;
  const char* patch;
  const char* result;
};

// RFC 7386 appendix A, every row.
TEST(JsonPatchTest, MergePatchRfc7386AppendixA) {
  const MergeCase cases[] = {
      {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b", "b":"c"})"},
      {R"({"a":"b"})", R"({"a":null})", R"({})"},
      {R"({"a":"b", "b":"c"})", R"({"a":null})", R"({"b":"c"})"},
      {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
      {R"({"a": {"b": "c"}})", R"({"a": {"b": "d", "c": null}})", R"({"a": {"b": "d"}})"},
      {R"({"a": [{"b":"c"}]})", R"({"a": [1]})", R"({"a": [1]})"},
      {R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
      {R"({"a":"b"})", R"(["c"])", R"(["c"])"},
      {R"({"a":"foo"})", R"(null)", R"(null)"},
      {R"({"a":"foo"})", R"("bar")", R"("bar")"},
      {R"({"e":null})", R"({"a":1})", R"({"e":null, "a":1})"},
      {R"([1,2])", R"({"a":"b", "c":null})", R"({"a":"b"})"},
      {R"({})", R"({"a": {"bb": {"ccc": null}}})", R"({"a": {"bb": {}}})"},
  };
  for (const MergeCase& c : cases) {
    boost::json::value target = parse(c.original);
    applyMergePatch(target, parse(c.patch));
    EXPECT_EQ(target, parse(c.result)) << c.original << " + " << c.patch;
  }
}

// ---- RFC 6902 ------------------------------------------------------------------------------

struct JsonPatchCase {
  const char* name;
  const char* document;
  const char* patch;
  const char* result;  // null: the patch fails and the document is left as it was
};

// RFC 6902 appendix A, every example. A.13's patch has "op" twice; Boost.JSON keeps the last,
// "remove", and /baz is not there to remove. The RFC gives A.13 no document: {"foo":"bar"}.
TEST(JsonPatchTest, JsonPatchRfc6902AppendixA) {
  const JsonPatchCase cases[] = {
      {"A.1 add object member", R"({"foo": "bar"})",
       R"([{"op": "add", "path": "/baz", "value": "qux"}])", R"({"baz": "qux", "foo": "bar"})"},
      {"A.2 add array element", R"({"foo": ["bar", "baz"]})",
       R"([{"op": "add", "path": "/foo/1", "value": "qux"}])", R"({"foo": ["bar", "qux", "baz"]})"},
      {"A.3 remove object member", R"({"baz": "qux", "foo": "bar"})",
       R"([{"op": "remove", "path": "/baz"}])", R"({"foo": "bar"})"},
      {"A.4 remove array element", R"({"foo": ["bar", "qux", "baz"]})",
       R"([{"op": "remove", "path": "/foo/1"}])", R"({"foo": ["bar", "baz"]})"},
      {"A.5 replace", R"({"baz": "qux", "foo": "bar"})",
       R"([{"op": "replace", "path": "/baz", "value": "boo"}])", R"({"baz": "boo", "foo": "bar"})"},
      {"A.6 move value", R"({"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}})",
       R"([{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}])",
       R"({"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}})"},
      {"A.7 move array element", R"({"foo": ["all", "grass", "cows", "eat"]})",
       R"([{"op": "move", "from": "/foo/1", "path": "/foo/3"}])",
       R"({"foo": ["all", "cows", "eat", "grass"]})"},
      {"A.8 test success", R"({"baz": "qux", "foo": ["a", 2, "c"]})",
       R"([{"op": "test", "path": "/baz", "value": "qux"},
           {"op": "test", "path": "/foo/1", "value": 2}])",
       R"({"baz": "qux", "foo": ["a", 2, "c"]})"},
      {"A.9 test error", R"({"baz": "qux"})", R"([{"op": "test", "path": "/baz", "value": "bar"}])",
       nullptr},
      {"A.10 add nested member object", R"({"foo": "bar"})",
       R"([{"op": "add", "path": "/child", "value": {"grandchild": {}}}])",
       R"({"foo": "bar", "child": {"grandchild": {}}})"},
      {"A.11 ignore unrecognized elements", R"({"foo": "bar"})",
       R"([{"op": "add", "path": "/baz", "value": "qux", "xyz": 123}])",
       R"({"foo": "bar", "baz": "qux"})"},
      {"A.12 add to nonexistent target", R"({"foo": "bar"})",
       R"([{"op": "add", "path": "/baz/bat", "value": "qux"}])", nullptr},
      {"A.13 invalid patch document", R"({"foo": "bar"})",
       R"([{"op": "add", "path": "/baz", "value": "qux", "op": "remove"}])", nullptr},
      {"A.14 ~ escape ordering", R"({"/": 9, "~1": 10})",
       R"([{"op": "test", "path": "/~01", "value": 10}])", R"({"/": 9, "~1": 10})"},
      {"A.15 strings and numbers", R"({"/": 9, "~1": 10})",
       R"([{"op": "test", "path": "/~01", "value": "10"}])", nullptr},
      {"A.16 add array value", R"({"foo": ["bar"]})",
       R"([{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}])",
       R"({"foo": ["bar", ["abc", "def"]]})"},
  };
  for (const JsonPatchCase& c : cases) {
    boost::json::value target = parse(c.document);
    std::string error;
    bool ok = applyJsonPatch(target, parse(c.patch), error);
    if (c.result == nullptr) {
      EXPECT_FALSE(ok) << c.name;
      EXPECT_FALSE(error.empty()) << c.name;
      EXPECT_EQ(target, parse(c.document)) << c.name;
    } else {
      EXPECT_TRUE(ok) << c.name << ": " << error;
      EXPECT_EQ(target, parse(c.result)) << c.name;
    }
  }
}

TEST(JsonPatchTest, ErrorsNameTheOperationAndLeaveTheTargetUnchanged) {
  struct Case {
    const char* patch;
    const char* error;
  };
  const Case cases[] = {
      {R"([{"op": "test", "path": "/spec/a", "value": 1},
           {"op": "add", "path": "/spec/b", "value": 2},
           {"op": "remove", "path": "/spec/x"}])",
       "operation 2 (remove /spec/x): path not found"},
      {R"([{"op": "add", "path": "/spec/a", "value": 3}, {"op": "test", "path": "/spec/a",
           "value": 1}])",
       "operation 1 (test /spec/a): test failed: the value differs"},
      {R"([{"op": "replace", "path": "/spec/nope", "value": 1}])",
       "operation 0 (replace /spec/nope): path not found"},
      {R"([{"op": "add", "path": "/spec/list/3", "value": 1}])",
       "operation 0 (add /spec/list/3): array index 3 out of range"},
      {R"([{"op": "add", "path": "/spec/list/01", "value": 1}])",
       "operation 0 (add /spec/list/01): invalid array index \"01\""},
      {R"([{"op": "remove", "path": "/spec/list/-"}])",
       "operation 0 (remove /spec/list/-): invalid array index \"-\""},
      {R"([{"op": "move", "from": "/spec", "path": "/spec/inner"}])",
       "operation 0 (move /spec/inner): cannot move a value into one of its own children"},
      {R"([{"op": "copy", "from": "/nope", "path": "/x"}])",
       "operation 0 (copy /x): from: path not found"},
      {R"([{"op": "add", "path": "spec", "value": 1}])",
       "operation 0 (add spec): a JSON pointer must be empty or start with '/'"},
      {R"([{"op": "add", "path": "/a~2", "value": 1}])",
       "operation 0 (add /a~2): invalid escape in JSON pointer (\"~\" must be followed by 0 or 1)"},
      {R"([{"op": "add", "path": "/x"}])", "operation 0 (add /x): missing \"value\""},
      {R"([{"op": "frob", "path": "/x"}])", "operation 0 (frob /x): unknown operation"},
      {R"([{"path": "/x"}])", "operation 0: missing \"op\""},
      {R"([{"op": "remove"}])", "operation 0: missing \"path\""},
      {R"([3])", "operation 0: not an object"},
      {R"({"op": "remove", "path": "/spec"})", "a JSON patch must be an array of operations"},
  };
  const auto document = parse(R"({"spec": {"a": 1, "list": [1, 2]}})");
  for (const Case& c : cases) {
    boost::json::value target = document;
    std::string error;
    EXPECT_FALSE(applyJsonPatch(target, parse(c.patch), error)) << c.patch;
    EXPECT_EQ(error, c.error);
    EXPECT_EQ(target, document) << c.patch;
  }
}

TEST(JsonPatchTest, JsonPatchEdgeCases) {
  struct Case {
    const char* document;
    const char* patch;
    const char* result;
  };
  const Case cases[] = {
      // An empty path names the whole document.
      {R"({"a": 1})", R"([{"op": "replace", "path": "", "value": [1]}])", R"([1])"},
      {R"({"a": 1})", R"([{"op": "add", "path": "", "value": {"b": 2}}])", R"({"b": 2})"},
      // add replaces an existing member; copy leaves the source.
      {R"({"a": 1})", R"([{"op": "add", "path": "/a", "value": 2}])", R"({"a": 2})"},
      {R"({"a": {"b": 1}})", R"([{"op": "copy", "from": "/a", "path": "/c"}])",
       R"({"a": {"b": 1}, "c": {"b": 1}})"},
      // A member named "" and one with '/' in its name.
      {R"({"": 1, "a/b": 2})",
       R"([{"op": "remove", "path": "/"}, {"op": "replace", "path": "/a~1b", "value": 3}])",
       R"({"a/b": 3})"},
      // test compares numbers by value and objects regardless of member order.
      {R"({"n": 1, "o": {"x": 1, "y": [true, null]}})",
       R"([{"op": "test", "path": "/n", "value": 1.0},
           {"op": "test", "path": "/o", "value": {"y": [true, null], "x": 1}}])",
       R"({"n": 1, "o": {"x": 1, "y": [true, null]}})"},
      // Moving to itself changes nothing.
      {R"({"a": 1})", R"([{"op": "move", "from": "/a", "path": "/a"}])", R"({"a": 1})"},
  };
  for (const Case& c : cases) {
    boost::json::value target = parse(c.document);
    std::string error;
    EXPECT_TRUE(applyJsonPatch(target, parse(c.patch), error)) << c.patch << ": " << error;
    EXPECT_EQ(target, parse(c.result)) << c.patch;
  }
}

// ---- Strategic merge patch -----------------------------------------------------------------

struct StrategicCase {
  const char* name;
  const char* original;
  const char* patch;
  const char* result;
};

void expectStrategic(const StrategicCase& c) {
  boost::json::value target = parse(c.original);
  std::string error;
  EXPECT_TRUE(applyStrategicMergePatch(target, parse(c.patch), error)) << c.name << ": " << error;
  // Compared as text, so that the order of merged lists counts.
  EXPECT_EQ(boost::json::serialize(target), boost::json::serialize(parse(c.result))) << c.name;
}

TEST(JsonPatchTest, StrategicConditionsMergeByType) {
  // The scheduler's status patch: one condition changed, the others kept in place.
  expectStrategic({"conditions by type",
                   R"({"status": {"phase": "Pending", "conditions": [
                        {"type": "Ready", "status": "False"},
                        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}})",
                   R"({"status": {"conditions": [
                        {"type": "PodScheduled", "status": "True", "reason": null}]}})",
                   R"({"status": {"phase": "Pending", "conditions": [
                        {"type": "Ready", "status": "False"},
                        {"type": "PodScheduled", "status": "True"}]}})"});
  // A new type is added; upstream's order puts it before the server-only items that follow
  // the last patched one (normalizeElementOrder).
  expectStrategic({"new condition",
                   R"({"status": {"conditions": [{"type": "A"}, {"type": "B"}, {"type": "C"}]}})",
                   R"({"status": {"conditions": [{"type": "B", "s": 1}, {"type": "D"}]}})",
                   R"({"status": {"conditions": [{"type": "A"}, {"type": "B", "s": 1},
                        {"type": "D"}, {"type": "C"}]}})"});
  // $setElementOrder (what CreateTwoWayMergePatch writes) orders the patched items.
  expectStrategic({"setElementOrder",
                   R"({"status": {"conditions": [{"type": "A"}, {"type": "B"}]}})",
                   R"({"status": {"$setElementOrder/conditions": [{"type": "B"}, {"type": "A"}],
                        "conditions": [{"type": "A", "s": 1}]}})",
                   R"({"status": {"conditions": [{"type": "B"}, {"type": "A", "s": 1}]}})"});
}

TEST(JsonPatchTest, StrategicPatchDeleteAndReplace) {
  const StrategicCase cases[] = {
      {"$patch: delete in a merged list",
       R"({"spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}})",
       R"({"spec": {"containers": [{"name": "a", "$patch": "delete"}]}})",
       R"({"spec": {"containers": [{"name": "b", "image": "y"}]}})"},
      {"$patch: delete on a map", R"({"metadata": {"name": "p", "labels": {"a": "1", "b": "2"}}})",
       R"({"metadata": {"labels": {"$patch": "delete"}}})",
       R"({"metadata": {"name": "p", "labels": {}}})"},
      {"$patch: replace on a map", R"({"metadata": {"name": "p", "labels": {"a": "1", "b": "2"}}})",
       R"({"metadata": {"labels": {"$patch": "replace", "c": "3"}}})",
       R"({"metadata": {"name": "p", "labels": {"c": "3"}}})"},
      {"$patch: replace in a merged list",
       R"({"status": {"conditions": [{"type": "A"}, {"type": "B"}]}})",
       R"({"status": {"conditions": [{"$patch": "replace"}, {"type": "C"}]}})",
       R"({"status": {"conditions": [{"type": "C"}]}})"},
      // A new item goes before the server's items it cannot be placed among (upstream's
      // mergeSortedSlice compares only items the server's order knows).
      {"container env merged by name, ports by containerPort",
       R"({"spec": {"containers": [{"name": "a", "env": [{"name": "X", "value": "1"}],
            "ports": [{"containerPort": 80, "name": "http"}]}]}})",
       R"({"spec": {"containers": [{"name": "a", "env": [{"name": "Y", "value": "2"}],
            "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}})",
       R"({"spec": {"containers": [{"name": "a",
            "env": [{"name": "Y", "value": "2"}, {"name": "X", "value": "1"}],
            "ports": [{"containerPort": 80, "name": "http", "protocol": "TCP"}]}]}})"},
      {"tolerations are atomic", R"({"spec": {"tolerations": [{"key": "a"}, {"key": "b"}]}})",
       R"({"spec": {"tolerations": [{"key": "c"}]}})",
       R"({"spec": {"tolerations": [{"key": "c"}]}})"},
      {"finalizers merge as a set, $deleteFromPrimitiveList removes",
       R"({"metadata": {"finalizers": ["a", "b"]}})",
       R"({"metadata": {"finalizers": ["b", "c"], "$deleteFromPrimitiveList/finalizers": ["a"]}})",
       R"({"metadata": {"finalizers": ["b", "c"]}})"},
      {"null deletes, $retainKeys ignored, a new map loses its nulls",
       R"({"spec": {"nodeName": "n", "priority": 1}})",
       R"({"spec": {"$retainKeys": ["nodeName"], "priority": null, "extra": {"a": null, "b": 1}}})",
       R"({"spec": {"nodeName": "n", "extra": {"b": 1}}})"},
      {"a new merged list drops its directives", R"({"spec": {}})",
       R"({"spec": {"containers": [{"name": "a"}, {"name": "z", "$patch": "delete"}]}})",
       R"({"spec": {"containers": [{"name": "a"}]}})"},
      {"$patch: delete at the top", R"({"a": 1})", R"({"$patch": "delete"})", R"({})"},
  };
  for (const StrategicCase& c : cases) {
    expectStrategic(c);
  }
}

TEST(JsonPatchTest, StrategicMalformedPatchesFail) {
  struct Case {
    const char* patch;
    const char* error;
  };
  const Case cases[] = {
      {R"([1])", "a strategic merge patch must be a JSON object"},
      {R"({"metadata": {"$patch": "frob"}})",
       R"(unknown patch type: "frob" in map: {"$patch":"frob"})"},
      {R"({"status": {"conditions": [{"status": "True"}]}})",
       R"(map: {"status":"True"} does not contain declared merge key: type)"},
      {R"({"status": {"conditions": [{"$patch": "delete"}]}})",
       R"(map: {"$patch":"delete"} does not contain declared merge key: type)"},
      {R"({"status": {"conditions": [{"type": "A", "$patch": "merge"}]}})",
       "merging lists cannot yet be specified in the patch"},
      {R"({"status": {"conditions": ["A"]}})",
       R"(list element types are not identical: [{"type":"Ready"}], ["A"])"},
      {R"({"status": {"conditions": [["A"]]}})", "lists of lists are not supported"},
      {R"({"metadata": {"$deleteFromPrimitiveList/finalizers": "a"}})",
       "invalid patch format of primitive list"},
      {R"({"status": {"$setElementOrder/conditions": "a", "conditions": []}})",
       "invalid patch format of setElementOrder list"},
  };
  const auto document = parse(R"({"metadata": {"finalizers": ["a"]},
                                  "status": {"conditions": [{"type": "Ready"}]}})");
  for (const Case& c : cases) {
    boost::json::value target = document;
    std::string error;
    EXPECT_FALSE(applyStrategicMergePatch(target, parse(c.patch), error)) << c.patch;
    EXPECT_EQ(error, c.error);
    EXPECT_EQ(target, document) << c.patch;
  }
}

// ---- Hostile depth -------------------------------------------------------------------------

// {"a":{"a":...}} `levels` deep, in `storage`. The tests keep deep values in a monotonic
// resource, whose values are freed without walking them: Boost.JSON destroys and copies
// recursively, so a 100,000-level value in the default storage would overflow the stack in the
// test itself.
boost::json::value nested(std::size_t levels, boost::json::storage_ptr storage) {
  boost::json::value root(boost::json::object(storage), storage);
  boost::json::value* at = &root;
  for (std::size_t i = 1; i < levels; ++i) {
    at = &at->as_object().emplace("a", boost::json::object(storage)).first->value();
  }
  return root;
}

constexpr std::size_t kHostileDepth = 100'000;

TEST(JsonPatchTest, DeepMergePatchStopsDescendingAndTakesTheSubTree) {
  boost::json::monotonic_resource resource;
  boost::json::storage_ptr storage(&resource);
  boost::json::value patch = nested(kHostileDepth, storage);
  boost::json::value target(boost::json::object{{"keep", 1}}, storage);
  applyMergePatch(target, patch);
  EXPECT_EQ(target.as_object().at("keep"), 1);
  // The patch's whole depth is there: merged down to the bound, copied below it.
  std::size_t depth = 1;
  for (const boost::json::value* at = &target; at->as_object().contains("a"); ++depth) {
    at = &at->as_object().at("a");
  }
  EXPECT_EQ(depth, kHostileDepth);
}

TEST(JsonPatchTest, DeepMergePatchKeepsNullsBelowTheBound) {
  // {"a": ... {"a": {"x": null}}} with the null at level kMaxPatchDepth + 2: past the bound the
  // sub-tree is taken as it is.
  boost::json::monotonic_resource resource;
  boost::json::storage_ptr storage(&resource);
  boost::json::value patch = nested(kMaxPatchDepth + 1, storage);
  boost::json::value* leaf = &patch;
  while (!leaf->as_object().empty()) {
    leaf = &leaf->as_object().at("a");
  }
  leaf->as_object().emplace("x", nullptr);
  boost::json::value target(boost::json::object(), storage);
  applyMergePatch(target, patch);
  const boost::json::value* at = &target;
  while (at->as_object().contains("a")) {
    at = &at->as_object().at("a");
  }
  ASSERT_TRUE(at->as_object().contains("x"));
  EXPECT_TRUE(at->as_object().at("x").is_null());
  // Within the bound, a null still deletes.
  boost::json::value shallow = parse(R"({"a": {"a": {"x": null}}})");
  boost::json::value t2 = parse(R"({})");
  applyMergePatch(t2, shallow);
  EXPECT_EQ(t2, parse(R"({"a": {"a": {}}})"));
}

TEST(JsonPatchTest, DeepJsonPatchFailsNamingTheDepth) {
  boost::json::monotonic_resource resource;
  boost::json::storage_ptr storage(&resource);
  boost::json::value patch(boost::json::array(storage), storage);
  boost::json::object op(storage);
  op["op"] = "add";
  op["path"] = "/deep";
  op["value"] = nested(kHostileDepth, storage);
  patch.as_array().push_back(std::move(op));
  boost::json::value target = parse(R"({"a": 1})");
  std::string error;
  EXPECT_FALSE(applyJsonPatch(target, patch, error));
  EXPECT_EQ(error, "operation 0 (add /deep): value nested deeper than 512 levels");
  EXPECT_EQ(target, parse(R"({"a": 1})"));

  // Within the value's bound, the result may not pass it either: 512 levels at /deep is 513.
  patch.as_array()[0].as_object()["value"] = nested(kMaxPatchDepth, storage);
  EXPECT_FALSE(applyJsonPatch(target, patch, error));
  EXPECT_EQ(error, "operation 0 (add /deep): the result would be nested deeper than 512 levels");
  patch.as_array()[0].as_object()["value"] = nested(kMaxPatchDepth - 1, storage);
  EXPECT_TRUE(applyJsonPatch(target, patch, error)) << error;
}

TEST(JsonPatchTest, DeepStrategicMergePatchFailsNamingTheDepth) {
  boost::json::monotonic_resource resource;
  boost::json::storage_ptr storage(&resource);
  boost::json::value target = parse(R"({"a": 1})");
  std::string error;
  EXPECT_FALSE(applyStrategicMergePatch(target, nested(kHostileDepth, storage), error));
  EXPECT_EQ(error, "the patch is nested deeper than 512 levels");
  EXPECT_EQ(target, parse(R"({"a": 1})"));
  EXPECT_TRUE(applyStrategicMergePatch(target, nested(kMaxPatchDepth, storage), error)) << error;
}

}  // namespace
}  // namespace sh::connectors::json_patch_test
