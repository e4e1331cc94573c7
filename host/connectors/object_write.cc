#include "host/connectors/object_write.h"

#include "host/connectors/object_store.h"

namespace sh::connectors {
namespace {

const char* patchName(sh_patch_type t) {
  switch (t) {
    case SH_PATCH_MERGE:
      return "merge";
    case SH_PATCH_STRATEGIC_MERGE:
      return "strategic merge";
    case SH_PATCH_JSON:
      return "json";
    default:
      return "";
  }
}

}  // namespace

std::string ObjectWrite::describe(const ObjectKind& kind) const {
  std::string out;
  const bool patch =
      verb == SH_VERB_PATCH || (verb == SH_VERB_UPDATE_STATUS && patchType != SH_PATCH_NONE);
  switch (verb) {
    case SH_VERB_CREATE:
      out = "create ";
      break;
    case SH_VERB_UPDATE:
      out = "update ";
      break;
    case SH_VERB_PATCH:
      out = "patch ";
      break;
    case SH_VERB_UPDATE_STATUS:
      out = patch ? "patch status " : "update status ";
      break;
    case SH_VERB_DELETE:
      out = "delete ";
      break;
    default:
      out = "write ";
      break;
  }
  out += kind.resourceName();
  out += " ";
  out += ns.empty() ? name : ns + "/" + name;
  if (patch && patchType != SH_PATCH_NONE) {
    out += " (";
    out += patchName(patchType);
    out += ")";
  }
  if (verb != SH_VERB_DELETE && !body.empty()) {
    out += ": ";
    out += body;
  }
  return out;
}

const char* ObjectWrite::method() const {
  switch (verb) {
    case SH_VERB_CREATE:
      return "POST";
    case SH_VERB_UPDATE:
      return "PUT";
    case SH_VERB_PATCH:
      return "PATCH";
    case SH_VERB_UPDATE_STATUS:
      return patchType == SH_PATCH_NONE ? "PUT" : "PATCH";
    case SH_VERB_DELETE:
      return "DELETE";
    default:
      return "";
  }
}

const char* ObjectWrite::contentType() const {
  switch (patchType) {
    case SH_PATCH_MERGE:
      return "application/merge-patch+json";
    case SH_PATCH_STRATEGIC_MERGE:
      return "application/strategic-merge-patch+json";
    case SH_PATCH_JSON:
      return "application/json-patch+json";
    default:
      return "application/json";
  }
}

}  // namespace sh::connectors
