// CSI migration of in-tree PersistentVolumes, as far as the binder looks at it: a bound volume
// of an in-tree plugin that a node has migrated to its CSI driver (the node's CSINode lists the
// plugin in its storage.alpha.kubernetes.io/migrated-plugins annotation) is checked with the node
// affinity its CSI translation has, where the zone key is the driver's (topology.gke.io/zone,
// ...) and a zone label of the volume becomes an affinity term.
// Upstream: volumebinding/binder.go (tryTranslatePVToCSI, isCSIMigrationOnForPlugin,
// isPluginMigratedToCSIOnNode) and k8s.io/csi-translation-lib (TranslateInTreePVToCSI,
// translateTopologyFromInTreeToCSI).
#ifndef SCHEDHOST_PLUGINS_VOLUMEBINDING_CSI_MIGRATION_H
#define SCHEDHOST_PLUGINS_VOLUMEBINDING_CSI_MIGRATION_H

#include "node_affinity.h"

#include <schedhost/plugin.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::plugins::volumebinding {

inline constexpr const char* kMigratedPluginsAnnotation =
    "storage.alpha.kubernetes.io/migrated-plugins";

// What tryTranslatePVToCSI makes of one volume.
struct CsiMigration {
  // The in-tree plugin when the volume is one whose migration is on (GCE PD, AWS EBS, Azure
  // Disk, Cinder, Portworx); "" otherwise, and the volume is never translated.
  std::string plugin;
  // The translation's error ("could not translate pv: ..."), or "".
  std::string error;
  // The translated node affinity (valid when plugin is set and error is empty).
  VolumeNodeAffinity affinity;
};

// Translates `pv` (its JSON, labels as text, and node affinity as read).
CsiMigration translateForMigration(const Host& host, const Json& pv,
                                   const std::vector<std::pair<std::string, std::string>>& labels,
                                   const NodeAffinityText& affinity);

// isPluginMigratedToCSIOnNode: `plugin` is listed in the CSINode's migrated-plugins annotation
// (`annotation`, comma-separated).
bool pluginMigratedOnNode(std::string_view plugin, std::string_view annotation) noexcept;

}  // namespace schedhost::plugins::volumebinding

#endif  // SCHEDHOST_PLUGINS_VOLUMEBINDING_CSI_MIGRATION_H
