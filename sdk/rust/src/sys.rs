//! The C ABI of `schedhost/plugin.h` (ABI 1.3), declared for Rust.
//!
//! Every struct is `#[repr(C)]` with the fields of the C struct, in order, under the same
//! names; `tests/layout.rs` compares sizes, alignments and offsets with what the C compiler
//! says. Read plugin.h for the meaning of each field: this module repeats only what Rust
//! needs. C enums that cross the boundary are plain `i32` values here (with constants), so a
//! value outside the enum is never undefined behaviour on the Rust side.
#![allow(non_camel_case_types, non_upper_case_globals)]

use std::os::raw::{c_char, c_int, c_void};

// --- 1. Version --------------------------------------------------------------------------
pub const SH_ABI_MAJOR: u16 = 1;
pub const SH_ABI_MINOR: u16 = 4;
/// The name of the one symbol a plugin exports (without the C string's NUL).
pub const SH_ENTRY_SYMBOL: &str = "schedhost_plugin_v1";

// --- 2. Handles --------------------------------------------------------------------------
macro_rules! opaque {
    ($($name:ident),*) => {$(
        /// Opaque host-owned object; only ever behind a pointer.
        #[repr(C)]
        pub struct $name {
            _private: [u8; 0],
        }
    )*};
}
opaque!(
    sh_host,
    sh_status,
    sh_cycle,
    sh_snapshot,
    sh_args,
    sh_prefilter_result,
    sh_sim,
    sh_json
);

pub type sh_id = u32;
pub const SH_ID_NONE: sh_id = 0;
pub const SH_ID_CPU: sh_id = 1;
pub const SH_ID_MEMORY: sh_id = 2;
pub const SH_ID_EPHEMERAL_STORAGE: sh_id = 3;
pub const SH_ID_PODS: sh_id = 4;
pub const SH_ID_HOSTNAME: sh_id = 5;
pub const SH_ID_ZONE: sh_id = 6;
pub const SH_ID_REGION: sh_id = 7;
pub const SH_ID_EMPTY: sh_id = 8;
pub const SH_WELL_KNOWN_END: sh_id = 16;

// --- 3. Status codes ---------------------------------------------------------------------
pub type sh_code = i32;
pub const SH_SUCCESS: sh_code = 0;
pub const SH_ERROR: sh_code = 1;
pub const SH_UNSCHEDULABLE: sh_code = 2;
pub const SH_UNSCHEDULABLE_AND_UNRESOLVABLE: sh_code = 3;
pub const SH_WAIT: sh_code = 4;
pub const SH_SKIP: sh_code = 5;
pub const SH_PENDING: sh_code = 6;
pub const SH_CODE_COUNT: usize = 7;

pub type sh_queueing_hint = i32;
pub const SH_QUEUE_SKIP: sh_queueing_hint = 0;
pub const SH_QUEUE: sh_queueing_hint = 1;

pub const SH_MIN_NODE_SCORE: i64 = 0;
pub const SH_MAX_NODE_SCORE: i64 = 100;

// --- 4. Data views -----------------------------------------------------------------------
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_str {
    pub ptr: *const c_char,
    pub len: usize,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_label {
    pub key: sh_id,
    pub value: sh_id,
    pub key_str: sh_str,
    pub value_str: sh_str,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct sh_quantity {
    pub name: sh_id,
    pub value: i64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_resources {
    pub milli_cpu: i64,
    pub memory: i64,
    pub ephemeral_storage: i64,
    pub allowed_pod_number: i64,
    pub scalars: *const sh_quantity,
    pub scalar_count: u32,
    pub reserved_: u32,
}

pub const SH_EFFECT_NONE: i32 = 0;
pub const SH_EFFECT_NO_SCHEDULE: i32 = 1;
pub const SH_EFFECT_PREFER_NO_SCHEDULE: i32 = 2;
pub const SH_EFFECT_NO_EXECUTE: i32 = 3;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_taint {
    pub key: sh_id,
    pub value: sh_id,
    pub effect: i32,
    pub reserved_: i32,
}

pub const SH_TOLERATION_EQUAL: i32 = 0;
pub const SH_TOLERATION_EXISTS: i32 = 1;
pub const SH_TOLERATION_LT: i32 = 2;
pub const SH_TOLERATION_GT: i32 = 3;
pub const SH_TOLERATION_UNKNOWN: i32 = 4;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_toleration {
    pub key: sh_id,
    pub value: sh_id,
    pub op: i32,
    pub effect: i32,
    pub toleration_seconds: i64,
}

pub const SH_PROTO_TCP: i32 = 0;
pub const SH_PROTO_UDP: i32 = 1;
pub const SH_PROTO_SCTP: i32 = 2;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_host_port {
    pub host_ip: sh_str,
    pub protocol: i32,
    pub port: i32,
}

pub const SH_OP_IN: i32 = 0;
pub const SH_OP_NOT_IN: i32 = 1;
pub const SH_OP_EXISTS: i32 = 2;
pub const SH_OP_DOES_NOT_EXIST: i32 = 3;
pub const SH_OP_GT: i32 = 4;
pub const SH_OP_LT: i32 = 5;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_requirement {
    pub key: sh_id,
    pub op: i32,
    pub number_ok: i32,
    pub values: *const sh_id,
    pub value_count: u32,
    pub reserved_: u32,
    pub number: i64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_node_selector_term {
    pub match_expressions: *const sh_requirement,
    pub match_expression_count: u32,
    pub match_field_count: u32,
    pub match_fields: *const sh_requirement,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_preferred_term {
    pub weight: i32,
    pub reserved_: i32,
    pub preference: sh_node_selector_term,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_node_affinity {
    pub has_required: i32,
    pub required_count: u32,
    pub required: *const sh_node_selector_term,
    pub preferred: *const sh_preferred_term,
    pub preferred_count: u32,
    pub reserved_: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_label_selector {
    pub match_labels: *const sh_label,
    pub match_label_count: u32,
    pub match_expression_count: u32,
    pub match_expressions: *const sh_requirement,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_pod_affinity_term {
    pub label_selector: *const sh_label_selector,
    pub namespace_selector: *const sh_label_selector,
    pub namespaces: *const sh_str,
    pub namespace_count: u32,
    pub topology_key: sh_id,
    pub match_label_keys: *const sh_str,
    pub match_label_key_count: u32,
    pub mismatch_label_key_count: u32,
    pub mismatch_label_keys: *const sh_str,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_weighted_pod_affinity_term {
    pub weight: i32,
    pub reserved_: i32,
    pub term: sh_pod_affinity_term,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_pod_affinity {
    pub required: *const sh_pod_affinity_term,
    pub required_count: u32,
    pub preferred_count: u32,
    pub preferred: *const sh_weighted_pod_affinity_term,
}

pub const SH_DO_NOT_SCHEDULE: i32 = 0;
pub const SH_SCHEDULE_ANYWAY: i32 = 1;
pub const SH_POLICY_UNSET: i32 = 0;
pub const SH_POLICY_HONOR: i32 = 1;
pub const SH_POLICY_IGNORE: i32 = 2;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_topology_spread_constraint {
    pub max_skew: i32,
    pub when_unsatisfiable: i32,
    pub topology_key: sh_id,
    pub min_domains: i32,
    pub label_selector: *const sh_label_selector,
    pub node_affinity_policy: i32,
    pub node_taints_policy: i32,
    pub match_label_keys: *const sh_str,
    pub match_label_key_count: u32,
    pub reserved_: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_owner_ref {
    pub api_version: sh_str,
    pub kind: sh_str,
    pub name: sh_str,
    pub uid: sh_str,
    pub controller: i32,
    pub reserved_: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_pod_condition {
    pub type_: sh_str,
    pub status: sh_str,
    pub reason: sh_str,
}

/// Where a pod volume's data comes from (`sh_volume_source`, since 1.3).
pub type sh_volume_source = i32;
pub const SH_VOLUME_OTHER: sh_volume_source = 0;
pub const SH_VOLUME_PVC: sh_volume_source = 1;
pub const SH_VOLUME_EPHEMERAL: sh_volume_source = 2;
pub const SH_VOLUME_CSI: sh_volume_source = 3;
pub const SH_VOLUME_GCE_PD: sh_volume_source = 4;
pub const SH_VOLUME_AWS_EBS: sh_volume_source = 5;
pub const SH_VOLUME_RBD: sh_volume_source = 6;
pub const SH_VOLUME_ISCSI: sh_volume_source = 7;
pub const SH_VOLUME_AZURE_DISK: sh_volume_source = 8;
pub const SH_VOLUME_CINDER: sh_volume_source = 9;
pub const SH_VOLUME_VSPHERE: sh_volume_source = 10;
pub const SH_VOLUME_PORTWORX: sh_volume_source = 11;
pub const SH_VOLUME_AZURE_FILE: sh_volume_source = 12;

/// One of the pod's volumes (since 1.3).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_volume {
    pub struct_size: u32,
    pub source: sh_volume_source,
    pub name: sh_str,
    pub claim: sh_str,
    pub handle: sh_str,
    pub driver: sh_str,
    pub pool: sh_str,
    pub monitors: *const sh_str,
    pub monitor_count: u32,
    pub lun: i32,
    pub read_only: i32,
    pub reserved_: i32,
}

pub const SH_PREEMPT_LOWER_PRIORITY: i32 = 0;
pub const SH_PREEMPT_NEVER: i32 = 1;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_pod {
    pub struct_size: u32,
    pub reserved_: u32,
    pub uid: sh_str,
    pub name: sh_str,
    pub namespace_: sh_str,
    pub node_name: sh_str,
    pub scheduler_name: sh_str,
    pub nominated_node_name: sh_str,
    pub priority: i32,
    pub preemption_policy: i32,
    pub creation_unix_nanos: i64,
    pub start_unix_nanos: i64,
    pub deleting: i32,
    pub phase_terminal: i32,
    pub labels: *const sh_label,
    pub label_count: u32,
    pub toleration_count: u32,
    pub tolerations: *const sh_toleration,
    pub requests: sh_resources,
    pub non_zero_milli_cpu: i64,
    pub non_zero_memory: i64,
    pub host_ports: *const sh_host_port,
    pub host_port_count: u32,
    pub node_selector_count: u32,
    pub node_selector: *const sh_label,
    pub node_affinity: *const sh_node_affinity,
    pub pod_affinity: *const sh_pod_affinity,
    pub pod_anti_affinity: *const sh_pod_affinity,
    pub scheduling_gates: *const sh_str,
    pub scheduling_gate_count: u32,
    pub image_count: u32,
    pub images: *const sh_id,
    pub container_count: u32,
    pub topology_spread_constraint_count: u32,
    pub topology_spread_constraints: *const sh_topology_spread_constraint,
    pub owner_refs: *const sh_owner_ref,
    pub owner_ref_count: u32,
    pub condition_count: u32,
    pub conditions: *const sh_pod_condition,
    /// Since 1.3, like the two below: check `struct_size` before reading them.
    pub volumes: *const sh_volume,
    pub volume_count: u32,
    pub resource_claim_count: u32,
    /// Since 1.3: the `SH_POD_FIELD_*` flags of fields the view does not carry.
    pub spec_fields: u32,
    pub reserved2_: u32,
}

/// `sh_pod.spec_fields` (since 1.3): spec.hostUsers is set.
pub const SH_POD_FIELD_HOST_USERS: u32 = 1;
/// `sh_pod.spec_fields` (since 1.3): a container or init container has restartPolicyRules.
pub const SH_POD_FIELD_RESTART_POLICY_RULES: u32 = 2;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_image {
    pub name: sh_id,
    pub reserved_: u32,
    pub size_bytes: i64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_node {
    pub struct_size: u32,
    pub unschedulable: i32,
    pub name: sh_str,
    pub name_id: sh_id,
    pub label_count: u32,
    pub labels: *const sh_label,
    pub taints: *const sh_taint,
    pub taint_count: u32,
    pub image_count: u32,
    pub images: *const sh_image,
    pub allocatable: sh_resources,
    /// Since 1.3, like the two below: check `struct_size` before reading them.
    pub declared_features: *const sh_str,
    pub declared_feature_count: u32,
    pub reserved_: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_image_state {
    pub name: sh_id,
    pub num_nodes: u32,
    pub size_bytes: i64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_node_info {
    pub struct_size: u32,
    pub pod_count: u32,
    pub node: *const sh_node,
    pub pods: *const *const sh_pod,
    pub requested: sh_resources,
    pub non_zero_milli_cpu: i64,
    pub non_zero_memory: i64,
    pub used_ports: *const sh_host_port,
    pub used_port_count: u32,
    pub image_state_count: u32,
    pub image_states: *const sh_image_state,
    pub generation: u64,
    pub pods_with_affinity: *const *const sh_pod,
    pub pods_with_affinity_count: u32,
    pub pods_with_required_anti_affinity_count: u32,
    pub pods_with_required_anti_affinity: *const *const sh_pod,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_pdb {
    pub struct_size: u32,
    pub disruptions_allowed: i32,
    pub namespace_: sh_str,
    pub name: sh_str,
    pub selector: *const sh_label_selector,
    pub disrupted_pods: *const sh_str,
    pub disrupted_pod_count: u32,
    pub reserved_: u32,
}

/// Since 1.4: a node where evicting `victims` lets a preemptor fit (preemption_extenders).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_preemption_candidate {
    pub node_name: sh_str,
    pub victims: *const *const sh_pod,
    pub victim_count: u32,
    pub pdb_violations: u32,
}

/// An object of a declared kind (since 1.2).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_object {
    pub struct_size: u32,
    pub label_count: u32,
    pub api_version: sh_str,
    pub kind: sh_str,
    pub namespace_: sh_str,
    pub name: sh_str,
    pub uid: sh_str,
    pub resource_version: sh_str,
    pub labels: *const sh_label,
    pub root: *const sh_json,
    pub creation_unix_nanos: i64,
    pub deleting: i32,
    pub assumed: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_queued_pod {
    pub struct_size: u32,
    pub attempts: u32,
    pub pod: *const sh_pod,
    pub timestamp_unix_nanos: i64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_node_score {
    pub node: *const sh_node_info,
    pub score: i64,
}

// --- 5. Extension points -----------------------------------------------------------------
pub const SH_RESOURCE_POD: i32 = 0;
pub const SH_RESOURCE_NODE: i32 = 1;
pub const SH_RESOURCE_PERSISTENT_VOLUME: i32 = 2;
pub const SH_RESOURCE_PERSISTENT_VOLUME_CLAIM: i32 = 3;
pub const SH_RESOURCE_CSI_NODE: i32 = 4;
pub const SH_RESOURCE_CSI_DRIVER: i32 = 5;
pub const SH_RESOURCE_VOLUME_ATTACHMENT: i32 = 6;
pub const SH_RESOURCE_CSI_STORAGE_CAPACITY: i32 = 7;
pub const SH_RESOURCE_STORAGE_CLASS: i32 = 8;
pub const SH_RESOURCE_RESOURCE_CLAIM: i32 = 9;
pub const SH_RESOURCE_RESOURCE_SLICE: i32 = 10;
pub const SH_RESOURCE_DEVICE_CLASS: i32 = 11;
pub const SH_RESOURCE_WILDCARD: i32 = 12;
pub const SH_RESOURCE_ASSIGNED_POD: i32 = 13;
pub const SH_RESOURCE_UNSCHEDULED_POD: i32 = 14;
/// Since 1.2: the resource of kind i of the plugin's descriptor is this + i.
pub const SH_RESOURCE_DECLARED_KIND: i32 = 0x10000;
pub const SH_MAX_DECLARED_KINDS: u32 = 64;

pub const SH_ACTION_ADD: u32 = 1;
pub const SH_ACTION_DELETE: u32 = 2;
pub const SH_ACTION_UPDATE_NODE_ALLOCATABLE: u32 = 4;
pub const SH_ACTION_UPDATE_NODE_LABEL: u32 = 8;
pub const SH_ACTION_UPDATE_NODE_TAINT: u32 = 16;
pub const SH_ACTION_UPDATE_NODE_CONDITION: u32 = 32;
pub const SH_ACTION_UPDATE_NODE_ANNOTATION: u32 = 64;
pub const SH_ACTION_UPDATE_NODE_DECLARED_FEATURE: u32 = 128;
pub const SH_ACTION_UPDATE_POD_LABEL: u32 = 256;
pub const SH_ACTION_UPDATE_POD_SCALE_DOWN: u32 = 512;
pub const SH_ACTION_UPDATE_POD_TOLERATION: u32 = 1024;
pub const SH_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED: u32 = 2048;
pub const SH_ACTION_UPDATE_POD_GENERATED_RESOURCE_CLAIM: u32 = 4096;
pub const SH_ACTION_UPDATE: u32 = 8188;
pub const SH_ACTION_ALL: u32 = 8191;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_event_registration {
    pub resource: i32,
    pub actions: u32,
    pub has_hint: i32,
    pub reserved_: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_event_objects {
    pub struct_size: u32,
    pub resource: i32,
    pub actions: u32,
    pub reserved_: u32,
    pub old_pod: *const sh_pod,
    pub new_pod: *const sh_pod,
    pub old_node: *const sh_node,
    pub new_node: *const sh_node,
    /// Since 1.2, like the three below: check `struct_size` before reading them.
    pub old_object: *const sh_object,
    pub new_object: *const sh_object,
    pub kind: u32,
    pub reserved2_: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct sh_plugin_vtable {
    pub struct_size: u32,
    pub reserved_: u32,
    pub pre_enqueue:
        Option<unsafe extern "C" fn(*mut c_void, *const sh_pod, *mut sh_status) -> sh_code>,
    pub queue_sort_less: Option<
        unsafe extern "C" fn(*mut c_void, *const sh_queued_pod, *const sh_queued_pod) -> c_int,
    >,
    pub pre_filter: Option<
        unsafe extern "C" fn(
            *mut c_void,
            *mut sh_cycle,
            *const sh_pod,
            *mut sh_prefilter_result,
            *mut sh_status,
        ) -> sh_code,
    >,
    pub pre_filter_add_pod: Option<PreFilterPodFn>,
    pub pre_filter_remove_pod: Option<PreFilterPodFn>,
    pub filter: Option<
        unsafe extern "C" fn(
            *mut c_void,
            *mut sh_cycle,
            *const sh_pod,
            *const sh_node_info,
            *mut sh_status,
        ) -> sh_code,
    >,
    pub post_filter: Option<
        unsafe extern "C" fn(*mut c_void, *mut sh_cycle, *const sh_pod, *mut sh_status) -> sh_code,
    >,
    pub pre_score: Option<
        unsafe extern "C" fn(
            *mut c_void,
            *mut sh_cycle,
            *const sh_pod,
            *const *const sh_node_info,
            usize,
            *mut sh_status,
        ) -> sh_code,
    >,
    pub score: Option<
        unsafe extern "C" fn(
            *mut c_void,
            *mut sh_cycle,
            *const sh_pod,
            *const sh_node_info,
            *mut i64,
            *mut sh_status,
        ) -> sh_code,
    >,
    pub normalize_score: Option<
        unsafe extern "C" fn(
            *mut c_void,
            *mut sh_cycle,
            *const sh_pod,
            *mut sh_node_score,
            usize,
            *mut sh_status,
        ) -> sh_code,
    >,
    pub reserve: Option<NodeCallFn>,
    pub unreserve: Option<NodeNotifyFn>,
    pub permit: Option<
        unsafe extern "C" fn(
            *mut c_void,
            *mut sh_cycle,
            *const sh_pod,
            sh_str,
            *mut i64,
            *mut sh_status,
        ) -> sh_code,
    >,
    pub pre_bind: Option<NodeCallFn>,
    pub bind: Option<NodeCallFn>,
    pub post_bind: Option<NodeNotifyFn>,
    pub events_to_register:
        Option<unsafe extern "C" fn(*mut c_void, *mut sh_event_registration, usize) -> usize>,
    pub queueing_hint: Option<
        unsafe extern "C" fn(
            *mut c_void,
            usize,
            *const sh_pod,
            *const sh_event_objects,
        ) -> sh_queueing_hint,
    >,
}

/// pre_filter_add_pod and pre_filter_remove_pod.
pub type PreFilterPodFn = unsafe extern "C" fn(
    *mut c_void,
    *mut sh_cycle,
    *const sh_pod,
    *const sh_pod,
    *const sh_node_info,
    *mut sh_status,
) -> sh_code;
/// reserve, pre_bind and bind.
pub type NodeCallFn = unsafe extern "C" fn(
    *mut c_void,
    *mut sh_cycle,
    *const sh_pod,
    sh_str,
    *mut sh_status,
) -> sh_code;
/// unreserve and post_bind.
pub type NodeNotifyFn = unsafe extern "C" fn(*mut c_void, *mut sh_cycle, *const sh_pod, sh_str);

impl sh_plugin_vtable {
    /// A table with every slot empty, of this ABI's size.
    pub const EMPTY: sh_plugin_vtable = sh_plugin_vtable {
        struct_size: std::mem::size_of::<sh_plugin_vtable>() as u32,
        reserved_: 0,
        pre_enqueue: None,
        queue_sort_less: None,
        pre_filter: None,
        pre_filter_add_pod: None,
        pre_filter_remove_pod: None,
        filter: None,
        post_filter: None,
        pre_score: None,
        score: None,
        normalize_score: None,
        reserve: None,
        unreserve: None,
        permit: None,
        pre_bind: None,
        bind: None,
        post_bind: None,
        events_to_register: None,
        queueing_hint: None,
    };
}

// --- 6. Host services --------------------------------------------------------------------
pub const SH_LOG_TRACE: c_int = 0;
pub const SH_LOG_DEBUG: c_int = 1;
pub const SH_LOG_INFO: c_int = 2;
pub const SH_LOG_WARN: c_int = 3;
pub const SH_LOG_ERROR: c_int = 4;

pub const SH_ARGS_NULL: c_int = 0;
pub const SH_ARGS_BOOL: c_int = 1;
pub const SH_ARGS_INT: c_int = 2;
pub const SH_ARGS_DOUBLE: c_int = 3;
pub const SH_ARGS_STRING: c_int = 4;
pub const SH_ARGS_ARRAY: c_int = 5;
pub const SH_ARGS_OBJECT: c_int = 6;

pub const SH_VERB_CREATE: u32 = 1;
pub const SH_VERB_UPDATE: u32 = 2;
pub const SH_VERB_PATCH: u32 = 4;
pub const SH_VERB_UPDATE_STATUS: u32 = 8;
pub const SH_VERB_DELETE: u32 = 16;
pub const SH_VERB_ALL: u32 = 31;

pub type sh_patch_type = i32;
pub const SH_PATCH_NONE: sh_patch_type = 0;
pub const SH_PATCH_MERGE: sh_patch_type = 1;
pub const SH_PATCH_STRATEGIC_MERGE: sh_patch_type = 2;
pub const SH_PATCH_JSON: sh_patch_type = 3;

/// How a wait in the binding cycle ended (cycle_wait, since 1.3).
pub type sh_wait_end = c_int;
pub const SH_WAIT_ELAPSED: sh_wait_end = 0;
pub const SH_WAIT_STOPPING: sh_wait_end = 1;
pub const SH_WAIT_POD_DELETED: sh_wait_end = 2;

/// What a plugin asks the host to write (since 1.2).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_object_write {
    pub struct_size: u32,
    pub verb: u32,
    pub kind: u32,
    pub patch_type: sh_patch_type,
    pub namespace_: sh_str,
    pub name: sh_str,
    pub body: sh_str,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct sh_state_ops {
    pub clone: Option<unsafe extern "C" fn(*const c_void) -> *mut c_void>,
    pub free: Option<unsafe extern "C" fn(*mut c_void)>,
}

#[repr(C)]
pub struct sh_host_api {
    pub struct_size: u32,
    pub abi_major: u16,
    pub abi_minor: u16,
    pub log: Option<unsafe extern "C" fn(*mut sh_host, c_int, *const c_char, usize)>,
    pub status_add_reason: Option<unsafe extern "C" fn(*mut sh_status, *const c_char, usize)>,
    pub intern: Option<unsafe extern "C" fn(*mut sh_host, *const c_char, usize) -> sh_id>,
    pub id_str: Option<unsafe extern "C" fn(*mut sh_host, sh_id) -> sh_str>,
    pub args_type: Option<unsafe extern "C" fn(*const sh_args) -> c_int>,
    pub args_get: Option<unsafe extern "C" fn(*const sh_args, *const c_char) -> *const sh_args>,
    pub args_size: Option<unsafe extern "C" fn(*const sh_args) -> usize>,
    pub args_at: Option<unsafe extern "C" fn(*const sh_args, usize) -> *const sh_args>,
    pub args_key_at: Option<unsafe extern "C" fn(*const sh_args, usize) -> sh_str>,
    pub args_int: Option<unsafe extern "C" fn(*const sh_args) -> i64>,
    pub args_double: Option<unsafe extern "C" fn(*const sh_args) -> f64>,
    pub args_bool: Option<unsafe extern "C" fn(*const sh_args) -> c_int>,
    pub args_string: Option<unsafe extern "C" fn(*const sh_args) -> sh_str>,
    pub args_error:
        Option<unsafe extern "C" fn(*mut sh_host, *const sh_args, *const c_char, usize)>,
    pub cycle_write:
        Option<unsafe extern "C" fn(*mut sh_cycle, sh_id, *mut c_void, *const sh_state_ops)>,
    pub cycle_read: Option<unsafe extern "C" fn(*mut sh_cycle, sh_id) -> *mut c_void>,
    pub cycle_snapshot: Option<unsafe extern "C" fn(*mut sh_cycle) -> *const sh_snapshot>,
    pub snapshot_node_count: Option<unsafe extern "C" fn(*const sh_snapshot) -> usize>,
    pub snapshot_node_at:
        Option<unsafe extern "C" fn(*const sh_snapshot, usize) -> *const sh_node_info>,
    pub snapshot_node_by_name: Option<
        unsafe extern "C" fn(*const sh_snapshot, *const c_char, usize) -> *const sh_node_info,
    >,
    pub snapshot_nodes_with_affinity_pods:
        Option<unsafe extern "C" fn(*const sh_snapshot, *mut *const *const sh_node_info) -> usize>,
    pub snapshot_nodes_with_required_anti_affinity_pods:
        Option<unsafe extern "C" fn(*const sh_snapshot, *mut *const *const sh_node_info) -> usize>,
    pub prefilter_result_add_node:
        Option<unsafe extern "C" fn(*mut sh_prefilter_result, *const c_char, usize)>,
    pub node_filter_code:
        Option<unsafe extern "C" fn(*mut sh_cycle, *const c_char, usize) -> c_int>,
    pub postfilter_nominate: Option<unsafe extern "C" fn(*mut sh_cycle, *const c_char, usize)>,
    pub waiting_pod_allow: Option<
        unsafe extern "C" fn(*mut sh_host, *const c_char, usize, *const c_char, usize) -> c_int,
    >,
    pub waiting_pod_reject: Option<
        unsafe extern "C" fn(
            *mut sh_host,
            *const c_char,
            usize,
            *const c_char,
            usize,
            *const c_char,
            usize,
        ) -> c_int,
    >,
    pub bind_pod: Option<
        unsafe extern "C" fn(
            *mut sh_host,
            *const sh_pod,
            *const c_char,
            usize,
            *mut sh_status,
        ) -> sh_code,
    >,
    pub pod_json: Option<unsafe extern "C" fn(*const sh_pod, *mut c_char, usize) -> usize>,
    pub node_json: Option<unsafe extern "C" fn(*const sh_node, *mut c_char, usize) -> usize>,
    pub namespace_labels: Option<
        unsafe extern "C" fn(*mut sh_cycle, *const c_char, usize, *mut *const sh_label) -> usize,
    >,
    pub workload_selectors: Option<
        unsafe extern "C" fn(
            *mut sh_cycle,
            *const sh_pod,
            *mut *const *const sh_label_selector,
        ) -> usize,
    >,
    pub status_create: Option<unsafe extern "C" fn() -> *mut sh_status>,
    pub status_destroy: Option<unsafe extern "C" fn(*mut sh_status)>,
    pub status_reason_count: Option<unsafe extern "C" fn(*const sh_status) -> usize>,
    pub status_reason_at: Option<unsafe extern "C" fn(*const sh_status, usize) -> sh_str>,
    pub pod_disruption_budgets:
        Option<unsafe extern "C" fn(*mut sh_cycle, *mut *const *const sh_pdb) -> usize>,
    pub cycle_random: Option<unsafe extern "C" fn(*mut sh_cycle) -> u64>,
    pub parallel_for: Option<
        unsafe extern "C" fn(
            *mut sh_cycle,
            usize,
            Option<unsafe extern "C" fn(*mut c_void, usize)>,
            *mut c_void,
        ),
    >,
    pub sim_begin: Option<
        unsafe extern "C" fn(*mut sh_cycle, *const sh_pod, *const sh_node_info) -> *mut sh_sim,
    >,
    pub sim_node_info: Option<unsafe extern "C" fn(*mut sh_sim) -> *const sh_node_info>,
    pub sim_cycle: Option<unsafe extern "C" fn(*mut sh_sim) -> *mut sh_cycle>,
    pub sim_remove_pod:
        Option<unsafe extern "C" fn(*mut sh_sim, *const sh_pod, *mut sh_status) -> sh_code>,
    pub sim_add_pod:
        Option<unsafe extern "C" fn(*mut sh_sim, *const sh_pod, *mut sh_status) -> sh_code>,
    pub sim_filter: Option<unsafe extern "C" fn(*mut sh_sim, *mut sh_status) -> sh_code>,
    pub sim_end: Option<unsafe extern "C" fn(*mut sh_sim)>,
    pub preempt_victims: Option<
        unsafe extern "C" fn(
            *mut sh_cycle,
            *const sh_pod,
            *const c_char,
            usize,
            *const *const sh_pod,
            usize,
            *mut sh_status,
        ) -> sh_code,
    >,
    /// Since 1.1: check `abi_minor >= 1` and `struct_size` before calling.
    pub cycle_activate_pod:
        Option<unsafe extern "C" fn(*mut sh_cycle, *const c_char, usize, *const c_char, usize)>,
    /// Since 1.2, like every slot below: check `abi_minor >= 2` and `struct_size` before
    /// calling.
    pub object_get: Option<
        unsafe extern "C" fn(
            *mut sh_host,
            *mut sh_cycle,
            u32,
            *const c_char,
            usize,
            *const c_char,
            usize,
        ) -> *const sh_object,
    >,
    pub object_list: Option<
        unsafe extern "C" fn(
            *mut sh_host,
            *mut sh_cycle,
            u32,
            *const c_char,
            usize,
            *const c_char,
            usize,
            *mut *const *const sh_object,
        ) -> usize,
    >,
    pub object_json: Option<unsafe extern "C" fn(*const sh_object, *mut c_char, usize) -> usize>,
    pub json_type: Option<unsafe extern "C" fn(*const sh_json) -> c_int>,
    pub json_get:
        Option<unsafe extern "C" fn(*const sh_json, *const c_char, usize) -> *const sh_json>,
    pub json_path:
        Option<unsafe extern "C" fn(*const sh_json, *const c_char, usize) -> *const sh_json>,
    pub json_size: Option<unsafe extern "C" fn(*const sh_json) -> usize>,
    pub json_at: Option<unsafe extern "C" fn(*const sh_json, usize) -> *const sh_json>,
    pub json_key_at: Option<unsafe extern "C" fn(*const sh_json, usize) -> sh_str>,
    pub json_int: Option<unsafe extern "C" fn(*const sh_json) -> i64>,
    pub json_double: Option<unsafe extern "C" fn(*const sh_json) -> f64>,
    pub json_bool: Option<unsafe extern "C" fn(*const sh_json) -> c_int>,
    pub json_string: Option<unsafe extern "C" fn(*const sh_json) -> sh_str>,
    pub object_write: Option<
        unsafe extern "C" fn(
            *mut sh_host,
            *mut sh_cycle,
            *const sh_object_write,
            *mut sh_status,
        ) -> sh_code,
    >,
    pub object_assume: Option<
        unsafe extern "C" fn(*mut sh_host, u32, *const c_char, usize, *mut sh_status) -> sh_code,
    >,
    pub object_restore:
        Option<unsafe extern "C" fn(*mut sh_host, u32, *const c_char, usize, *const c_char, usize)>,
    /// Since 1.3, like the two below: check `abi_minor >= 3` and `struct_size` before calling.
    pub snapshot_pvc_in_use: Option<
        unsafe extern "C" fn(
            *const sh_snapshot,
            *const c_char,
            usize,
            *const c_char,
            usize,
        ) -> c_int,
    >,
    pub pod_manifest: Option<unsafe extern "C" fn(*mut sh_host, *const sh_pod) -> *const sh_json>,
    pub node_manifest: Option<unsafe extern "C" fn(*mut sh_host, *const sh_node) -> *const sh_json>,
    /// Since 1.3, like cycle_wait: whether object_write only plans its writes (evaluate, test).
    pub writes_planned: Option<unsafe extern "C" fn(*mut sh_host) -> c_int>,
    /// Waits in a binding cycle; an `sh_wait_end` (SH_WAIT_ELAPSED: the time passed).
    pub cycle_wait: Option<unsafe extern "C" fn(*mut sh_host, *mut sh_cycle, u32) -> c_int>,
    /// Since 1.3: the number naming a kind's objects as a cycle (or, with no cycle, now) reads
    /// them; 0 for an unknown kind.
    pub object_kind_version: Option<unsafe extern "C" fn(*mut sh_host, *mut sh_cycle, u32) -> u64>,
    /// Since 1.4: 1 while the victims of a preemption for the pod are still being evicted.
    pub preemption_running: Option<unsafe extern "C" fn(*mut sh_host, *const sh_pod) -> c_int>,
    /// Since 1.4: the preemption candidates the scheduler's extenders keep (their count; the
    /// array through the last parameter).
    pub preemption_extenders: Option<
        unsafe extern "C" fn(
            *mut sh_cycle,
            *const sh_pod,
            *const sh_preemption_candidate,
            usize,
            *mut sh_status,
            *mut *const sh_preemption_candidate,
        ) -> usize,
    >,
}

// --- 7. Entry point ----------------------------------------------------------------------
/// A kind of object the plugin reads (since 1.2). Its strings are NUL-terminated static data.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sh_object_kind {
    pub struct_size: u32,
    pub verbs: u32,
    pub group: *const c_char,
    pub version: *const c_char,
    pub resource: *const c_char,
    pub kind: *const c_char,
    pub namespaced: i32,
    pub reserved_: i32,
    pub label_selector: *const c_char,
    pub field_selector: *const c_char,
}

/// Kinds are static data of the plugin the host only reads, like the descriptor.
unsafe impl Sync for sh_object_kind {}

pub const SH_PLUGIN_SERIALIZE: u32 = 1;

pub const SH_POINT_PRE_ENQUEUE: u32 = 1 << 0;
pub const SH_POINT_QUEUE_SORT: u32 = 1 << 1;
pub const SH_POINT_PRE_FILTER: u32 = 1 << 2;
pub const SH_POINT_FILTER: u32 = 1 << 3;
pub const SH_POINT_POST_FILTER: u32 = 1 << 4;
pub const SH_POINT_PRE_SCORE: u32 = 1 << 5;
pub const SH_POINT_SCORE: u32 = 1 << 6;
pub const SH_POINT_RESERVE: u32 = 1 << 7;
pub const SH_POINT_PERMIT: u32 = 1 << 8;
pub const SH_POINT_PRE_BIND: u32 = 1 << 9;
pub const SH_POINT_BIND: u32 = 1 << 10;
pub const SH_POINT_POST_BIND: u32 = 1 << 11;

#[repr(C)]
pub struct sh_plugin_descriptor {
    pub struct_size: u32,
    pub abi_major: u16,
    pub abi_minor: u16,
    pub name: *const c_char,
    pub version: *const c_char,
    pub default_args_json: *const c_char,
    pub flags: u32,
    pub reserved_: u32,
    pub create: Option<
        unsafe extern "C" fn(*const sh_host_api, *mut sh_host, *const sh_args) -> *mut c_void,
    >,
    pub destroy: Option<unsafe extern "C" fn(*mut c_void)>,
    pub vtable: *const sh_plugin_vtable,
    /// Since 1.2, like the two below.
    pub kinds: *const sh_object_kind,
    pub kind_count: u32,
    pub reserved2_: u32,
}

/// The descriptor is static data the host only reads; its pointers lead to static data too.
unsafe impl Sync for sh_plugin_descriptor {}

pub type sh_plugin_entry_fn = unsafe extern "C" fn() -> *const sh_plugin_descriptor;

pub const SH_META_MAGIC: [u8; 8] = *b"SHMETA01";
pub const SH_META_SECTION: &str = ".shmeta";

#[repr(C)]
#[derive(Clone, Copy)]
pub struct sh_plugin_metadata {
    pub magic: [c_char; 8],
    pub struct_size: u32,
    pub abi_major: u16,
    pub abi_minor: u16,
    pub points: u32,
    pub flags: u32,
    pub name: [c_char; 64],
    pub version: [c_char; 32],
}
