// A manifest's JSON tree, parsed on first use: what the pod_manifest and node_manifest
// services hand to plugins (plugin.h, since 1.3). Most pods and nodes are never asked for
// theirs, so the tree is built only when a plugin asks and then kept with the object.
#ifndef SCHEDHOST_HOST_MODEL_LAZY_MANIFEST_H
#define SCHEDHOST_HOST_MODEL_LAZY_MANIFEST_H

#include <boost/json/value.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace sh::model {

class LazyManifest {
 public:
  // The tree of `text()`'s JSON; null when it does not parse (it always does for a manifest
  // the parsers accepted). Thread-safe: the first caller parses, the others wait.
  const boost::json::value& get(const std::function<const std::string&()>& text) const;

 private:
  mutable std::once_flag once_;
  mutable std::unique_ptr<boost::json::value> tree_;
};

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_LAZY_MANIFEST_H
