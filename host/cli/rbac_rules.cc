#include "host/cli/rbac_rules.h"

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <utility>

#include <schedhost/plugin.h>

namespace sh::cli::rbac {
namespace {

// The order verbs are printed in: reads first, then writes as the API lists them.
constexpr std::array<const char*, 7> kVerbOrder = {"get",    "list",  "watch", "create",
                                                   "update", "patch", "delete"};

// The verbs of a rule, in kVerbOrder.
std::vector<std::string> ordered(const std::set<std::string>& verbs) {
  std::vector<std::string> out;
  for (const char* v : kVerbOrder) {
    if (verbs.count(v) > 0) {
      out.emplace_back(v);
    }
  }
  return out;
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    out += (out.empty() ? "" : ", ") + n;
  }
  return out;
}

// One rule being gathered: the kinds of every plugin that names (group, resource).
struct Gathered {
  std::string kind;  // of the first plugin that declared it
  std::set<std::string> verbs;
  std::set<std::string> plugins;
};

}  // namespace

std::vector<Rule> hostRules() {
  return {
      {{"The informers: list, then watch."},
       {""},
       {"nodes", "pods", "namespaces", "services", "replicationcontrollers"},
       {},
       {"list", "watch"}},
      {{}, {"apps"}, {"replicasets", "statefulsets"}, {}, {"list", "watch"}},
      {{}, {"policy"}, {"poddisruptionbudgets"}, {}, {"list", "watch"}},
      {{}, {"scheduling.k8s.io"}, {"priorityclasses"}, {}, {"list", "watch"}},
      {{"Binds (POST pods/<name>/binding)."}, {""}, {"pods/binding"}, {}, {"create"}},
      {{"The PodScheduled condition, nominatedNodeName, DisruptionTarget on preemption victims."},
       {""},
       {"pods/status"},
       {},
       {"patch"}},
      {{"Preemption deletes its victims."}, {""}, {"pods"}, {}, {"delete"}},
      {{"Scheduled, FailedScheduling and Preempted events; repeats patch the event's series."},
       {"events.k8s.io"},
       {"events"},
       {},
       {"create", "patch"}},
      {{"The secure port's delegated authentication and authorization."},
       {"authentication.k8s.io"},
       {"tokenreviews"},
       {},
       {"create"}},
      {{}, {"authorization.k8s.io"}, {"subjectaccessreviews"}, {}, {"create"}},
  };
}

std::vector<Rule> authenticationReaderRules() {
  return {{{}, {""}, {"configmaps"}, {"extension-apiserver-authentication"}, {"get"}}};
}

std::vector<Rule> leaseRules(const std::string& leaseName) {
  return {
      {{}, {"coordination.k8s.io"}, {"leases"}, {}, {"create"}},
      {{}, {"coordination.k8s.io"}, {"leases"}, {leaseName}, {"get", "update"}},
  };
}

std::vector<Rule> declaredKindRules(
    const std::vector<std::shared_ptr<const plugin::LoadedPlugin>>& plugins) {
  // (group, resource) sorts the core group ("") first and a status subresource right after
  // its resource.
  std::map<std::pair<std::string, std::string>, Gathered> rules;
  auto gather = [&rules](const plugin::DeclaredKind& dk, const std::string& resource,
                         const std::string& pluginName, std::set<std::string> verbs) {
    Gathered& g = rules[{dk.group, resource}];
    if (g.plugins.empty()) {
      g.kind = dk.kind;
    }
    g.plugins.insert(pluginName);
    g.verbs.merge(verbs);
  };
  for (const auto& p : plugins) {
    for (const plugin::DeclaredKind& dk : p->kinds) {
      // The informer's list and watch: the host never reads one declared object by name.
      std::set<std::string> verbs = {"list", "watch"};
      const std::pair<uint32_t, const char*> kWrites[] = {{SH_VERB_CREATE, "create"},
                                                          {SH_VERB_UPDATE, "update"},
                                                          {SH_VERB_PATCH, "patch"},
                                                          {SH_VERB_DELETE, "delete"}};
      for (const auto& [bit, verb] : kWrites) {
        if ((dk.verbs & bit) != 0) {
          verbs.insert(verb);
        }
      }
      gather(dk, dk.resource, p->name, std::move(verbs));
      if ((dk.verbs & SH_VERB_UPDATE_STATUS) != 0) {
        gather(dk, dk.resource + "/status", p->name, {"update", "patch"});
      }
    }
  }
  std::vector<Rule> out;
  for (const auto& [key, g] : rules) {
    // A declared resource is a DNS label: only the subresource has a slash.
    const bool status = key.second.ends_with("/status");
    Rule r;
    r.comment = {g.kind + (status ? " status, written by " : ", declared by ") + joined(g.plugins) +
                 "."};
    r.apiGroups = {key.first};
    r.resources = {key.second};
    r.verbs = ordered(g.verbs);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace sh::cli::rbac
