// The part of k8s.io/csi-translation-lib (v0.36.2) NodeVolumeLimits calls: which in-tree volume
// plugins migrate to which CSI driver, and the volume handle a migrated volume gets.
//
//   in-tree plugin                 pod volume / PV source   CSI driver
//   kubernetes.io/aws-ebs          awsElasticBlockStore     ebs.csi.aws.com
//   kubernetes.io/gce-pd           gcePersistentDisk        pd.csi.storage.gke.io
//   kubernetes.io/cinder           cinder                   cinder.csi.openstack.org
//   kubernetes.io/azure-disk       azureDisk                disk.csi.azure.com
//   kubernetes.io/azure-file       azureFile                file.csi.azure.com
//   kubernetes.io/vsphere-volume   vsphereVolume            csi.vsphere.vmware.com
//   kubernetes.io/portworx-volume  portworxVolume           pxd.portworx.com
//
// Upstream keeps the translators in a Go map and takes the first that supports a volume; a
// volume has one source, so the order never matters.
#ifndef SCHEDHOST_PLUGINS_NODEVOLUMELIMITS_TRANSLATION_H
#define SCHEDHOST_PLUGINS_NODEVOLUMELIMITS_TRANSLATION_H

#include <schedhost/plugin.hpp>

#include <string>
#include <string_view>

namespace schedhost::plugins::nodevolumelimits {

// One in-tree volume plugin csi-translation-lib can migrate.
struct InTreePlugin {
  std::string_view name;     // GetInTreePluginName: "kubernetes.io/aws-ebs"
  std::string_view driver;   // GetCSIPluginName: "ebs.csi.aws.com"
  int32_t inlineSource;      // the sh_volume_source of its pod volumes (CanSupportInline)
  std::string_view pvField;  // its member of a PersistentVolume's spec (CanSupport)
};

// IsInlineMigratable and GetInTreePluginNameFromSpec(nil, vol): the plugin of a pod volume's
// source, or nullptr.
const InTreePlugin* pluginOfInlineSource(int32_t source) noexcept;
// IsMigratableIntreePluginByName and GetCSINameFromInTreeName: the plugin called `name`, or
// nullptr.
const InTreePlugin* pluginNamed(std::string_view name) noexcept;
// IsPVMigratable and GetInTreePluginNameFromSpec(pv, nil): the plugin whose source the
// PersistentVolume's spec has, or nullptr.
const InTreePlugin* pluginOfPersistentVolume(const Object& pv) noexcept;

// isCSIMigrationOn (nodevolumelimits/utils.go, v1.36): with the CSIMigration* gates all gone,
// migration counts as on for AWS EBS, Portworx, GCE PD, Azure Disk and Cinder whenever the node
// has a CSINode. Azure File and vSphere are not listed, so their volumes are never counted. The
// CSINode's storage.alpha.kubernetes.io/migrated-plugins annotation is not consulted any more.
bool isCSIMigrationOn(bool hasCsiNode, std::string_view pluginName) noexcept;

// What a translation gives: the CSI volume handle, or the translator's error.
struct Translation {
  std::string handle;
  std::string error;  // empty on success
  bool ok() const noexcept { return error.empty(); }
};

// TranslateInTreeInlineVolumeToCSI for pod volume `vol` (of a migratable source). `azureDiskKind`
// is the volume's azureDisk.kind after API defaulting ("Shared" when unset); only Azure Disk reads
// it. Azure File's handle is left empty: it needs the secret's name, and no caller counts those.
Translation translateInlineVolume(const sh_volume& vol, std::string_view azureDiskKind);
// TranslateInTreePVToCSI for PersistentVolume `pv` of `plugin` (Azure File and vSphere are not
// translated here: isCSIMigrationOn is never true for them). A field of the wrong type is an
// error naming it.
Translation translatePersistentVolume(const InTreePlugin& plugin, const Object& pv);

// KubernetesVolumeIDToEBSVolumeID: "aws://<zone>/<vol-id>", "aws:///<vol-id>" or "<vol-id>" to
// the EBS volume id, with Go's url.Parse rules for the URL forms.
Translation ebsVolumeId(std::string_view kubernetesId);

}  // namespace schedhost::plugins::nodevolumelimits

#endif  // SCHEDHOST_PLUGINS_NODEVOLUMELIMITS_TRANSLATION_H
