// Upstream kube-scheduler 1.36's default plugin set (apis/config/v1/default_plugins.go).
//
// Upstream's default profile enables everything through MultiPoint, in this order; the other
// extension points have no defaults of their own. With the 1.36 feature-gate defaults,
// DynamicResources sits just before DefaultPreemption and NodeDeclaredFeatures is appended.
// Profile resolution drops the entries that the plugin catalog does not have.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace sh::config {

struct DefaultPlugin {
  std::string_view name;
  int64_t weight;  // the MultiPoint weight; 0 = unset (a Score plugin then gets 1)
};

// The default MultiPoint list, in upstream order.
std::span<const DefaultPlugin> defaultMultiPointPlugins();

}  // namespace sh::config
