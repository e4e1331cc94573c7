// The RBAC rules schedhost needs on a Kubernetes API server, as data: the host's own requests
// (docs/deploy.md, "What it does on the cluster"), the Lease of leader election, and the rules
// the kinds plugins declare (sh_object_kind) call for. `schedhost rbac` prints them;
// packaging/kubernetes/rbac.yaml is its output for the default profile.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "host/plugin/loader.h"

namespace sh::cli::rbac {

// One PolicyRule of a ClusterRole or a Role.
struct Rule {
  std::vector<std::string> comment;  // lines printed above the rule, without "# "
  std::vector<std::string> apiGroups, resources, resourceNames, verbs;
};

// What the host itself asks, cluster-wide: its informers, binds, status patches, preemption
// and events. tests/kube/rbac_test.cc replays a recorded run against exactly these.
std::vector<Rule> hostRules();

// The Role of leader election, in the Lease's namespace: the Lease `leaseName` is created once
// (create cannot be limited to a name), then read and renewed by name.
std::vector<Rule> leaseRules(const std::string& leaseName);

// The Role in kube-system that lets the secure port read the ConfigMap
// extension-apiserver-authentication (its client CA and front proxy's settings) at startup:
// `get` by name, what kube-scheduler's extension-apiserver-authentication-reader grants less
// the list and watch of a refreshing reader.
std::vector<Rule> authenticationReaderRules();

// What the declared kinds of `plugins` need: per (group, resource), one rule that reads
// (list, watch: the informer) and writes what any plugin declared (SH_VERB_CREATE create,
// SH_VERB_UPDATE update, SH_VERB_PATCH patch, SH_VERB_DELETE delete), and, when one declared
// SH_VERB_UPDATE_STATUS, a rule for "<resource>/status" with update and patch (a status write
// is a PUT, or a PATCH with a patch type). Versions and selectors do not matter to RBAC:
// kinds that differ only there share a rule. Rules are sorted by group, then resource; verbs
// are in the order above; each rule's comment names its kind and the plugins that need it.
std::vector<Rule> declaredKindRules(
    const std::vector<std::shared_ptr<const plugin::LoadedPlugin>>& plugins);

}  // namespace sh::cli::rbac
