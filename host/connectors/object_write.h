// ObjectWrite: one write a plugin asks the host to make (sh_object_write), as the host passes
// it to the cluster connector, or records it under `evaluate` (bindingPlan).
#pragma once

#include <schedhost/plugin.h>

#include <cstdint>
#include <string>

namespace sh::connectors {

struct ObjectKind;

struct ObjectWrite {
  uint32_t verb = 0;  // one SH_VERB_* bit
  sh_patch_type patchType = SH_PATCH_NONE;
  std::string ns;    // namespaced kinds; for CREATE/UPDATE taken from body when empty
  std::string name;  // for CREATE/UPDATE taken from body when empty
  std::string body;  // JSON text

  // One line for logs and bindingPlan: "create podgroups.v1alpha1.scheduling.x-k8s.io
  // default/pg-1", "patch status podgroups.v1alpha1.scheduling.x-k8s.io default/pg-1 (merge):
  // {\"status\":{\"phase\":\"Scheduled\"}}".
  std::string describe(const ObjectKind& kind) const;
  // The HTTP method, the path below the kind's collection and the content type of the request
  // that makes this write: {"PATCH", "/default/pg-1/status"... } — see object_write.cc.
  const char* method() const;
  const char* contentType() const;
  // Whether the write goes to the status subresource.
  bool status() const { return verb == SH_VERB_UPDATE_STATUS; }
};

}  // namespace sh::connectors
