//! Read-only views of the host's pods, nodes and node infos.
//!
//! Each view is a `#[repr(transparent)]` wrapper of the C struct, handed out by reference
//! with the lifetime of the call it came with (plugin.h, section 4): the host owns the data,
//! nothing is copied. `raw()` gives the C struct for the fields these views do not cover.
use crate::object::{Kind, Object};
use crate::sys;

/// The elements of a C array, or an empty slice for a NULL pointer or a zero count.
///
/// # Safety
/// `ptr` must point to `count` valid elements that outlive `'a`.
pub(crate) unsafe fn slice<'a, T>(ptr: *const T, count: usize) -> &'a [T] {
    if ptr.is_null() || count == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(ptr, count)
    }
}

/// The bytes of an `sh_str`.
///
/// # Safety
/// `s` must be a valid string view that outlives `'a`.
pub(crate) unsafe fn bytes<'a>(s: sys::sh_str) -> &'a [u8] {
    slice(s.ptr as *const u8, s.len)
}

/// The text of an `sh_str`. The host holds UTF-8 (it parsed JSON); a string that is not
/// reads as "".
///
/// # Safety
/// `s` must be a valid string view that outlives `'a`.
pub(crate) unsafe fn text<'a>(s: sys::sh_str) -> &'a str {
    std::str::from_utf8(bytes(s)).unwrap_or("")
}

/// A string id interned by the host (plugin.h `sh_id`): equal ids are equal strings.
pub type Id = sys::sh_id;

/// One label (or node-selector entry): key and value, both as text and as interned ids.
#[repr(transparent)]
pub struct Label(sys::sh_label);

impl Label {
    pub fn key(&self) -> &str {
        unsafe { text(self.0.key_str) }
    }
    pub fn value(&self) -> &str {
        unsafe { text(self.0.value_str) }
    }
    pub fn key_id(&self) -> Id {
        self.0.key
    }
    pub fn value_id(&self) -> Id {
        self.0.value
    }
    pub fn raw(&self) -> &sys::sh_label {
        &self.0
    }
}

/// Labels sorted by key id, as the host keeps them.
#[derive(Clone, Copy)]
pub struct Labels<'a>(&'a [Label]);

impl<'a> Labels<'a> {
    /// # Safety
    /// `ptr` must point to `count` labels that outlive `'a`.
    pub(crate) unsafe fn new(ptr: *const sys::sh_label, count: u32) -> Labels<'a> {
        Labels(slice(ptr as *const Label, count as usize))
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn iter(&self) -> std::slice::Iter<'a, Label> {
        self.0.iter()
    }
    /// The value of label `key`, by text.
    pub fn get(&self, key: &str) -> Option<&'a str> {
        self.0.iter().find(|l| l.key() == key).map(|l| l.value())
    }
    /// The value id of label `key_id` (a binary search: labels are sorted by key id). Intern
    /// the key once, with `Host::intern`, and compare ids on the hot path.
    pub fn get_id(&self, key_id: Id) -> Option<Id> {
        self.0
            .binary_search_by_key(&key_id, |l| l.key_id())
            .ok()
            .map(|i| self.0[i].value_id())
    }
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
}

impl<'a> IntoIterator for Labels<'a> {
    type Item = &'a Label;
    type IntoIter = std::slice::Iter<'a, Label>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// Well-known resource names, as interned ids.
pub mod resource {
    use crate::sys;
    pub const CPU: super::Id = sys::SH_ID_CPU;
    pub const MEMORY: super::Id = sys::SH_ID_MEMORY;
    pub const EPHEMERAL_STORAGE: super::Id = sys::SH_ID_EPHEMERAL_STORAGE;
    pub const PODS: super::Id = sys::SH_ID_PODS;
}

/// A set of resources, like kube-scheduler's framework.Resource: cpu in millicores, memory
/// and ephemeral storage in bytes, extended resources in units.
#[repr(transparent)]
pub struct Resources(sys::sh_resources);

impl Resources {
    pub fn milli_cpu(&self) -> i64 {
        self.0.milli_cpu
    }
    pub fn memory(&self) -> i64 {
        self.0.memory
    }
    pub fn ephemeral_storage(&self) -> i64 {
        self.0.ephemeral_storage
    }
    /// Allocatable "pods" (0 in requests).
    pub fn allowed_pod_number(&self) -> i64 {
        self.0.allowed_pod_number
    }
    /// Extended resources and hugepages, sorted by name id.
    pub fn scalars(&self) -> &[sys::sh_quantity] {
        unsafe { slice(self.0.scalars, self.0.scalar_count as usize) }
    }
    /// The amount of resource `name` (cpu, memory, ephemeral-storage, pods, or a scalar); 0
    /// when absent.
    pub fn get(&self, name: Id) -> i64 {
        match name {
            sys::SH_ID_CPU => self.0.milli_cpu,
            sys::SH_ID_MEMORY => self.0.memory,
            sys::SH_ID_EPHEMERAL_STORAGE => self.0.ephemeral_storage,
            sys::SH_ID_PODS => self.0.allowed_pod_number,
            _ => {
                let s = self.scalars();
                s.binary_search_by_key(&name, |q| q.name)
                    .map(|i| s[i].value)
                    .unwrap_or(0)
            }
        }
    }
    pub fn raw(&self) -> &sys::sh_resources {
        &self.0
    }
}

/// Where a pod volume's data comes from (plugin.h `sh_volume_source`, since 1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VolumeSource {
    /// A source the scheduler has nothing to do with (emptyDir, configMap, secret, hostPath,
    /// projected, ...), or one this crate does not know.
    Other,
    /// persistentVolumeClaim.
    Pvc,
    /// ephemeral.volumeClaimTemplate: a claim made for the pod.
    Ephemeral,
    /// csi: an inline CSI volume.
    Csi,
    /// gcePersistentDisk.
    GcePd,
    /// awsElasticBlockStore.
    AwsEbs,
    Rbd,
    Iscsi,
    AzureDisk,
    Cinder,
    /// vsphereVolume.
    Vsphere,
    /// portworxVolume.
    Portworx,
    AzureFile,
}

impl VolumeSource {
    /// The source of a raw `sh_volume_source`; Other for a value this crate does not know.
    pub fn from_raw(raw: sys::sh_volume_source) -> VolumeSource {
        match raw {
            sys::SH_VOLUME_PVC => VolumeSource::Pvc,
            sys::SH_VOLUME_EPHEMERAL => VolumeSource::Ephemeral,
            sys::SH_VOLUME_CSI => VolumeSource::Csi,
            sys::SH_VOLUME_GCE_PD => VolumeSource::GcePd,
            sys::SH_VOLUME_AWS_EBS => VolumeSource::AwsEbs,
            sys::SH_VOLUME_RBD => VolumeSource::Rbd,
            sys::SH_VOLUME_ISCSI => VolumeSource::Iscsi,
            sys::SH_VOLUME_AZURE_DISK => VolumeSource::AzureDisk,
            sys::SH_VOLUME_CINDER => VolumeSource::Cinder,
            sys::SH_VOLUME_VSPHERE => VolumeSource::Vsphere,
            sys::SH_VOLUME_PORTWORX => VolumeSource::Portworx,
            sys::SH_VOLUME_AZURE_FILE => VolumeSource::AzureFile,
            _ => VolumeSource::Other,
        }
    }
}

/// One of the pod's volumes (spec.volumes[i], since 1.3). Which fields are set depends on the
/// source, as plugin.h's table says: `claim` for Pvc and Ephemeral, `handle` for the in-tree
/// disks, `driver` for Csi, `pool` and `monitors` for Rbd, `lun` for Iscsi; the others are
/// empty. Any other field of the volume is in the pod's manifest (`Host::pod_manifest`).
#[repr(transparent)]
pub struct Volume(sys::sh_volume);

impl Volume {
    pub fn source(&self) -> VolumeSource {
        VolumeSource::from_raw(self.0.source)
    }
    /// spec.volumes[].name.
    pub fn name(&self) -> &str {
        unsafe { text(self.0.name) }
    }
    /// Pvc and Ephemeral: the PersistentVolumeClaim, in the pod's namespace (for Ephemeral the
    /// one made for the pod, "<pod name>-<volume name>"); "" for other sources.
    pub fn claim(&self) -> &str {
        unsafe { text(self.0.claim) }
    }
    /// The volume is a PersistentVolumeClaim's (Pvc or Ephemeral).
    pub fn uses_claim(&self) -> bool {
        matches!(self.source(), VolumeSource::Pvc | VolumeSource::Ephemeral)
    }
    /// The disk's identity: pdName (GcePd), volumeID (AwsEbs, Cinder, Portworx), image (Rbd),
    /// iqn (Iscsi), diskURI (AzureDisk), volumePath (Vsphere) or shareName (AzureFile).
    pub fn handle(&self) -> &str {
        unsafe { text(self.0.handle) }
    }
    /// Csi: csi.driver.
    pub fn driver(&self) -> &str {
        unsafe { text(self.0.driver) }
    }
    /// Rbd: rbd.pool ("rbd" when unset).
    pub fn pool(&self) -> &str {
        unsafe { text(self.0.pool) }
    }
    /// Rbd: rbd.monitors.
    pub fn monitors(&self) -> impl ExactSizeIterator<Item = &str> {
        unsafe { slice(self.0.monitors, self.0.monitor_count as usize) }
            .iter()
            .map(|s| unsafe { text(*s) })
    }
    /// Iscsi: iscsi.lun.
    pub fn lun(&self) -> i32 {
        self.0.lun
    }
    /// The source's readOnly (persistentVolumeClaim.readOnly for a Pvc).
    pub fn is_read_only(&self) -> bool {
        self.0.read_only != 0
    }
    pub fn raw(&self) -> &sys::sh_volume {
        &self.0
    }
}

/// A pod as the scheduler sees it.
#[repr(transparent)]
pub struct Pod(sys::sh_pod);

impl Pod {
    /// # Safety
    /// `p` must be a valid, non-null pod view that outlives `'a`.
    pub unsafe fn from_raw<'a>(p: *const sys::sh_pod) -> &'a Pod {
        &*(p as *const Pod)
    }
    pub fn uid(&self) -> &str {
        unsafe { text(self.0.uid) }
    }
    pub fn name(&self) -> &str {
        unsafe { text(self.0.name) }
    }
    pub fn namespace(&self) -> &str {
        unsafe { text(self.0.namespace_) }
    }
    /// spec.nodeName; "" when unassigned.
    pub fn node_name(&self) -> &str {
        unsafe { text(self.0.node_name) }
    }
    pub fn scheduler_name(&self) -> &str {
        unsafe { text(self.0.scheduler_name) }
    }
    pub fn nominated_node_name(&self) -> &str {
        unsafe { text(self.0.nominated_node_name) }
    }
    pub fn priority(&self) -> i32 {
        self.0.priority
    }
    pub fn labels(&self) -> Labels<'_> {
        unsafe { Labels::new(self.0.labels, self.0.label_count) }
    }
    /// spec.nodeSelector.
    pub fn node_selector(&self) -> Labels<'_> {
        unsafe { Labels::new(self.0.node_selector, self.0.node_selector_count) }
    }
    /// Effective requests, as kube-scheduler computes them.
    pub fn requests(&self) -> &Resources {
        unsafe { &*(&self.0.requests as *const sys::sh_resources as *const Resources) }
    }
    pub fn tolerations(&self) -> &[sys::sh_toleration] {
        unsafe { slice(self.0.tolerations, self.0.toleration_count as usize) }
    }
    pub fn scheduling_gates(&self) -> impl Iterator<Item = &str> {
        unsafe {
            slice(
                self.0.scheduling_gates,
                self.0.scheduling_gate_count as usize,
            )
        }
        .iter()
        .map(|s| unsafe { text(*s) })
    }
    /// metadata.deletionTimestamp is set.
    pub fn is_deleting(&self) -> bool {
        self.0.deleting != 0
    }
    /// The host's view carries the 1.3 fields (a 1.2 host's ends before them).
    fn has_volumes(&self) -> bool {
        self.0.struct_size as usize >= end_of!(sys::sh_pod, resource_claim_count)
    }
    /// spec.volumes, in manifest order (since 1.3; empty on an older host).
    pub fn volumes(&self) -> &[Volume] {
        if !self.has_volumes() {
            return &[];
        }
        unsafe {
            slice(
                self.0.volumes as *const Volume,
                self.0.volume_count as usize,
            )
        }
    }
    /// How many entries spec.resourceClaims has (since 1.3; 0 on an older host).
    pub fn resource_claim_count(&self) -> u32 {
        if !self.has_volumes() {
            return 0;
        }
        self.0.resource_claim_count
    }
    /// The `sys::SH_POD_FIELD_*` flags: which fields the view does not carry are set in the
    /// manifest (read them through `Host::pod_manifest`); since 1.3, 0 on an older host.
    pub fn spec_fields(&self) -> u32 {
        if (self.0.struct_size as usize) < end_of!(sys::sh_pod, spec_fields) {
            return 0;
        }
        self.0.spec_fields
    }
    pub fn raw(&self) -> &sys::sh_pod {
        &self.0
    }
}

/// A node.
#[repr(transparent)]
pub struct Node(sys::sh_node);

impl Node {
    /// # Safety
    /// `p` must be a valid, non-null node view that outlives `'a`.
    pub unsafe fn from_raw<'a>(p: *const sys::sh_node) -> &'a Node {
        &*(p as *const Node)
    }
    pub fn name(&self) -> &str {
        unsafe { text(self.0.name) }
    }
    pub fn name_id(&self) -> Id {
        self.0.name_id
    }
    pub fn labels(&self) -> Labels<'_> {
        unsafe { Labels::new(self.0.labels, self.0.label_count) }
    }
    /// spec.unschedulable.
    pub fn is_unschedulable(&self) -> bool {
        self.0.unschedulable != 0
    }
    pub fn taints(&self) -> &[sys::sh_taint] {
        unsafe { slice(self.0.taints, self.0.taint_count as usize) }
    }
    pub fn allocatable(&self) -> &Resources {
        unsafe { &*(&self.0.allocatable as *const sys::sh_resources as *const Resources) }
    }
    /// status.declaredFeatures as the host keeps them, sorted by their bytes (since 1.3; none
    /// on an older host, whose view ends before them).
    fn declared_feature_strs(&self) -> &[sys::sh_str] {
        if (self.0.struct_size as usize) < end_of!(sys::sh_node, declared_feature_count) {
            return &[];
        }
        unsafe {
            slice(
                self.0.declared_features,
                self.0.declared_feature_count as usize,
            )
        }
    }
    /// status.declaredFeatures, sorted (since 1.3; empty on an older host).
    pub fn declared_features(&self) -> impl ExactSizeIterator<Item = &str> {
        self.declared_feature_strs()
            .iter()
            .map(|s| unsafe { text(*s) })
    }
    /// The node declares feature `name` (a binary search: the features are sorted).
    pub fn has_declared_feature(&self, name: &str) -> bool {
        self.declared_feature_strs()
            .binary_search_by(|f| unsafe { bytes(*f) }.cmp(name.as_bytes()))
            .is_ok()
    }
    pub fn raw(&self) -> &sys::sh_node {
        &self.0
    }
}

/// A node with what is placed on it (kube-scheduler's NodeInfo).
#[repr(transparent)]
pub struct NodeInfo(sys::sh_node_info);

impl NodeInfo {
    /// # Safety
    /// `p` must be a valid, non-null node-info view that outlives `'a`.
    pub unsafe fn from_raw<'a>(p: *const sys::sh_node_info) -> &'a NodeInfo {
        &*(p as *const NodeInfo)
    }
    /// Node infos from a C array of pointers.
    ///
    /// # Safety
    /// `ptr` must point to `count` valid, non-null node-info pointers that outlive `'a`.
    pub unsafe fn slice_from_raw<'a>(
        ptr: *const *const sys::sh_node_info,
        count: usize,
    ) -> &'a [&'a NodeInfo] {
        // &NodeInfo and *const sh_node_info have the same layout (repr(transparent)).
        slice(ptr as *const &NodeInfo, count)
    }
    pub fn node(&self) -> &Node {
        unsafe { Node::from_raw(self.0.node) }
    }
    /// The node's name (shorthand for `node().name()`).
    pub fn name(&self) -> &str {
        self.node().name()
    }
    /// The pods placed on the node.
    pub fn pods(&self) -> &[&Pod] {
        unsafe { slice(self.0.pods as *const &Pod, self.0.pod_count as usize) }
    }
    /// The sum of the pods' requests.
    pub fn requested(&self) -> &Resources {
        unsafe { &*(&self.0.requested as *const sys::sh_resources as *const Resources) }
    }
    pub fn generation(&self) -> u64 {
        self.0.generation
    }
    pub fn raw(&self) -> &sys::sh_node_info {
        &self.0
    }
}

/// A queued pod, as QueueSort compares them.
#[repr(transparent)]
pub struct QueuedPod(sys::sh_queued_pod);

impl QueuedPod {
    /// # Safety
    /// `p` must be a valid, non-null queued-pod view that outlives `'a`.
    pub unsafe fn from_raw<'a>(p: *const sys::sh_queued_pod) -> &'a QueuedPod {
        &*(p as *const QueuedPod)
    }
    pub fn pod(&self) -> &Pod {
        unsafe { Pod::from_raw(self.0.pod) }
    }
    pub fn attempts(&self) -> u32 {
        self.0.attempts
    }
    /// When the pod was (re)added to the queue.
    pub fn timestamp_unix_nanos(&self) -> i64 {
        self.0.timestamp_unix_nanos
    }
}

/// One entry of the list NormalizeScore rewrites in place.
#[repr(transparent)]
pub struct NodeScore(sys::sh_node_score);

impl NodeScore {
    pub fn node(&self) -> &NodeInfo {
        unsafe { NodeInfo::from_raw(self.0.node) }
    }
    pub fn score(&self) -> i64 {
        self.0.score
    }
    pub fn set_score(&mut self, score: i64) {
        self.0.score = score;
    }
}

/// The objects of a cluster event, for queueing hints.
#[repr(transparent)]
pub struct EventObjects(sys::sh_event_objects);

impl EventObjects {
    /// # Safety
    /// `p` must be a valid, non-null event view that outlives `'a`.
    pub unsafe fn from_raw<'a>(p: *const sys::sh_event_objects) -> &'a EventObjects {
        &*(p as *const EventObjects)
    }
    /// `sys::SH_RESOURCE_*` of the incoming event.
    pub fn resource(&self) -> i32 {
        self.0.resource
    }
    /// `sys::SH_ACTION_*` bits of the incoming event.
    pub fn actions(&self) -> u32 {
        self.0.actions
    }
    pub fn old_pod(&self) -> Option<&Pod> {
        unsafe { self.0.old_pod.as_ref().map(|p| Pod::from_raw(p)) }
    }
    pub fn new_pod(&self) -> Option<&Pod> {
        unsafe { self.0.new_pod.as_ref().map(|p| Pod::from_raw(p)) }
    }
    pub fn old_node(&self) -> Option<&Node> {
        unsafe { self.0.old_node.as_ref().map(|n| Node::from_raw(n)) }
    }
    pub fn new_node(&self) -> Option<&Node> {
        unsafe { self.0.new_node.as_ref().map(|n| Node::from_raw(n)) }
    }
    /// The host's struct carries the 1.2 fields (a 1.1 host's does not: they read as None).
    fn has_objects(&self) -> bool {
        self.0.struct_size as usize >= end_of!(sys::sh_event_objects, reserved2_)
    }
    /// An event on a declared kind: the object before (None for Add).
    pub fn old_object(&self) -> Option<&Object> {
        if !self.has_objects() {
            return None;
        }
        unsafe { self.0.old_object.as_ref().map(|o| Object::from_raw(o)) }
    }
    /// An event on a declared kind: the object after (None for Delete).
    pub fn new_object(&self) -> Option<&Object> {
        if !self.has_objects() {
            return None;
        }
        unsafe { self.0.new_object.as_ref().map(|o| Object::from_raw(o)) }
    }
    /// The kind of an event on a declared kind, as the index in this plugin's `kinds`; None
    /// for an event on pods or nodes. The resource is `kind.event_resource()`, or a built-in
    /// resource (`SH_RESOURCE_PERSISTENT_VOLUME`, ...) when the declared kind is one.
    pub fn kind(&self) -> Option<Kind> {
        if self.old_object().is_none() && self.new_object().is_none() {
            return None;
        }
        Some(Kind(self.0.kind))
    }
}
