// The other objects plugins read (model/cluster_objects.cc): Namespaces, Services,
// ReplicationControllers, ReplicaSets, StatefulSets, PodDisruptionBudgets and PriorityClasses.
// The input is one JSON object, or a JSON array of objects added in order to one store. A
// refused object has an error message and leaves the store as it was.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "host/model/cluster_objects.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

std::string_view text(sh_str s) { return {s.ptr, s.len}; }

void addOne(sh::model::ClusterObjects& store, const boost::json::value& object) {
  const std::size_t before = store.size();
  std::string error;
  if (store.add(object, error)) {
    sh::fuzz::check(store.size() == before + 1, "an added object is counted");
  } else {
    sh::fuzz::check(!error.empty(), "a refused object has an error message");
    sh::fuzz::check(store.size() == before, "a refused object leaves the store as it was");
  }
}

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's name
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sh::fuzz::quietLogs();
  std::optional<boost::json::value> json = sh::fuzz::parseJson(sh::fuzz::asText(data, size));
  if (!json) {
    return 0;
  }
  sh::model::ClusterObjects store;
  if (json->is_array()) {
    for (const boost::json::value& object : json->as_array()) {
      addOne(store, object);
    }
  } else {
    addOne(store, *json);
  }
  // Every budget's view is readable, one per (namespace, name), in that order.
  const sh_pdb* previous = nullptr;
  for (const sh_pdb* pdb : store.pdbs()) {
    sh::fuzz::check(pdb != nullptr, "budgets are not null");
    for (uint32_t i = 0; i < pdb->disrupted_pod_count; ++i) {
      sh::fuzz::keep(std::string(text(pdb->disrupted_pods[i])).size());
    }
    if (previous != nullptr) {
      sh::fuzz::check(std::pair(text(previous->namespace_), text(previous->name)) <
                          std::pair(text(pdb->namespace_), text(pdb->name)),
                      "budgets are ordered by (namespace, name)");
    }
    previous = pdb;
  }
  if (const sh::model::PriorityClassInfo* d = store.globalDefaultPriorityClass(); d != nullptr) {
    sh::fuzz::check(d->globalDefault, "the default class has globalDefault set");
    sh::fuzz::check(store.priorityClass(d->name) == d, "the default class is found by name");
  }
  return 0;
}
