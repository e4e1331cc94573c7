// schedhost rbac: the RBAC manifests a scheduler with these profiles needs (docs/deploy.md,
// "RBAC"). The profiles are loaded as `run` loads them, and the plugins created as `profile
// check` creates them, so a configuration `run` would refuse is refused here with the same
// messages; nothing is printed on stdout then.
//
// The output, one YAML stream for `kubectl apply -f -`: the ServiceAccount schedhost in
// kube-system (the Deployment's), the ClusterRole schedhost (the host's rules, then those the
// enabled plugins' declared kinds need) and its binding, and, unless leader election is off,
// the Role for the Lease in the Lease's namespace and its binding; then the Role that reads the
// cluster's authentication configuration for the secure port, and its binding.
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "host/cli/commands.h"
#include "host/cli/load_profiles.h"
#include "host/cli/rbac_rules.h"

namespace sh::cli {
namespace {

constexpr const char* kName = "schedhost";
constexpr const char* kServiceAccountNamespace = "kube-system";

// `text` as a YAML scalar: plain when YAML reads it back as that string, else double-quoted.
std::string scalar(std::string_view text) {
  bool plain = !text.empty() && ((text.front() >= 'a' && text.front() <= 'z') ||
                                 (text.front() >= 'A' && text.front() <= 'Z'));
  for (char c : text) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    plain = plain && (word || c == '-' || c == '.' || c == '/' || c == '_');
  }
  // YAML 1.1 reads these as booleans or null.
  static const std::set<std::string, std::less<>> kReserved = {
      "y",  "Y",    "yes",  "Yes",  "YES",   "n",     "N",     "no", "No",
      "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On",
      "ON", "off",  "Off",  "OFF",  "null",  "Null",  "NULL"};
  if (plain && kReserved.count(text) == 0) {
    return std::string(text);
  }
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[(c >> 4) & 0xf];
      out += kHex[c & 0xf];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string flow(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "" : ", ") + scalar(items[i]);
  }
  return out + "]";
}

void printRules(std::ostream& out, const std::vector<rbac::Rule>& rules) {
  out << "rules:\n";
  for (const rbac::Rule& r : rules) {
    for (const std::string& line : r.comment) {
      out << "  # " << line << "\n";
    }
    out << "  - apiGroups: " << flow(r.apiGroups) << "\n";
    out << "    resources: " << flow(r.resources) << "\n";
    if (!r.resourceNames.empty()) {
      out << "    resourceNames: " << flow(r.resourceNames) << "\n";
    }
    out << "    verbs: " << flow(r.verbs) << "\n";
  }
}

void printMetadata(std::ostream& out, std::string_view name, std::string_view ns = {}) {
  out << "metadata:\n  name: " << scalar(name) << "\n";
  if (!ns.empty()) {
    out << "  namespace: " << scalar(ns) << "\n";
  }
}

// A binding of the role `roleKind`/`name` to the ServiceAccount.
void printBinding(std::ostream& out, std::string_view kind, std::string_view roleKind,
                  std::string_view name, std::string_view ns = {}) {
  out << "apiVersion: rbac.authorization.k8s.io/v1\nkind: " << kind << "\n";
  printMetadata(out, name, ns);
  out << "roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: " << roleKind
      << "\n  name: " << scalar(name) << "\n";
  out << "subjects:\n  - kind: ServiceAccount\n    name: " << kName
      << "\n    namespace: " << kServiceAccountNamespace << "\n";
}

}  // namespace

int runRbac(const RbacArgs& args) {
  NullHostServices services;
  config::Diagnostics diags;
  profile::ProfileSet set = loadSchedulingProfiles(args.config, args.pluginDirs, &services, diags);
  if (diags.hasErrors()) {
    std::cerr << "schedhost rbac: " << diags.errorCount() << " configuration error(s)\n";
    return 1;
  }
  // The plugins of every profile, each once (the registry holds one per name).
  std::set<std::string> names;
  for (const config::ResolvedProfile& rp : set.resolved) {
    for (const config::EnabledPlugin& ep : rp.plugins) {
      names.insert(ep.name);
    }
  }
  std::vector<std::shared_ptr<const plugin::LoadedPlugin>> plugins;
  for (const std::string& name : names) {
    if (auto p = set.registry->find(name)) {
      plugins.push_back(std::move(p));
    }
  }
  std::vector<rbac::Rule> clusterRules = rbac::hostRules();
  for (rbac::Rule& r : rbac::declaredKindRules(plugins)) {
    clusterRules.push_back(std::move(r));
  }

  const config::HostConfig::LeaderElection& le = set.host.leaderElection;
  const bool leaderElect = args.leaderElect.value_or(le.leaderElect);
  const std::string leaseName = !args.leaseName.empty() ? args.leaseName : le.resourceName;
  const std::string leaseNamespace =
      !args.leaseNamespace.empty() ? args.leaseNamespace : le.resourceNamespace;

  // Built whole before anything is written, so that stdout holds all of it or nothing.
  std::ostringstream out;
  out << "# What schedhost asks of the API server, and nothing more, for the profiles of one\n"
         "# configuration: `schedhost rbac [--config schedhost.toml]` prints it. The host's own "
         "rules\n# come first; the kinds its plugins declare add theirs after them.\n";
  out << "apiVersion: v1\nkind: ServiceAccount\n";
  printMetadata(out, kName, kServiceAccountNamespace);
  out << "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n";
  printMetadata(out, kName);
  printRules(out, clusterRules);
  out << "---\n";
  printBinding(out, "ClusterRoleBinding", "ClusterRole", kName);
  if (leaderElect) {
    const std::string role = std::string(kName) + "-leader-election";
    out << "---\n# Leader election: the Lease is created once (create cannot be limited to a "
           "name), then read\n# and renewed by name.\n";
    out << "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n";
    printMetadata(out, role, leaseNamespace);
    printRules(out, rbac::leaseRules(leaseName));
    out << "---\n";
    printBinding(out, "RoleBinding", "Role", role, leaseNamespace);
  }
  const std::string reader = std::string(kName) + "-authentication-reader";
  out << "---\n# The secure port reads the client CA and the front proxy's settings from the "
         "ConfigMap\n# kube-system/extension-apiserver-authentication once, at startup.\n";
  out << "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n";
  printMetadata(out, reader, kServiceAccountNamespace);
  printRules(out, rbac::authenticationReaderRules());
  out << "---\n";
  printBinding(out, "RoleBinding", "Role", reader, kServiceAccountNamespace);
  std::cout << out.str() << std::flush;
  return std::cout.good() ? 0 : 1;
}

}  // namespace sh::cli
