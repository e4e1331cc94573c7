// The C++ layer of the object services (ABI 1.2) against hand-built host tables: what each
// wrapper passes to the host and makes of its answer, the null views that let a plugin chain
// lookups, the kinds and registrations SCHEDHOST_PLUGIN puts in the descriptor, and the
// degraded answers on a host older than 1.2. The services themselves, through the real host,
// are tested with the C plugin of objects_plugin/.
#define SCHEDHOST_PLUGIN_STATIC_ENTRY sdkObjectsTestEntry
#include <schedhost/plugin.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::string str(sh_str s) { return s.len == 0 ? std::string() : std::string(s.ptr, s.len); }
sh_str shStr(const std::string& s) { return sh_str{s.data(), s.size()}; }

// --- a fake JSON tree: sh_json handles are FakeJson addresses --------------------------------
struct FakeJson {
  int type = SH_ARGS_NULL;
  int64_t i = 0;
  double d = 0;
  std::string s;
  std::vector<std::string> keys;  // objects: member names, and their values in items
  std::vector<FakeJson> items;    // arrays, and the values of an object's members
};
const FakeJson* fake(const sh_json* n) { return reinterpret_cast<const FakeJson*>(n); }
const sh_json* handle(const FakeJson* n) { return reinterpret_cast<const sh_json*>(n); }

const sh_json* fakeGet(const sh_json* node, const char* key, size_t len) {
  const FakeJson* n = fake(node);
  for (std::size_t i = 0; i < n->keys.size(); ++i) {
    if (n->keys[i] == std::string(key, len)) {
      return handle(&n->items[i]);
    }
  }
  return nullptr;
}
const sh_json* fakePath(const sh_json* node, const char* path, size_t len) {
  std::string rest(path, len);
  const sh_json* at = node;
  while (at != nullptr && !rest.empty()) {
    std::size_t dot = rest.find('.');
    std::string step = rest.substr(0, dot);
    rest = dot == std::string::npos ? "" : rest.substr(dot + 1);
    const FakeJson* n = fake(at);
    if (n->type == SH_ARGS_ARRAY) {
      std::size_t index = std::stoul(step);
      at = index < n->items.size() ? handle(&n->items[index]) : nullptr;
    } else {
      at = fakeGet(at, step.data(), step.size());
    }
  }
  return at;
}

FakeJson number(int64_t v) {
  FakeJson j;
  j.type = SH_ARGS_INT;
  j.i = v;
  j.d = static_cast<double>(v);
  return j;
}
FakeJson text(const std::string& v) {
  FakeJson j;
  j.type = SH_ARGS_STRING;
  j.s = v;
  return j;
}

// --- a fake status ---------------------------------------------------------------------------
struct FakeStatus {
  std::vector<std::string> reasons;
};
FakeStatus* fake(sh_status* s) { return reinterpret_cast<FakeStatus*>(s); }
const FakeStatus* fake(const sh_status* s) { return reinterpret_cast<const FakeStatus*>(s); }

// --- what the fake host saw ------------------------------------------------------------------
struct Calls {
  std::vector<std::string> log;
  sh_object_write lastWrite{};
  std::string lastBody;
};
Calls gCalls;

int gCycleObject = 0;
sh_cycle* const kCycle = reinterpret_cast<sh_cycle*>(&gCycleObject);
int gHostObject = 0;
sh_host* const kHost = reinterpret_cast<sh_host*>(&gHostObject);

std::string cycleName(sh_cycle* c) { return c == kCycle ? "cycle" : c == nullptr ? "latest" : "?"; }

// Two PodGroups, g1 labelled team=red, with a JSON tree for g1.
struct Store {
  FakeJson root;
  std::vector<sh_label> labels;
  sh_object g1{};
  sh_object g2{};
  const sh_object* list[2] = {&g1, &g2};
  std::string json = R"({"metadata":{"name":"g1"}})";
  Store() {
    FakeJson spec;
    spec.type = SH_ARGS_OBJECT;
    FakeJson tags;
    tags.type = SH_ARGS_ARRAY;
    tags.items = {text("a"), text("b")};
    spec.keys = {"minMember", "tags"};
    spec.items = {number(3), tags};
    root.type = SH_ARGS_OBJECT;
    root.keys = {"spec"};
    root.items = {spec};
    static const std::string kTeam = "team";
    static const std::string kRed = "red";
    labels.push_back(sh_label{1, 2, shStr(kTeam), shStr(kRed)});
    for (sh_object* o : {&g1, &g2}) {
      o->struct_size = sizeof(sh_object);
      o->api_version = {"scheduling.x-k8s.io/v1alpha1", 28};
      o->kind = {"PodGroup", 8};
      o->namespace_ = {"ns", 2};
      o->resource_version = {"7", 1};
    }
    g1.name = {"g1", 2};
    g1.uid = {"uid-1", 5};
    g1.labels = labels.data();
    g1.label_count = 1;
    g1.root = handle(&root);
    g1.creation_unix_nanos = 42;
    g1.assumed = 1;
    g2.name = {"g2", 2};
    g2.deleting = 1;
  }
};
Store* gStore = nullptr;

sh_host_api fakeHost(uint16_t minor, std::size_t size) {
  sh_host_api api{};
  api.struct_size = static_cast<uint32_t>(size);
  api.abi_major = SH_ABI_MAJOR;
  api.abi_minor = minor;
  api.status_create = [] { return reinterpret_cast<sh_status*>(new FakeStatus); };
  api.status_destroy = [](sh_status* s) { delete fake(s); };
  api.status_add_reason = [](sh_status* s, const char* r, size_t len) {
    fake(s)->reasons.emplace_back(r, len);
  };
  api.status_reason_count = [](const sh_status* s) { return fake(s)->reasons.size(); };
  api.status_reason_at = [](const sh_status* s, size_t i) {
    const std::string& r = fake(s)->reasons.at(i);
    return sh_str{r.data(), r.size()};
  };
  api.object_get = [](sh_host* host, sh_cycle* cycle, uint32_t kind, const char* ns, size_t nsLen,
                      const char* name, size_t nameLen) -> const sh_object* {
    EXPECT_EQ(host, kHost);
    std::string n(name, nameLen);
    gCalls.log.push_back("get " + cycleName(cycle) + " " + std::to_string(kind) + " " +
                         std::string(ns, nsLen) + "/" + n);
    return n == "g1" ? &gStore->g1 : nullptr;
  };
  api.object_list = [](sh_host* host, sh_cycle* cycle, uint32_t kind, const char* ns, size_t nsLen,
                       const char* selector, size_t selectorLen,
                       const sh_object* const** out) -> size_t {
    EXPECT_EQ(host, kHost);
    std::string sel(selector, selectorLen);
    gCalls.log.push_back("list " + cycleName(cycle) + " " + std::to_string(kind) + " [" +
                         std::string(ns, nsLen) + "] [" + sel + "]");
    *out = gStore->list;
    return sel == "none" ? 0 : 2;
  };
  api.object_json = [](const sh_object* o, char* buf, size_t capacity) -> size_t {
    const std::string& j = gStore->json;
    EXPECT_EQ(o, &gStore->g1);
    if (buf != nullptr) {
      std::memcpy(buf, j.data(), std::min(capacity, j.size()));
    }
    return j.size();
  };
  api.json_type = [](const sh_json* n) { return fake(n)->type; };
  api.json_get = &fakeGet;
  api.json_path = &fakePath;
  api.json_size = [](const sh_json* n) -> size_t { return fake(n)->items.size(); };
  api.json_at = [](const sh_json* n, size_t i) -> const sh_json* {
    const FakeJson* j = fake(n);
    return i < j->items.size() ? handle(&j->items[i]) : nullptr;
  };
  api.json_key_at = [](const sh_json* n, size_t i) {
    const FakeJson* j = fake(n);
    return i < j->keys.size() ? shStr(j->keys[i]) : sh_str{"", 0};
  };
  api.json_int = [](const sh_json* n) { return fake(n)->i; };
  api.json_double = [](const sh_json* n) { return fake(n)->d; };
  api.json_bool = [](const sh_json* n) { return fake(n)->type == SH_ARGS_BOOL ? 1 : 0; };
  api.json_string = [](const sh_json* n) { return shStr(fake(n)->s); };
  api.object_write = [](sh_host* host, sh_cycle* cycle, const sh_object_write* w,
                        sh_status* st) -> sh_code {
    EXPECT_EQ(host, kHost);
    gCalls.log.push_back("write " + cycleName(cycle));
    gCalls.lastWrite = *w;
    gCalls.lastBody = str(w->body);
    const char kWhy[] = "podgroups \"g9\" not found";
    fake(st)->reasons.emplace_back(kWhy);
    return str(w->name) == "g9" ? SH_ERROR : SH_SUCCESS;
  };
  api.object_assume = [](sh_host* host, uint32_t kind, const char* json, size_t len,
                         sh_status* st) -> sh_code {
    EXPECT_EQ(host, kHost);
    gCalls.log.push_back("assume " + std::to_string(kind) + " " + std::string(json, len));
    (void)st;
    return SH_SUCCESS;
  };
  api.object_restore = [](sh_host* host, uint32_t kind, const char* ns, size_t nsLen,
                          const char* name, size_t nameLen) {
    EXPECT_EQ(host, kHost);
    gCalls.log.push_back("restore " + std::to_string(kind) + " " + std::string(ns, nsLen) + "/" +
                         std::string(name, nameLen));
  };
  return api;
}

class ObjectsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gCalls = Calls();
    gStore = &store_;
  }
  void TearDown() override { gStore = nullptr; }
  Store store_;
};

TEST_F(ObjectsTest, ReadsPassTheCycleOrAskForTheLatest) {
  const sh_host_api api = fakeHost(2, sizeof(sh_host_api));
  schedhost::Host host(&api, kHost);
  schedhost::Cycle cycle(&api, kCycle);
  ASSERT_TRUE(host.servesObjects());

  schedhost::Object g1 = host.objectGet(cycle, 0, "ns", "g1");
  ASSERT_TRUE(g1);
  EXPECT_FALSE(host.objectGet(1, "ns", "missing"));
  ASSERT_EQ(host.objectList(cycle, 0, "ns", "team=red").size(), 2u);
  EXPECT_TRUE(host.objectList(0, "", "none").empty());
  EXPECT_EQ(gCalls.log,
            (std::vector<std::string>{"get cycle 0 ns/g1", "get latest 1 ns/missing",
                                      "list cycle 0 [ns] [team=red]", "list latest 0 [] [none]"}));

  std::vector<std::string> names;
  for (schedhost::Object o : host.objectList(cycle, 0)) {
    names.emplace_back(o.name());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"g1", "g2"}));
  EXPECT_EQ(host.objectJson(g1), R"({"metadata":{"name":"g1"}})");
  EXPECT_EQ(host.objectJson(schedhost::Object()), "");
}

TEST_F(ObjectsTest, AnObjectViewReadsItsFields) {
  schedhost::Object g1(nullptr, &store_.g1);
  EXPECT_EQ(g1.apiVersion(), "scheduling.x-k8s.io/v1alpha1");
  EXPECT_EQ(g1.kind(), "PodGroup");
  EXPECT_EQ(g1.ns(), "ns");
  EXPECT_EQ(g1.name(), "g1");
  EXPECT_EQ(g1.uid(), "uid-1");
  EXPECT_EQ(g1.resourceVersion(), "7");
  EXPECT_EQ(g1.creationUnixNanos(), 42);
  EXPECT_TRUE(g1.assumed());
  EXPECT_FALSE(g1.deleting());
  bool found = false;
  EXPECT_EQ(g1.label("team", &found), "red");
  EXPECT_TRUE(found);
  EXPECT_EQ(g1.label("tier", &found), "");
  EXPECT_FALSE(found);
  EXPECT_TRUE(schedhost::Object(nullptr, &store_.g2).deleting());

  // The null object answers every accessor without touching the host.
  schedhost::Object none;
  EXPECT_FALSE(none.present());
  EXPECT_EQ(none.name(), "");
  EXPECT_EQ(none.labelCount(), 0u);
  EXPECT_EQ(none.creationUnixNanos(), 0);
  EXPECT_FALSE(none.root().present());
}

TEST_F(ObjectsTest, JsonLookupsChainThroughMissingNodes) {
  const sh_host_api api = fakeHost(2, sizeof(sh_host_api));
  schedhost::Object g1(&api, &store_.g1);
  EXPECT_EQ(g1.path("spec.minMember").asInt(), 3);
  EXPECT_TRUE(g1.root()["spec"]["minMember"].isInt());
  EXPECT_DOUBLE_EQ(g1.root().get("spec").get("minMember").asDouble(), 3.0);
  schedhost::Json tags = g1.path("spec.tags");
  ASSERT_TRUE(tags.isArray());
  ASSERT_EQ(tags.size(), 2u);
  EXPECT_EQ(tags.at(1).asString(), "b");
  EXPECT_EQ(g1.root().get("spec").keyAt(1), "tags");
  EXPECT_TRUE(g1.root().get("spec").at(0).isNumber());

  // Missing steps are null nodes, and a null node's answers are "nothing".
  schedhost::Json missing = g1.path("spec.nothing").get("deeper").at(4);
  EXPECT_FALSE(missing.present());
  EXPECT_TRUE(missing.isNull());
  EXPECT_EQ(missing.asInt(), 0);
  EXPECT_EQ(missing.asString(), "");
  EXPECT_FALSE(missing.asBool());
  EXPECT_EQ(missing.size(), 0u);
  EXPECT_EQ(missing.keyAt(0), "");
  EXPECT_FALSE(tags.at(2).present());
  // A default Json has no table at all: nothing is called.
  EXPECT_EQ(schedhost::Json().path("a.b").get("c").asDouble(), 0.0);
}

TEST_F(ObjectsTest, WritesCarryTheirVerbAndReturnTheHostsStatus) {
  const sh_host_api api = fakeHost(2, sizeof(sh_host_api));
  schedhost::Host host(&api, kHost);
  schedhost::Cycle cycle(&api, kCycle);
  const std::string body = R"({"status":{"phase":"Scheduled"}})";
  schedhost::Status ok = host.objectWrite(
      cycle, schedhost::ObjectWrite::patchStatus(0, "ns", "g1", SH_PATCH_MERGE, body));
  EXPECT_EQ(ok.code(), SH_SUCCESS);
  EXPECT_EQ(gCalls.lastWrite.struct_size, sizeof(sh_object_write));
  EXPECT_EQ(gCalls.lastWrite.verb, SH_VERB_UPDATE_STATUS);
  EXPECT_EQ(gCalls.lastWrite.patch_type, SH_PATCH_MERGE);
  EXPECT_EQ(str(gCalls.lastWrite.namespace_), "ns");
  EXPECT_EQ(str(gCalls.lastWrite.name), "g1");
  EXPECT_EQ(gCalls.lastBody, body);

  schedhost::Status failed =
      host.objectWrite(cycle, schedhost::ObjectWrite::deleteObject(0, "ns", "g9"));
  EXPECT_EQ(failed.code(), SH_ERROR);
  EXPECT_EQ(failed.reasons(), std::vector<std::string>{"podgroups \"g9\" not found"});
  EXPECT_EQ(gCalls.lastWrite.verb, SH_VERB_DELETE);

  EXPECT_TRUE(host.objectAssume(0, "{}").ok());
  EXPECT_TRUE(host.objectRestore(0, "ns", "g1"));
  EXPECT_EQ(gCalls.log, (std::vector<std::string>{"write cycle", "write cycle", "assume 0 {}",
                                                  "restore 0 ns/g1"}));
}

TEST_F(ObjectsTest, EachFactoryMakesItsWrite) {
  struct Case {
    const char* name;
    schedhost::ObjectWrite write;
    uint32_t verb;
    sh_patch_type type;
    const char* ns;
    const char* objectName;
    const char* body;
  };
  const Case cases[] = {
      {"create", schedhost::ObjectWrite::create(1, "{c}").inNamespace("ns"), SH_VERB_CREATE,
       SH_PATCH_NONE, "ns", "", "{c}"},
      {"update", schedhost::ObjectWrite::update(1, "{u}"), SH_VERB_UPDATE, SH_PATCH_NONE, "", "",
       "{u}"},
      {"patch", schedhost::ObjectWrite::patch(1, "ns", "a", SH_PATCH_JSON, "[p]"), SH_VERB_PATCH,
       SH_PATCH_JSON, "ns", "a", "[p]"},
      {"updateStatus", schedhost::ObjectWrite::updateStatus(1, "{s}"), SH_VERB_UPDATE_STATUS,
       SH_PATCH_NONE, "", "", "{s}"},
      {"patchStatus", schedhost::ObjectWrite::patchStatus(1, "", "a", SH_PATCH_MERGE, "{m}"),
       SH_VERB_UPDATE_STATUS, SH_PATCH_MERGE, "", "a", "{m}"},
      {"deleteObject", schedhost::ObjectWrite::deleteObject(1, "ns", "a"), SH_VERB_DELETE,
       SH_PATCH_NONE, "ns", "a", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.write.raw().struct_size, sizeof(sh_object_write));
    EXPECT_EQ(c.write.kind(), 1u);
    EXPECT_EQ(c.write.verb(), c.verb);
    EXPECT_EQ(c.write.patchType(), c.type);
    EXPECT_EQ(c.write.ns(), c.ns);
    EXPECT_EQ(c.write.name(), c.objectName);
    EXPECT_EQ(c.write.body(), c.body);
  }
}

TEST_F(ObjectsTest, AnOlderHostReadsNothingAndRefusesWrites) {
  // A 1.1 host with a table as large as ours, and a 1.2 table cut before object_restore: the
  // minor alone, or the size alone, is not enough. Every slot is set, so a call would show.
  const sh_host_api olderMinor = fakeHost(1, sizeof(sh_host_api));
  const sh_host_api cut = fakeHost(2, offsetof(sh_host_api, object_restore));
  for (const sh_host_api* api : {&olderMinor, &cut}) {
    schedhost::Host host(api, kHost);
    schedhost::Cycle cycle(api, kCycle);
    EXPECT_FALSE(host.servesObjects());
    EXPECT_FALSE(host.objectGet(cycle, 0, "ns", "g1"));
    EXPECT_TRUE(host.objectList(cycle, 0).empty());
    EXPECT_EQ(host.objectJson(schedhost::Object(api, &store_.g1)), "");
    schedhost::Status write =
        host.objectWrite(cycle, schedhost::ObjectWrite::deleteObject(0, "ns", "g1"));
    EXPECT_EQ(write.code(), SH_ERROR);
    EXPECT_EQ(write.reasons(), std::vector<std::string>{"object_write: the host's ABI is 1." +
                                                        std::to_string(api->abi_minor) +
                                                        "; objects of declared kinds need 1.2"});
    EXPECT_EQ(host.objectAssume(0, "{}").code(), SH_ERROR);
    EXPECT_FALSE(host.objectRestore(0, "ns", "g1"));
  }
  EXPECT_TRUE(gCalls.log.empty());
}

TEST_F(ObjectsTest, AnEventOnADeclaredKindCarriesItsObjects) {
  sh_event_objects ev{};
  ev.struct_size = sizeof(sh_event_objects);
  ev.resource = SH_RESOURCE_DECLARED_KIND + 1;
  ev.actions = SH_ACTION_UPDATE;
  ev.old_object = &store_.g2;
  ev.new_object = &store_.g1;
  ev.kind = 1;
  schedhost::ObjectEvent update(nullptr, ev);
  ASSERT_TRUE(update.isObject());
  EXPECT_EQ(update.kind(), 1u);
  EXPECT_EQ(update.oldObject().name(), "g2");
  EXPECT_EQ(update.newObject().name(), "g1");

  ev.old_object = nullptr;  // an Add
  EXPECT_FALSE(schedhost::ObjectEvent(nullptr, ev).oldObject().present());

  // A 1.1 host's struct ends before the object fields: whatever follows is not read.
  ev.struct_size = offsetof(sh_event_objects, old_object);
  EXPECT_FALSE(schedhost::ObjectEvent(nullptr, ev).isObject());
  EXPECT_FALSE(schedhost::ObjectEvent(nullptr, ev).newObject().present());
  // A node event of a 1.2 host has no objects.
  sh_event_objects node{};
  node.struct_size = sizeof(sh_event_objects);
  node.resource = SH_RESOURCE_NODE;
  EXPECT_FALSE(schedhost::ObjectEvent(nullptr, node).isObject());
}

// A plugin that declares two kinds and registers for one of them, built into this test with
// SCHEDHOST_PLUGIN_STATIC_ENTRY.
class KindsProbe : public schedhost::FilterPlugin, public schedhost::EnqueueExtensions {
 public:
  static constexpr uint32_t kPodGroups = 0;
  static constexpr uint32_t kWidgets = 1;
  static constexpr sh_object_kind kKinds[] = {
      schedhost::objectKind("scheduling.x-k8s.io", "v1alpha1", "podgroups", "PodGroup",
                            schedhost::kNamespaced, SH_VERB_UPDATE_STATUS | SH_VERB_PATCH),
      schedhost::objectKind("example.com", "v1", "widgets", "Widget", schedhost::kClusterScoped, 0,
                            "tier=gold", "metadata.name!=x"),
  };

  schedhost::Status filter(schedhost::Cycle&, const sh_pod&, const sh_node_info&) { return {}; }
  std::vector<schedhost::EventRegistration> eventsToRegister() const {
    return {{SH_RESOURCE_NODE, SH_ACTION_ADD, false},
            schedhost::EventRegistration::onDeclaredKind(kWidgets, SH_ACTION_ADD | SH_ACTION_UPDATE,
                                                         true)};
  }
  sh_queueing_hint queueingHint(std::size_t, const sh_pod&, const sh_event_objects&) {
    return SH_QUEUE;
  }
};

}  // namespace

SCHEDHOST_PLUGIN(KindsProbe, "KindsProbe", "0.1.0")

namespace {

TEST(DeclaredKindsTest, SchedhostPluginPutsTheKindsInTheDescriptor) {
  const sh_plugin_descriptor* d = sdkObjectsTestEntry();
  EXPECT_EQ(d->struct_size, sizeof(sh_plugin_descriptor));
  EXPECT_EQ(d->abi_minor, SH_ABI_MINOR);
  ASSERT_EQ(d->kind_count, 2u);
  ASSERT_EQ(d->kinds, KindsProbe::kKinds);
  const sh_object_kind& pg = d->kinds[0];
  EXPECT_EQ(pg.struct_size, sizeof(sh_object_kind));
  EXPECT_STREQ(pg.group, "scheduling.x-k8s.io");
  EXPECT_STREQ(pg.version, "v1alpha1");
  EXPECT_STREQ(pg.resource, "podgroups");
  EXPECT_STREQ(pg.kind, "PodGroup");
  EXPECT_EQ(pg.namespaced, 1);
  EXPECT_EQ(pg.verbs, SH_VERB_UPDATE_STATUS | SH_VERB_PATCH);
  EXPECT_EQ(pg.label_selector, nullptr);
  const sh_object_kind& widgets = d->kinds[1];
  EXPECT_EQ(widgets.namespaced, 0);
  EXPECT_EQ(widgets.verbs, 0u);
  EXPECT_STREQ(widgets.label_selector, "tier=gold");
  EXPECT_STREQ(widgets.field_selector, "metadata.name!=x");
}

TEST(DeclaredKindsTest, ARegistrationOnADeclaredKindIsSentAsItsIndex) {
  const sh_plugin_descriptor* d = sdkObjectsTestEntry();
  sh_host_api api{};  // create reads no args and calls no service
  api.struct_size = sizeof(api);
  api.abi_major = SH_ABI_MAJOR;
  api.abi_minor = SH_ABI_MINOR;
  void* self = d->create(&api, kHost, nullptr);
  ASSERT_NE(self, nullptr);
  sh_event_registration regs[4] = {};
  ASSERT_EQ(d->vtable->events_to_register(self, regs, 4), 2u);
  EXPECT_EQ(regs[0].resource, SH_RESOURCE_NODE);
  EXPECT_EQ(regs[0].has_hint, 0);
  EXPECT_EQ(regs[1].resource, SH_RESOURCE_DECLARED_KIND + 1);
  EXPECT_EQ(regs[1].actions, SH_ACTION_ADD | SH_ACTION_UPDATE);
  EXPECT_EQ(regs[1].has_hint, 1);
  d->destroy(self);
}

}  // namespace
