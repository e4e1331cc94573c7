// The requests plugins' writes become, as client-go's dynamic client sends them
// (k8s.io/client-go/dynamic/simple.go: Create, Update, UpdateStatus, Patch with the status
// subresource, Delete), and the message a failed write gives back.
#include "host/connectors/kube/object_writer.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace sh::kube::object_writer_test {
namespace {

connectors::ObjectKind podGroups() {
  connectors::ObjectKind k;
  k.group = "scheduling.x-k8s.io";
  k.version = "v1alpha1";
  k.resource = "podgroups";
  k.kind = "PodGroup";
  return k;
}

connectors::ObjectKind persistentVolumes() {
  connectors::ObjectKind k;
  k.version = "v1";
  k.resource = "persistentvolumes";
  k.kind = "PersistentVolume";
  k.namespaced = false;
  return k;
}

connectors::ObjectWrite write(uint32_t verb, sh_patch_type patch, std::string ns, std::string name,
                              std::string body) {
  connectors::ObjectWrite w;
  w.verb = verb;
  w.patchType = patch;
  w.ns = std::move(ns);
  w.name = std::move(name);
  w.body = std::move(body);
  return w;
}

TEST(ObjectWriterTest, EachVerbIsTheDynamicClientsRequest) {
  const std::string pg = R"({"metadata":{"name":"pg-1","namespace":"team-a"},"spec":{}})";
  struct Case {
    const char* name;
    connectors::ObjectWrite write;
    Method method;
    const char* path;
    const char* contentType;
  };
  const std::string base = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/team-a/podgroups";
  const std::vector<Case> cases = {
      {"create", write(SH_VERB_CREATE, SH_PATCH_NONE, "team-a", "", pg), Method::kPost, "",
       "application/json"},
      {"create names itself", write(SH_VERB_CREATE, SH_PATCH_NONE, "", "", pg), Method::kPost, "",
       "application/json"},
      {"update", write(SH_VERB_UPDATE, SH_PATCH_NONE, "", "", pg), Method::kPut, "/pg-1",
       "application/json"},
      {"merge patch", write(SH_VERB_PATCH, SH_PATCH_MERGE, "team-a", "pg-1", "{}"), Method::kPatch,
       "/pg-1", "application/merge-patch+json"},
      {"json patch", write(SH_VERB_PATCH, SH_PATCH_JSON, "team-a", "pg-1", "[]"), Method::kPatch,
       "/pg-1", "application/json-patch+json"},
      {"strategic merge patch",
       write(SH_VERB_PATCH, SH_PATCH_STRATEGIC_MERGE, "team-a", "pg-1", "{}"), Method::kPatch,
       "/pg-1", "application/strategic-merge-patch+json"},
      {"update status", write(SH_VERB_UPDATE_STATUS, SH_PATCH_NONE, "", "", pg), Method::kPut,
       "/pg-1/status", "application/json"},
      {"patch status", write(SH_VERB_UPDATE_STATUS, SH_PATCH_MERGE, "team-a", "pg-1", "{}"),
       Method::kPatch, "/pg-1/status", "application/merge-patch+json"},
      {"delete", write(SH_VERB_DELETE, SH_PATCH_NONE, "team-a", "pg-1", ""), Method::kDelete,
       "/pg-1", "application/json"},
  };
  for (const Case& c : cases) {
    std::string error;
    std::optional<Request> r = objectWriteRequest(podGroups(), c.write, error);
    ASSERT_TRUE(r.has_value()) << c.name << ": " << error;
    EXPECT_EQ(r->method, c.method) << c.name;
    EXPECT_EQ(r->path, base + c.path) << c.name;
    EXPECT_EQ(r->contentType, c.contentType) << c.name;
    EXPECT_EQ(r->body, c.write.body) << c.name;
  }
}

TEST(ObjectWriterTest, AClusterScopedKindHasNoNamespaceAndNamesAreEscaped) {
  std::string error;
  auto r = objectWriteRequest(persistentVolumes(),
                              write(SH_VERB_PATCH, SH_PATCH_MERGE, "", "pv a", "{}"), error);
  ASSERT_TRUE(r.has_value()) << error;
  EXPECT_EQ(r->path, "/api/v1/persistentvolumes/pv%20a");
  r = objectWriteRequest(
      persistentVolumes(),
      write(SH_VERB_CREATE, SH_PATCH_NONE, "", "", R"({"metadata":{"name":"pv-1"}})"), error);
  ASSERT_TRUE(r.has_value()) << error;
  EXPECT_EQ(r->path, "/api/v1/persistentvolumes");
}

TEST(ObjectWriterTest, AWriteThatCannotBeAddressedIsRefusedNamingIt) {
  struct Case {
    connectors::ObjectWrite write;
    const char* error;
  };
  const std::vector<Case> cases = {
      {write(SH_VERB_PATCH, SH_PATCH_NONE, "ns", "pg-1", "{}"),
       "patch podgroups.v1alpha1.scheduling.x-k8s.io ns/pg-1: a patch without a patch type"},
      {write(SH_VERB_DELETE, SH_PATCH_NONE, "ns", "", ""),
       "delete podgroups.v1alpha1.scheduling.x-k8s.io ns/: no name"},
      {write(SH_VERB_UPDATE, SH_PATCH_NONE, "", "", R"({"metadata":{"name":"pg-1"}})"),
       "update podgroups.v1alpha1.scheduling.x-k8s.io pg-1: no namespace for a namespaced kind"},
  };
  for (const Case& c : cases) {
    std::string error;
    EXPECT_FALSE(objectWriteRequest(podGroups(), c.write, error).has_value());
    EXPECT_EQ(error, c.error);
  }
}

TEST(ObjectWriterTest, AFailureGivesTheStatusMessageElseWhatWentWrong) {
  Response notFound{404,
                    R"({"kind":"Status","apiVersion":"v1","status":"Failure",)"
                    R"("message":"podgroups.scheduling.x-k8s.io \"pg-1\" not found",)"
                    R"("reason":"NotFound","code":404})",
                    ""};
  EXPECT_EQ(apiMessage(notFound), "podgroups.scheduling.x-k8s.io \"pg-1\" not found");
  EXPECT_EQ(apiMessage(Response{502, "bad gateway", ""}), "502 Bad Gateway: bad gateway");
  Response refused;
  refused.error = "connect: Connection refused";
  EXPECT_EQ(apiMessage(refused), "connect: Connection refused");
}

}  // namespace
}  // namespace sh::kube::object_writer_test
