/*
 * schedhost plugin ABI, version 1.
 *
 * This header is the whole contract between the schedhost scheduler and a plugin
 * shipped as a shared object. It is plain C99 so that any toolchain can build a
 * plugin, and it is read top to bottom like documentation:
 *
 *   1. version            the ABI version and the rule for bumping it
 *   2. handles            opaque types owned by the host
 *   3. status codes       what a plugin answers and what the host does next
 *   4. data views         read-only pods, nodes and node infos, owned by the host
 *   5. extension points   the functions a plugin may implement
 *   6. host services      the table of functions the host offers a plugin
 *   7. entry point        the one symbol a plugin exports, and its metadata
 *
 * Rules that hold everywhere:
 *   - Every pointer the host passes in is borrowed for the duration of the call,
 *     unless its comment says otherwise. A plugin copies what it keeps.
 *   - Strings are {ptr, len} views, not NUL-terminated unless stated.
 *   - Nothing allocated on one side is freed on the other. Plugin output reaches the
 *     host through host setters (which copy) or host-owned buffers.
 *   - No C++ exception, longjmp or signal may cross the boundary.
 *   - The top-level structs (sh_pod, sh_node, sh_node_info, sh_pdb, sh_queued_pod,
 *     sh_event_objects, the vtable, the host table, the descriptor and the metadata)
 *     begin with `struct_size`. They only grow at the end. A reader never reads a
 *     field beyond the other side's struct_size. Every other struct (sh_str,
 *     sh_label, the selectors, terms and constraints, ...) has a fixed layout that
 *     never changes within a major.
 */
#ifndef SCHEDHOST_PLUGIN_H
#define SCHEDHOST_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
/* The C ABI keeps C's snake_case names; the C++ naming rules do not apply to it. */
/* NOLINTBEGIN(readability-identifier-naming) */

/* ======================================================================== */
/* 1. Version                                                               */
/* ======================================================================== */

/*
 * SH_ABI_MAJOR is part of the entry symbol's name (schedhost_plugin_v1). Bump it
 * only when an existing field, function or meaning changes or disappears; a host
 * never loads a plugin of another major.
 *
 * SH_ABI_MINOR counts append-only additions within the major: new fields at the
 * end of a struct, new slots at the end of a table. A host loads a plugin whose
 * minor is <= its own; a plugin built against an older minor keeps working on a
 * newer host for the whole major.
 *
 * Conventions this header keeps, so that additions read the same as what is there:
 *
 *   - "since" markers. Every field or slot appended after 1.0 is followed on its
 *     line by a comment "since 1.N" naming the minor that added it (a field added
 *     in 1.1 reads: sh_str foo; followed by the comment "since 1.1"). Everything
 *     unmarked is 1.0. Before reading a marked member, a plugin checks the
 *     host's abi_minor (sh_host_api) or the struct's struct_size.
 *   - Arrays. An array is a pointer followed by its count, the pointer named for the
 *     elements (`labels`) and the count `<element>_count` (`label_count`; for names
 *     without a simple plural, `<array>_count`: `pods_with_affinity_count`). A count
 *     is a size_t in function parameters and a uint32_t in the data views of section
 *     4, where two counts share one 8-byte slot. Historical exception, kept because
 *     the 1.0 layouts are fixed: in these views the count comes before its pointer
 *     (so that it shares an 8-byte slot with the 32-bit field before it) --
 *       sh_node_selector_term.match_field_count, sh_node_affinity.required_count,
 *       sh_label_selector.match_expression_count,
 *       sh_pod_affinity_term.mismatch_label_key_count, sh_pod_affinity.preferred_count,
 *       sh_pod.toleration_count, .node_selector_count, .image_count,
 *       .topology_spread_constraint_count, .condition_count,
 *       sh_node.label_count, .image_count,
 *       sh_node_info.pod_count, .image_state_count,
 *       .pods_with_required_anti_affinity_count.
 *     New fields follow the rule.
 *   - Strings are a `const char*` followed by its size_t length (`len`, or
 *     `<name>_len` when a function takes several strings), or an sh_str.
 *   - A host service that hands out an array returns its count and stores the
 *     pointer through a last parameter `out`; a plugin buffer is a pointer followed
 *     by its size_t `capacity`.
 */
#define SH_ABI_MAJOR 1
#define SH_ABI_MINOR 4

#define SH_ENTRY_SYMBOL "schedhost_plugin_v1"

/* ======================================================================== */
/* 2. Handles                                                               */
/* ======================================================================== */

/* Opaque: host-owned objects a plugin only passes back to host services. */
typedef struct sh_host sh_host;           /* one per loaded plugin instance        */
typedef struct sh_status sh_status;       /* where a plugin writes reasons          */
typedef struct sh_cycle sh_cycle;         /* the CycleState of one scheduling cycle */
typedef struct sh_snapshot sh_snapshot;   /* the cluster snapshot of one cycle      */
typedef struct sh_args sh_args;           /* a node of the plugin's args tree       */
typedef struct sh_prefilter_result sh_prefilter_result; /* a PreFilter node set     */
typedef struct sh_sim sh_sim;             /* a dry run on one node (preemption)     */
typedef struct sh_json sh_json;           /* a node of a cluster object's JSON; since 1.2 */

/* Interned string id. The host interns label keys, label values, resource names,
 * taint keys and values, topology keys and image names into integers that stay
 * stable for the life of the process, so plugins compare integers on the hot path.
 * 0 is "no string". Ids below SH_WELL_KNOWN_END are fixed by this header. */
typedef uint32_t sh_id;

#define SH_ID_NONE 0u
#define SH_ID_CPU 1u                       /* "cpu"                          */
#define SH_ID_MEMORY 2u                    /* "memory"                       */
#define SH_ID_EPHEMERAL_STORAGE 3u         /* "ephemeral-storage"            */
#define SH_ID_PODS 4u                      /* "pods"                         */
#define SH_ID_HOSTNAME 5u                  /* "kubernetes.io/hostname"       */
#define SH_ID_ZONE 6u                      /* "topology.kubernetes.io/zone"  */
#define SH_ID_REGION 7u                    /* "topology.kubernetes.io/region"*/
#define SH_ID_EMPTY 8u                     /* ""  (the empty string itself)  */
#define SH_WELL_KNOWN_END 16u

/* ======================================================================== */
/* 3. Status codes                                                          */
/* ======================================================================== */

/* What a plugin answers. The values equal kube-scheduler's framework.Code. */
typedef enum sh_code {
  /* All is well. */
  SH_SUCCESS = 0,
  /* Internal failure. The pod is requeued with error backoff; no plugin is blamed
   * and no QueueingHint is consulted. Filter: the whole cycle fails. */
  SH_ERROR = 1,
  /* The pod does not fit now. The plugin is recorded as a rejector, the pod waits
   * in unschedulablePods for an event this plugin registered; preemption may run. */
  SH_UNSCHEDULABLE = 2,
  /* Like SH_UNSCHEDULABLE, but preemption cannot help: the node is never a
   * preemption candidate. */
  SH_UNSCHEDULABLE_AND_UNRESOLVABLE = 3,
  /* Permit only: hold the pod in the waiting map until allowed, rejected or timed out. */
  SH_WAIT = 4,
  /* Bind: not mine, ask the next binder. PreFilter: skip my Filter and my
   * PreFilterExtensions this cycle. PreScore: skip my Score this cycle. */
  SH_SKIP = 5,
  /* The cycle stops, waiting on an external actor; a Queue hint from this plugin
   * moves the pod to activeQ at once, with no backoff. */
  SH_PENDING = 6,
  /* Not a code: makes the enum 32 bits wide, so any value a plugin returns is a
   * valid sh_code object and the host can refuse it instead of misreading it. */
  SH_CODE_MAX_ENUM_ = 0x7fffffff
} sh_code;

#define SH_CODE_COUNT 7

/* QueueingHint: what a cluster event means for a pod this plugin rejected. */
typedef enum sh_queueing_hint {
  SH_QUEUE_SKIP = 0, /* the event cannot make the pod schedulable */
  SH_QUEUE = 1,      /* retry the pod (after backoff)             */
  SH_QUEUEING_HINT_MAX_ENUM_ = 0x7fffffff
} sh_queueing_hint;

/* Scores lie in [SH_MIN_NODE_SCORE, SH_MAX_NODE_SCORE] after NormalizeScore. */
#define SH_MIN_NODE_SCORE 0
#define SH_MAX_NODE_SCORE 100

/* ======================================================================== */
/* 4. Data views                                                            */
/* ======================================================================== */
/*
 * Pods, nodes and node infos reach a plugin as host-owned, read-only views. The
 * host keeps its model in exactly these structs, so nothing is copied or
 * serialised per call. A view is valid for the duration of the call it was
 * passed to (and, for snapshot views, for the whole scheduling cycle).
 * Arrays are a pointer and a count (see section 1 for their order and names); a
 * count of 0 may come with a NULL pointer.
 * Views are safe to read from any thread concurrently.
 */

typedef struct sh_str {
  const char* ptr;
  size_t len;
} sh_str;

/* A label, node-selector entry or annotation: both sides interned and as text. */
typedef struct sh_label {
  sh_id key;
  sh_id value;
  sh_str key_str;
  sh_str value_str;
} sh_label;

/* A quantity of one resource. cpu is in millicores; memory, ephemeral-storage and
 * hugepages in bytes; everything else in units (rounded up like resource.Quantity). */
typedef struct sh_quantity {
  sh_id name;
  int64_t value;
} sh_quantity;

/* A set of resources, laid out like kube-scheduler's framework.Resource. */
typedef struct sh_resources {
  int64_t milli_cpu;
  int64_t memory;
  int64_t ephemeral_storage;
  int64_t allowed_pod_number;           /* allocatable "pods"; 0 in requests     */
  const sh_quantity* scalars;           /* extended resources and hugepages,     */
  uint32_t scalar_count;                /*   sorted by name id, no duplicates    */
  uint32_t reserved_;
} sh_resources;

typedef enum sh_taint_effect {
  SH_EFFECT_NONE = 0, /* a toleration with no effect matches all effects */
  SH_EFFECT_NO_SCHEDULE = 1,
  SH_EFFECT_PREFER_NO_SCHEDULE = 2,
  SH_EFFECT_NO_EXECUTE = 3
} sh_taint_effect;

typedef struct sh_taint {
  sh_id key;
  sh_id value;
  int32_t effect; /* sh_taint_effect */
  int32_t reserved_;
} sh_taint;

typedef enum sh_toleration_operator {
  SH_TOLERATION_EQUAL = 0, /* "" or "Equal" */
  SH_TOLERATION_EXISTS = 1,
  SH_TOLERATION_LT = 2,
  SH_TOLERATION_GT = 3,
  SH_TOLERATION_UNKNOWN = 4
} sh_toleration_operator;

typedef struct sh_toleration {
  sh_id key;      /* SH_ID_NONE: empty key (matches all keys with Exists) */
  sh_id value;
  int32_t op;     /* sh_toleration_operator */
  int32_t effect; /* sh_taint_effect; SH_EFFECT_NONE matches every effect */
  int64_t toleration_seconds; /* -1 when unset */
} sh_toleration;

typedef enum sh_protocol { SH_PROTO_TCP = 0, SH_PROTO_UDP = 1, SH_PROTO_SCTP = 2 } sh_protocol;

/* A host port a container asks for, or one in use on a node. host_ip is "0.0.0.0"
 * when the manifest left it empty. */
typedef struct sh_host_port {
  sh_str host_ip;
  int32_t protocol; /* sh_protocol */
  int32_t port;     /* hostPort, > 0 */
} sh_host_port;

/* Label-selector and node-selector operators. */
typedef enum sh_selector_op {
  SH_OP_IN = 0,
  SH_OP_NOT_IN = 1,
  SH_OP_EXISTS = 2,
  SH_OP_DOES_NOT_EXIST = 3,
  SH_OP_GT = 4,
  SH_OP_LT = 5
} sh_selector_op;

/* One requirement: key op values. Values are interned; for Gt/Lt the single value
 * is also parsed into `number` (valid when number_ok is 1). */
typedef struct sh_requirement {
  sh_id key;
  int32_t op; /* sh_selector_op */
  int32_t number_ok;
  const sh_id* values;
  uint32_t value_count;
  uint32_t reserved_;
  int64_t number;
} sh_requirement;

/* A NodeSelectorTerm: matchExpressions on labels and matchFields on fields (only
 * metadata.name exists; its key is interned as "metadata.name"). */
typedef struct sh_node_selector_term {
  const sh_requirement* match_expressions;
  uint32_t match_expression_count;
  uint32_t match_field_count;
  const sh_requirement* match_fields;
} sh_node_selector_term;

typedef struct sh_preferred_term {
  int32_t weight;
  int32_t reserved_;
  sh_node_selector_term preference;
} sh_preferred_term;

/* A pod's or the scheduler's node affinity. has_required tells whether
 * requiredDuringSchedulingIgnoredDuringExecution was present at all. */
typedef struct sh_node_affinity {
  int32_t has_required;
  uint32_t required_count;
  const sh_node_selector_term* required; /* ORed */
  const sh_preferred_term* preferred;
  uint32_t preferred_count;
  uint32_t reserved_;
} sh_node_affinity;

/* A metav1.LabelSelector. A NULL selector pointer matches nothing; an empty one
 * (no labels, no expressions) matches everything. */
typedef struct sh_label_selector {
  const sh_label* match_labels;
  uint32_t match_label_count;
  uint32_t match_expression_count;
  const sh_requirement* match_expressions;
} sh_label_selector;

/* A PodAffinityTerm. */
typedef struct sh_pod_affinity_term {
  const sh_label_selector* label_selector;     /* NULL when absent            */
  const sh_label_selector* namespace_selector; /* NULL when absent            */
  const sh_str* namespaces;
  uint32_t namespace_count;
  sh_id topology_key;
  const sh_str* match_label_keys;
  uint32_t match_label_key_count;
  uint32_t mismatch_label_key_count;
  const sh_str* mismatch_label_keys;
} sh_pod_affinity_term;

typedef struct sh_weighted_pod_affinity_term {
  int32_t weight;
  int32_t reserved_;
  sh_pod_affinity_term term;
} sh_weighted_pod_affinity_term;

typedef struct sh_pod_affinity {
  const sh_pod_affinity_term* required;
  uint32_t required_count;
  uint32_t preferred_count;
  const sh_weighted_pod_affinity_term* preferred;
} sh_pod_affinity;

typedef enum sh_when_unsatisfiable { SH_DO_NOT_SCHEDULE = 0, SH_SCHEDULE_ANYWAY = 1 } sh_when_unsatisfiable;
typedef enum sh_inclusion_policy { SH_POLICY_UNSET = 0, SH_POLICY_HONOR = 1, SH_POLICY_IGNORE = 2 } sh_inclusion_policy;

typedef struct sh_topology_spread_constraint {
  int32_t max_skew;
  int32_t when_unsatisfiable; /* sh_when_unsatisfiable */
  sh_id topology_key;
  int32_t min_domains;        /* 0 when unset */
  const sh_label_selector* label_selector; /* NULL when absent */
  int32_t node_affinity_policy; /* sh_inclusion_policy */
  int32_t node_taints_policy;   /* sh_inclusion_policy */
  const sh_str* match_label_keys;
  uint32_t match_label_key_count;
  uint32_t reserved_;
} sh_topology_spread_constraint;

typedef struct sh_owner_ref {
  sh_str api_version;
  sh_str kind;
  sh_str name;
  sh_str uid;
  int32_t controller; /* 1 when controller: true */
  int32_t reserved_;
} sh_owner_ref;

/* A condition of the pod's status (status.conditions), e.g. DisruptionTarget. */
typedef struct sh_pod_condition {
  sh_str type;
  sh_str status; /* "True", "False" or "Unknown" */
  sh_str reason;
} sh_pod_condition;

/* Where a pod volume's data comes from (spec.volumes[].<source>), for the volume plugins
 * (since 1.3). Sources the scheduler has nothing to do with (emptyDir, configMap, secret,
 * hostPath, projected, ...) are SH_VOLUME_OTHER. */
typedef enum sh_volume_source {
  SH_VOLUME_OTHER = 0,
  SH_VOLUME_PVC = 1,        /* persistentVolumeClaim                                     */
  SH_VOLUME_EPHEMERAL = 2,  /* ephemeral.volumeClaimTemplate: a claim made for the pod   */
  SH_VOLUME_CSI = 3,        /* csi: an inline CSI volume                                 */
  SH_VOLUME_GCE_PD = 4,     /* gcePersistentDisk                                         */
  SH_VOLUME_AWS_EBS = 5,    /* awsElasticBlockStore                                      */
  SH_VOLUME_RBD = 6,        /* rbd                                                       */
  SH_VOLUME_ISCSI = 7,      /* iscsi                                                     */
  SH_VOLUME_AZURE_DISK = 8, /* azureDisk                                                 */
  SH_VOLUME_CINDER = 9,     /* cinder                                                    */
  SH_VOLUME_VSPHERE = 10,   /* vsphereVolume                                             */
  SH_VOLUME_PORTWORX = 11,  /* portworxVolume                                            */
  SH_VOLUME_AZURE_FILE = 12 /* azureFile                                                 */
} sh_volume_source;

/* One of the pod's volumes (spec.volumes[i], since 1.3). An element of an array, so its
 * layout is fixed for the whole major: a later minor adds what it needs elsewhere, never here
 * (struct_size is sizeof(sh_volume)). Which fields are set depends on the source; the others
 * are empty strings:
 *
 *   source        claim                               handle         other fields
 *   PVC           persistentVolumeClaim.claimName
 *   EPHEMERAL     <pod name>-<volume name>, the claim
 *                 made for it
 *   CSI                                                              driver
 *   GCE_PD                                            pdName
 *   AWS_EBS                                           volumeID
 *   RBD                                               image          pool ("rbd" when
 *                                                                    unset), monitors
 *   ISCSI                                             iqn            lun
 *   AZURE_DISK                                        diskURI
 *   CINDER                                            volumeID
 *   VSPHERE                                           volumePath
 *   PORTWORX                                          volumeID
 *   AZURE_FILE                                        shareName
 *
 * read_only is the source's readOnly (persistentVolumeClaim.readOnly for a PVC). Any other
 * field of a volume is in the pod's manifest (pod_manifest, since 1.3). */
typedef struct sh_volume {
  uint32_t struct_size;
  int32_t source;          /* sh_volume_source                                        */
  sh_str name;             /* spec.volumes[].name                                     */
  sh_str claim;            /* PVC and EPHEMERAL: the claim, in the pod's namespace     */
  sh_str handle;           /* the disk's identity, per the table above                */
  sh_str driver;           /* CSI: csi.driver                                         */
  sh_str pool;             /* RBD: rbd.pool                                           */
  const sh_str* monitors;  /* RBD: rbd.monitors                                       */
  uint32_t monitor_count;
  int32_t lun;             /* ISCSI: iscsi.lun                                        */
  int32_t read_only;       /* 1 when readOnly                                         */
  int32_t reserved_;
} sh_volume;

typedef enum sh_preemption_policy {
  SH_PREEMPT_LOWER_PRIORITY = 0,
  SH_PREEMPT_NEVER = 1
} sh_preemption_policy;

/* A pod as the scheduler sees it. */
typedef struct sh_pod {
  uint32_t struct_size;
  uint32_t reserved_;
  sh_str uid;
  sh_str name;
  sh_str namespace_;
  sh_str node_name;          /* spec.nodeName; empty when unassigned          */
  sh_str scheduler_name;     /* spec.schedulerName, "default-scheduler" when unset */
  sh_str nominated_node_name;/* status.nominatedNodeName                       */
  int32_t priority;          /* spec.priority, resolved; 0 when unset           */
  int32_t preemption_policy; /* sh_preemption_policy                            */
  int64_t creation_unix_nanos;
  int64_t start_unix_nanos;  /* status.startTime; 0 when unset                  */
  int32_t deleting;          /* 1 when metadata.deletionTimestamp is set        */
  int32_t phase_terminal;    /* 1 when status.phase is Succeeded or Failed      */

  const sh_label* labels;            /* sorted by key id */
  uint32_t label_count;
  uint32_t toleration_count;
  const sh_toleration* tolerations;

  /* Effective requests as kube-scheduler computes them (containers, init and
   * sidecar containers, pod-level resources, overhead). */
  sh_resources requests;
  /* cpu and memory with the scoring defaults (100m, 200Mi) for containers that
   * request neither; other fields zero. */
  int64_t non_zero_milli_cpu;
  int64_t non_zero_memory;

  const sh_host_port* host_ports; /* containers and restartable init containers */
  uint32_t host_port_count;
  uint32_t node_selector_count;
  const sh_label* node_selector;  /* spec.nodeSelector, sorted by key id */

  const sh_node_affinity* node_affinity;   /* NULL when absent */
  const sh_pod_affinity* pod_affinity;     /* NULL when absent */
  const sh_pod_affinity* pod_anti_affinity;/* NULL when absent */

  const sh_str* scheduling_gates;
  uint32_t scheduling_gate_count;
  uint32_t image_count;
  const sh_id* images;            /* normalized image names of init containers,
                                     containers and image volumes, in that order */
  uint32_t container_count;       /* containers + init containers                */
  uint32_t topology_spread_constraint_count;
  const sh_topology_spread_constraint* topology_spread_constraints;

  const sh_owner_ref* owner_refs;
  uint32_t owner_ref_count;
  uint32_t condition_count;
  const sh_pod_condition* conditions; /* status.conditions, in manifest order */
  const sh_volume* volumes;        /* spec.volumes, in manifest order; since 1.3          */
  uint32_t volume_count;           /* since 1.3                                           */
  uint32_t resource_claim_count;   /* entries of spec.resourceClaims; since 1.3            */
  uint32_t spec_fields;            /* SH_POD_FIELD_* set in the manifest; since 1.3        */
  uint32_t reserved2_;             /* since 1.3                                           */
} sh_pod;

/* sh_pod.spec_fields (since 1.3): fields of the manifest the view does not carry, flagged so
 * that a plugin reads the manifest (pod_manifest) only for the pods that set them. */
#define SH_POD_FIELD_HOST_USERS 1u            /* spec.hostUsers is set (true or false)     */
#define SH_POD_FIELD_RESTART_POLICY_RULES 2u  /* a container or init container has
                                                 restartPolicyRules                        */

typedef struct sh_image {
  sh_id name;         /* one entry per name the node reports for the image */
  uint32_t reserved_;
  int64_t size_bytes;
} sh_image;

typedef struct sh_node {
  uint32_t struct_size;
  int32_t unschedulable;     /* spec.unschedulable */
  sh_str name;
  sh_id name_id;
  uint32_t label_count;
  const sh_label* labels;    /* sorted by key id */
  const sh_taint* taints;
  uint32_t taint_count;
  uint32_t image_count;
  const sh_image* images;
  sh_resources allocatable;
  const sh_str* declared_features; /* status.declaredFeatures, in memcmp order; since 1.3 */
  uint32_t declared_feature_count; /* since 1.3                                           */
  uint32_t reserved_;              /* since 1.3                                           */
} sh_node;

/* ImageLocality's view of one image present on a node. */
typedef struct sh_image_state {
  sh_id name;
  uint32_t num_nodes; /* nodes in the snapshot that have the image */
  int64_t size_bytes;
} sh_image_state;

/* A node with what is placed on it, as kube-scheduler's NodeInfo. */
typedef struct sh_node_info {
  uint32_t struct_size;
  uint32_t pod_count;
  const sh_node* node;
  const sh_pod* const* pods;
  sh_resources requested;         /* sum of the pods' requests            */
  int64_t non_zero_milli_cpu;     /* sum with the scoring defaults        */
  int64_t non_zero_memory;
  const sh_host_port* used_ports;
  uint32_t used_port_count;
  uint32_t image_state_count;
  const sh_image_state* image_states; /* sorted by name id */
  uint64_t generation;
  const sh_pod* const* pods_with_affinity;
  uint32_t pods_with_affinity_count;
  uint32_t pods_with_required_anti_affinity_count;
  const sh_pod* const* pods_with_required_anti_affinity;
} sh_node_info;

/* A PodDisruptionBudget (policy/v1), as preemption counts it. A pod is covered when it
 * is in the budget's namespace and the selector matches its labels; a NULL or empty
 * selector covers no pod (upstream's rule for preemption). */
typedef struct sh_pdb {
  uint32_t struct_size;
  int32_t disruptions_allowed;   /* status.disruptionsAllowed                   */
  sh_str namespace_;
  sh_str name;
  const sh_label_selector* selector; /* spec.selector; NULL when absent          */
  const sh_str* disrupted_pods;  /* names in status.disruptedPods: already being  */
  uint32_t disrupted_pod_count;  /*   evicted, they do not consume the budget     */
  uint32_t reserved_;
} sh_pdb;

/* A node where evicting `victims` lets a preemptor fit (since 1.4): what a PostFilter plugin
 * offers the scheduler's extenders with preemption_extenders, and what it gets back. Victims
 * are pods of the cycle's snapshot on that node. */
typedef struct sh_preemption_candidate {
  sh_str node_name;
  const sh_pod* const* victims;
  uint32_t victim_count;
  uint32_t pdb_violations;       /* victims a PodDisruptionBudget does not allow to evict */
} sh_preemption_candidate;

/*
 * Objects of any kind (since 1.2). A plugin declares the kinds it reads in its descriptor
 * (sh_object_kind, section 7): built-in kinds (PersistentVolumeClaim, StorageClass,
 * ResourceSlice, ...) and custom resources alike. The host watches each declared kind once,
 * however many plugins and profiles declare it, and keeps every object parsed once in an
 * index by namespace and name. A plugin reads them through the object_* services (section 6)
 * and, for the fields the view below does not carry, through the read-only JSON tree of the
 * object (json_* services), which is never copied or re-parsed per call.
 *
 * Within one scheduling cycle every plugin sees the same version of every kind, as with nodes
 * and pods. An object view stays valid for the whole cycle it was read in (for the binding
 * cycle of that pod, until PostBind returns), and views read outside a cycle until the
 * calling function returns.
 */
typedef struct sh_object {
  uint32_t struct_size;
  uint32_t label_count;
  sh_str api_version;       /* "scheduling.x-k8s.io/v1alpha1", "v1"                     */
  sh_str kind;              /* "PodGroup"                                                */
  sh_str namespace_;        /* empty for a cluster-scoped kind                           */
  sh_str name;
  sh_str uid;               /* metadata.uid; empty in a scenario that leaves it out      */
  sh_str resource_version;  /* metadata.resourceVersion, as the API server wrote it      */
  const sh_label* labels;   /* metadata.labels, sorted by key id                         */
  const sh_json* root;      /* the whole object                                          */
  int64_t creation_unix_nanos; /* metadata.creationTimestamp; 0 when unset               */
  int32_t deleting;         /* 1 when metadata.deletionTimestamp is set                  */
  int32_t assumed;          /* 1 when this is a version assumed in memory (object_assume) */
} sh_object;

/* A queued pod, as QueueSort sees it. */
typedef struct sh_queued_pod {
  uint32_t struct_size;
  uint32_t attempts;
  const sh_pod* pod;
  int64_t timestamp_unix_nanos; /* when the pod was (re)added to the queue */
} sh_queued_pod;

/* One entry of the list NormalizeScore rewrites in place. */
typedef struct sh_node_score {
  const sh_node_info* node;
  int64_t score;
} sh_node_score;

/* ======================================================================== */
/* 5. Extension points                                                      */
/* ======================================================================== */

/* Cluster events (kube-scheduler's ClusterEvent). */
typedef enum sh_event_resource {
  SH_RESOURCE_POD = 0,                  /* matches assigned and unscheduled pods */
  SH_RESOURCE_NODE = 1,
  SH_RESOURCE_PERSISTENT_VOLUME = 2,
  SH_RESOURCE_PERSISTENT_VOLUME_CLAIM = 3,
  SH_RESOURCE_CSI_NODE = 4,
  SH_RESOURCE_CSI_DRIVER = 5,
  SH_RESOURCE_VOLUME_ATTACHMENT = 6,
  SH_RESOURCE_CSI_STORAGE_CAPACITY = 7,
  SH_RESOURCE_STORAGE_CLASS = 8,
  SH_RESOURCE_RESOURCE_CLAIM = 9,
  SH_RESOURCE_RESOURCE_SLICE = 10,
  SH_RESOURCE_DEVICE_CLASS = 11,
  SH_RESOURCE_WILDCARD = 12,
  SH_RESOURCE_ASSIGNED_POD = 13,        /* incoming events only */
  SH_RESOURCE_UNSCHEDULED_POD = 14      /* incoming events only */
} sh_event_resource;

/* Events on the plugin's own declared kinds (since 1.2): the resource of a registration is
 * SH_RESOURCE_DECLARED_KIND + i for kind i of the plugin's descriptor (its index in
 * `kinds`). Add, Delete and Update (SH_ACTION_UPDATE: any change of the object) apply. A
 * declared kind that is one of the resources above (core/v1 persistentvolumes, ...) also
 * matches registrations of that resource, and events on it carry that resource. */
#define SH_RESOURCE_DECLARED_KIND 0x10000
#define SH_MAX_DECLARED_KINDS 64

/* ActionType bits, as upstream. */
#define SH_ACTION_ADD 1u
#define SH_ACTION_DELETE 2u
#define SH_ACTION_UPDATE_NODE_ALLOCATABLE 4u
#define SH_ACTION_UPDATE_NODE_LABEL 8u
#define SH_ACTION_UPDATE_NODE_TAINT 16u
#define SH_ACTION_UPDATE_NODE_CONDITION 32u
#define SH_ACTION_UPDATE_NODE_ANNOTATION 64u
#define SH_ACTION_UPDATE_NODE_DECLARED_FEATURE 128u
#define SH_ACTION_UPDATE_POD_LABEL 256u
#define SH_ACTION_UPDATE_POD_SCALE_DOWN 512u
#define SH_ACTION_UPDATE_POD_TOLERATION 1024u
#define SH_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED 2048u
#define SH_ACTION_UPDATE_POD_GENERATED_RESOURCE_CLAIM 4096u
#define SH_ACTION_UPDATE 8188u /* every Update* bit */
#define SH_ACTION_ALL 8191u

/* One registration: the plugin wants to hear about `resource` events whose actions
 * intersect `actions`. When has_hint is 1 the host asks queueing_hint with this
 * registration's index before requeueing; otherwise the answer is always Queue. */
typedef struct sh_event_registration {
  int32_t resource; /* sh_event_resource */
  uint32_t actions;
  int32_t has_hint;
  int32_t reserved_;
} sh_event_registration;

/* The objects of an event, for queueing hints. Exactly one of the pod, node or object
 * pairs is used, according to the event's resource; `old_*` is NULL for Add and
 * `new_*` is NULL for Delete. */
typedef struct sh_event_objects {
  uint32_t struct_size;
  int32_t resource; /* sh_event_resource of the incoming event */
  uint32_t actions; /* the incoming event's action bits */
  uint32_t reserved_;
  const sh_pod* old_pod;
  const sh_pod* new_pod;
  const sh_node* old_node;
  const sh_node* new_node;
  /* An event on a declared kind: the object before and after (NULL for Add and Delete as
   * above), and the index of the kind in the receiving plugin's descriptor. */
  const sh_object* old_object; /* since 1.2 */
  const sh_object* new_object; /* since 1.2 */
  uint32_t kind;               /* since 1.2 */
  uint32_t reserved2_;         /* since 1.2 */
} sh_event_objects;

/*
 * The extension-point table. A NULL slot means "not implemented"; the host derives
 * the plugin's extension points from the non-NULL slots and refuses a profile that
 * enables the plugin at a point it does not implement. Some slots only make sense
 * together, and the host refuses a plugin whose table breaks one of these rules:
 * pre_filter_add_pod and pre_filter_remove_pod are both set or both NULL, and need
 * pre_filter; normalize_score needs score; unreserve needs reserve; queueing_hint
 * needs events_to_register.
 *
 * Common parameters:
 *   self    the instance `create` returned.
 *   cycle   the CycleState of the current scheduling cycle (see cycle services).
 *   pod     the pod being scheduled.
 *   status  where to write reasons (host->status_add_reason); the return value is
 *           the code. A non-success code with no reason is allowed.
 *
 * Threading: scheduling cycles run one at a time, but Filter and Score (and the
 * PreFilterExtensions during preemption) run concurrently for different nodes of
 * the same cycle; the CycleState is read-only for them. Binding cycles (Permit
 * waiting, PreBind, Bind, PostBind) run concurrently with each other and with the
 * next scheduling cycle. A plugin that cannot live with this sets
 * SH_PLUGIN_SERIALIZE in its descriptor and the host serialises every call.
 */
typedef struct sh_plugin_vtable {
  uint32_t struct_size;
  uint32_t reserved_;

  /* PreEnqueue: may the pod enter activeQ? Lightweight; runs in the queue. */
  sh_code (*pre_enqueue)(void* self, const sh_pod* pod, sh_status* status);

  /* QueueSort: 1 when a should pop before b. Exactly one per profile. */
  int (*queue_sort_less)(void* self, const sh_queued_pod* a, const sh_queued_pod* b);

  /* PreFilter: prepare cycle state; may restrict the nodes with
   * host->prefilter_result_add_node(result, ...). Not calling it means all nodes. */
  sh_code (*pre_filter)(void* self, sh_cycle* cycle, const sh_pod* pod,
                        sh_prefilter_result* result, sh_status* status);
  /* PreFilterExtensions: the host added or removed `other` on `node_info` (a
   * clone) while evaluating nominated pods or preemption. Both NULL when not
   * needed. */
  sh_code (*pre_filter_add_pod)(void* self, sh_cycle* cycle, const sh_pod* pod,
                                const sh_pod* other, const sh_node_info* node_info,
                                sh_status* status);
  sh_code (*pre_filter_remove_pod)(void* self, sh_cycle* cycle, const sh_pod* pod,
                                   const sh_pod* other, const sh_node_info* node_info,
                                   sh_status* status);

  /* Filter: does the pod fit this node? Concurrent across nodes. */
  sh_code (*filter)(void* self, sh_cycle* cycle, const sh_pod* pod,
                    const sh_node_info* node_info, sh_status* status);

  /* PostFilter: runs after the pod fit nowhere. host->node_filter_code answers the
   * code Filter gave each node; the plugin may free room with the preemption
   * services (sim_*, preempt_victims) and nominate a node through
   * host->postfilter_nominate. */
  sh_code (*post_filter)(void* self, sh_cycle* cycle, const sh_pod* pod,
                         sh_status* status);

  /* PreScore: prepare scoring over the feasible nodes. */
  sh_code (*pre_score)(void* self, sh_cycle* cycle, const sh_pod* pod,
                       const sh_node_info* const* nodes, size_t node_count,
                       sh_status* status);

  /* Score: a raw score for one node. Concurrent across nodes. */
  sh_code (*score)(void* self, sh_cycle* cycle, const sh_pod* pod,
                   const sh_node_info* node_info, int64_t* score, sh_status* status);

  /* NormalizeScore: rewrite the scores in place; each must end in [0, 100]. */
  sh_code (*normalize_score)(void* self, sh_cycle* cycle, const sh_pod* pod,
                             sh_node_score* scores, size_t score_count, sh_status* status);

  /* Reserve / Unreserve. Unreserve must be idempotent and may run without Reserve. */
  sh_code (*reserve)(void* self, sh_cycle* cycle, const sh_pod* pod, sh_str node_name,
                     sh_status* status);
  void (*unreserve)(void* self, sh_cycle* cycle, const sh_pod* pod, sh_str node_name);

  /* Permit: SH_WAIT with *timeout_ms set holds the pod (capped at 15 minutes). */
  sh_code (*permit)(void* self, sh_cycle* cycle, const sh_pod* pod, sh_str node_name,
                    int64_t* timeout_ms, sh_status* status);

  /* PreBind, Bind, PostBind: binding cycle, concurrent with scheduling. */
  sh_code (*pre_bind)(void* self, sh_cycle* cycle, const sh_pod* pod, sh_str node_name,
                      sh_status* status);
  sh_code (*bind)(void* self, sh_cycle* cycle, const sh_pod* pod, sh_str node_name,
                  sh_status* status);
  void (*post_bind)(void* self, sh_cycle* cycle, const sh_pod* pod, sh_str node_name);

  /* EnqueueExtensions: fill up to `capacity` registrations, return how many there
   * are (which may exceed capacity: the host then calls again with more room). The host
   * takes at most 4096: a plugin that returns more, or more on the second call than on the
   * first, keeps the registrations it could write (the first 16 when it asked for more than
   * 4096), and the host logs an error naming the plugin and the count and counts a failure. */
  size_t (*events_to_register)(void* self, sh_event_registration* out, size_t capacity);
  /* QueueingHint for registration `index`. Errors are reported as SH_QUEUE. */
  sh_queueing_hint (*queueing_hint)(void* self, size_t index, const sh_pod* pod,
                                    const sh_event_objects* event);
} sh_plugin_vtable;

/* ======================================================================== */
/* 6. Host services                                                         */
/* ======================================================================== */

typedef enum sh_log_level {
  SH_LOG_TRACE = 0, SH_LOG_DEBUG = 1, SH_LOG_INFO = 2, SH_LOG_WARN = 3, SH_LOG_ERROR = 4
} sh_log_level;

/* Type of an args node. */
typedef enum sh_args_type {
  SH_ARGS_NULL = 0, SH_ARGS_BOOL = 1, SH_ARGS_INT = 2, SH_ARGS_DOUBLE = 3,
  SH_ARGS_STRING = 4, SH_ARGS_ARRAY = 5, SH_ARGS_OBJECT = 6
} sh_args_type;

/* What a plugin asks the host to write (object_write, since 1.2). One verb per write; the
 * plugin declares in its descriptor which verbs it uses on each kind (sh_object_kind.verbs),
 * and a write with a verb it did not declare is refused. */
#define SH_VERB_CREATE 1u         /* POST the object in `body`                               */
#define SH_VERB_UPDATE 2u         /* PUT the object in `body` (its resourceVersion is checked) */
#define SH_VERB_PATCH 4u          /* PATCH `name` with `body`, of type `patch_type`          */
#define SH_VERB_UPDATE_STATUS 8u  /* PUT `body` to the status subresource, or PATCH it with  */
                                  /*   `body` when patch_type is not SH_PATCH_NONE           */
#define SH_VERB_DELETE 16u        /* DELETE `name`                                           */
#define SH_VERB_ALL 31u

typedef enum sh_patch_type {
  SH_PATCH_NONE = 0,
  SH_PATCH_MERGE = 1,           /* application/merge-patch+json (RFC 7386)              */
  SH_PATCH_STRATEGIC_MERGE = 2, /* application/strategic-merge-patch+json (built-in kinds) */
  SH_PATCH_JSON = 3             /* application/json-patch+json (RFC 6902)               */
} sh_patch_type;

/* How a wait in the binding cycle ended (cycle_wait, since 1.3). */
typedef enum sh_wait_end {
  SH_WAIT_ELAPSED = 0,     /* the time passed                                          */
  SH_WAIT_STOPPING = 1,    /* the scheduler is stopping (upstream: context canceled)   */
  SH_WAIT_POD_DELETED = 2  /* the pod was deleted, or is terminating                   */
} sh_wait_end;

typedef struct sh_object_write {
  uint32_t struct_size;
  uint32_t verb;        /* one SH_VERB_* bit                                             */
  uint32_t kind;        /* index of the kind in the plugin's descriptor                  */
  int32_t patch_type;   /* sh_patch_type; PATCH and a status patch                       */
  sh_str namespace_;    /* for a namespaced kind; CREATE may leave it to body's metadata */
  sh_str name;          /* PATCH, DELETE; the others read it from body's metadata        */
  sh_str body;          /* JSON: the object (CREATE, UPDATE, UPDATE_STATUS) or the patch */
} sh_object_write;

/* How the host copies and frees a plugin's cycle-state entry (for preemption
 * dry runs and nominated-pod evaluation). Both are called by the host only. */
typedef struct sh_state_ops {
  void* (*clone)(const void* data); /* NULL: the entry is shared, never cloned */
  void (*free)(void* data);
} sh_state_ops;

/*
 * The host function table. Valid from `create` until `destroy` returns. Every
 * function is thread-safe unless noted.
 *
 * Invalid arguments never crash the host. A NULL handle (status, cycle, snapshot, sim,
 * args node) gets the service's empty answer. A string passed as (pointer, length) may be
 * NULL only with length 0 (the empty string). A NULL string with a length, a length above
 * 1048576 bytes, a count above 1048576, or a NULL out-parameter is refused: the call has
 * no effect and returns the value noted below as "refused:", the host counts a failure of
 * the plugin making it (when made from one of its calls) and logs the first such call of
 * each service by each plugin. A non-NULL pointer to the wrong place cannot be detected.
 */
typedef struct sh_host_api {
  uint32_t struct_size;
  uint16_t abi_major;
  uint16_t abi_minor;

  /* -- Logging ---------------------------------------------------------- */
  /* Refused: nothing is logged. */
  void (*log)(sh_host* host, int level, const char* msg, size_t len);

  /* -- Status: reasons are copied; call any number of times ---------------- */
  /* Refused (also a NULL status): no reason is added. */
  void (*status_add_reason)(sh_status* status, const char* reason, size_t len);

  /* -- Interned strings ---------------------------------------------------- */
  /* Refused: SH_ID_NONE. */
  sh_id (*intern)(sh_host* host, const char* s, size_t len);
  /* The text of an id; valid for the life of the process. {"", 0} for an unknown id. */
  sh_str (*id_str)(sh_host* host, sh_id id);

  /* -- Args: a read-only tree, valid only during `create` ------------------- */
  int (*args_type)(const sh_args* node);                 /* sh_args_type; NULL node: SH_ARGS_NULL */
  const sh_args* (*args_get)(const sh_args* obj, const char* key); /* NULL when absent */
  size_t (*args_size)(const sh_args* node);              /* array or object length */
  const sh_args* (*args_at)(const sh_args* arr, size_t index);
  sh_str (*args_key_at)(const sh_args* obj, size_t index);
  int64_t (*args_int)(const sh_args* node);
  double (*args_double)(const sh_args* node);            /* ints convert */
  int (*args_bool)(const sh_args* node);
  sh_str (*args_string)(const sh_args* node);
  /* Report a validation problem at `node` (its path and file:line:column are added
   * by the host); `create` must then return NULL. All reported errors are shown.
   * Refused message: the error is still recorded, as "(invalid message)". */
  void (*args_error)(sh_host* host, const sh_args* node, const char* msg, size_t len);

  /* -- CycleState: key is an interned id; entries are owned by the host ------ */
  /* Store `data` under `key`, replacing (and freeing) any previous entry. */
  void (*cycle_write)(sh_cycle* cycle, sh_id key, void* data, const sh_state_ops* ops);
  /* The entry under `key`, or NULL. Owned by the host; do not free. */
  void* (*cycle_read)(sh_cycle* cycle, sh_id key);
  const sh_snapshot* (*cycle_snapshot)(sh_cycle* cycle);

  /* -- Snapshot: valid for the whole scheduling cycle ----------------------- */
  size_t (*snapshot_node_count)(const sh_snapshot* snap);
  const sh_node_info* (*snapshot_node_at)(const sh_snapshot* snap, size_t index);
  /* Refused: NULL. */
  const sh_node_info* (*snapshot_node_by_name)(const sh_snapshot* snap, const char* name, size_t len);
  /* Nodes holding pods with (anti-)affinity, and with required anti-affinity. Refused
   * (a NULL out): 0. */
  size_t (*snapshot_nodes_with_affinity_pods)(const sh_snapshot* snap, const sh_node_info* const** out);
  size_t (*snapshot_nodes_with_required_anti_affinity_pods)(const sh_snapshot* snap, const sh_node_info* const** out);

  /* -- PreFilter result: restrict the nodes to consider --------------------- */
  /* Refused (also a NULL result): nothing is added, and the result is not restricted by it. */
  void (*prefilter_result_add_node)(sh_prefilter_result* result, const char* name, size_t len);

  /* -- PostFilter ----------------------------------------------------------- */
  /* The status code the Filter phase gave `node_name` in this cycle. SH_SUCCESS outside
   * PostFilter; refused: SH_SUCCESS. */
  int (*node_filter_code)(sh_cycle* cycle, const char* node_name, size_t len);
  /* Nominate a node for the pod (ModeOverride); an empty name clears the nomination.
   * Refused: the nomination is left as it was. */
  void (*postfilter_nominate)(sh_cycle* cycle, const char* node_name, size_t len);

  /* -- Waiting pods (Permit) ----------------------------------------------- */
  /* Allow or reject the waiting pod with `pod_uid` on behalf of `plugin`. Return 1
   * when a waiting pod was found. Refused: 0. */
  int (*waiting_pod_allow)(sh_host* host, const char* pod_uid, size_t pod_uid_len,
                           const char* plugin, size_t plugin_len);
  int (*waiting_pod_reject)(sh_host* host, const char* pod_uid, size_t pod_uid_len,
                            const char* plugin, size_t plugin_len,
                            const char* msg, size_t msg_len);

  /* -- Cluster --------------------------------------------------------------- */
  /* Ask the cluster connector to bind pod to node (what DefaultBinder does). Refused:
   * SH_ERROR with a reason. */
  sh_code (*bind_pod)(sh_host* host, const sh_pod* pod, const char* node_name, size_t len,
                      sh_status* status);
  /* The object's full JSON text (for rare fields). Writes up to `capacity` bytes
   * into buf and returns the full length (a NULL buf only measures). NULL object: 0. */
  size_t (*pod_json)(const sh_pod* pod, char* buf, size_t capacity);
  size_t (*node_json)(const sh_node* node, char* buf, size_t capacity);

  /* -- Cluster objects beyond pods and nodes ---------------------------------- */
  /* The labels of namespace `ns` (sorted by key id), for namespaceSelector. Returns the
   * count; *out is NULL only when the namespace is unknown (a known namespace without
   * labels gives 0 and a non-NULL *out). Valid for the cycle. Refused: 0 (and *out NULL
   * when out is not). */
  size_t (*namespace_labels)(sh_cycle* cycle, const char* ns, size_t len, const sh_label** out);
  /* The selectors of the workloads that own or select `pod`, as System default topology
   * spreading uses them: every Service of the pod's namespace whose selector matches the
   * pod, then the selector of its controlling ReplicationController, ReplicaSet or
   * StatefulSet. Returns the count. *out is valid until this thread calls it again.
   * Refused (a NULL out): 0. */
  size_t (*workload_selectors)(sh_cycle* cycle, const sh_pod* pod,
                               const sh_label_selector* const** out);

  /* -- Status objects the plugin owns ------------------------------------------
   * For services that report into a status the plugin then reads (sim_*): create one,
   * pass it, read its reasons, destroy it. Reason views are valid until the status is
   * destroyed. */
  sh_status* (*status_create)(void);
  void (*status_destroy)(sh_status* status);
  size_t (*status_reason_count)(const sh_status* status);
  sh_str (*status_reason_at)(const sh_status* status, size_t index);

  /* -- Preemption: what a PostFilter plugin needs to free room for a pod ------ */
  /* Every PodDisruptionBudget of the cluster, all namespaces. Valid for the cycle.
   * Refused (a NULL out): 0. */
  size_t (*pod_disruption_budgets)(sh_cycle* cycle, const sh_pdb* const** out);
  /* A random number from the cycle's seeded generator: the same input and seed give the
   * same sequence, so decisions that upstream randomises stay reproducible. */
  uint64_t (*cycle_random)(sh_cycle* cycle);
  /* Runs fn(ctx, i) for every i in [0, count) on the host's workers and returns when
   * all are done. fn may call the sim_* services; it must not call parallel_for. Refused (a
   * NULL fn, a count above 1048576): nothing runs. */
  void (*parallel_for)(sh_cycle* cycle, size_t count, void (*fn)(void* ctx, size_t index),
                       void* ctx);

  /* A dry run on one node: a private copy of the node's NodeInfo (node must be a node of
   * the cycle's snapshot) and of the cycle state, for scheduling `pod`. NULL when the node
   * is not in the snapshot. A sim belongs to one thread at a time; sims of different
   * nodes run concurrently. The plugin ends every sim it begins. */
  sh_sim* (*sim_begin)(sh_cycle* cycle, const sh_pod* pod, const sh_node_info* node);
  /* The copy as it is now; valid until the next sim_add_pod/sim_remove_pod/sim_end. */
  const sh_node_info* (*sim_node_info)(sh_sim* sim);
  /* The copied cycle state, for the plugin's own entries. Valid until sim_end. */
  sh_cycle* (*sim_cycle)(sh_sim* sim);
  /* Take `other` (a pod of the node, matched by uid) off the copy, then run every
   * PreFilter plugin's RemovePod extension on the copied state. Unschedulable when the
   * pod is not on the node; an extension's failure otherwise. */
  sh_code (*sim_remove_pod)(sh_sim* sim, const sh_pod* other, sh_status* status);
  /* Put `other` on the copy, then run every AddPod extension. */
  sh_code (*sim_add_pod)(sh_sim* sim, const sh_pod* other, sh_status* status);
  /* Run the Filter plugins for the sim's pod on the copy, honouring pods nominated to
   * the node with priority >= the pod's (the two-pass rule of a normal cycle). */
  sh_code (*sim_filter)(sh_sim* sim, sh_status* status);
  void (*sim_end)(sh_sim* sim);

  /* Carry out a preemption decided in PostFilter: pods of lower priority than
   * `preemptor` lose their nomination to `node_name`; each victim is evicted (a pod
   * waiting on Permit is preempted in memory, an Error for its binding cycle; any other pod
   * gets the condition DisruptionTarget=True, reason PreemptionByScheduler, and is deleted
   * through the cluster connector) and a Preempted event is recorded on it. Returns SH_ERROR
   * with reasons when an eviction failed; the others still happen. With asynchronous
   * preemption (the default since host 1.4; see preemption_running) the evictions run on a
   * thread of the host after this call returns SH_SUCCESS, and a failure activates the
   * preemptor instead. Only during PostFilter (any
   * other point gets SH_ERROR); call it at most once per cycle, then nominate the node with
   * postfilter_nominate. Refused (a bad node name, more than 1048576 victims): SH_ERROR with
   * a reason, and nothing evicted. */
  sh_code (*preempt_victims)(sh_cycle* cycle, const sh_pod* preemptor, const char* node_name,
                             size_t len, const sh_pod* const* victims, size_t victim_count,
                             sh_status* status);

  /* -- Pods to activate (kube-scheduler's PodsToActivate) ------------------- */
  /* Ask the host to move the pending pod `ns`/`name` to activeQ: what a plugin that holds pods
   * back until others arrive (coscheduling) uses to bring them back. Any extension point that
   * has an sh_cycle may call it: PreFilter, Filter, PostFilter, PreScore, Score, Reserve,
   * Permit, PreBind, Bind, PostBind (and a sim's cycle, which shares the list). The host
   * collects the pods on the cycle and activates them at the end of a successful scheduling
   * cycle (Permit answered Success or Wait; the list is then emptied) and again at the end of
   * a successful binding cycle (after PostBind); a failed cycle activates nothing. A pod in
   * unschedulablePods or backoffQ moves to activeQ at once; a pod in flight is requeued when
   * its attempt ends; a pod the queue does not hold (unknown, bound, already in activeQ) is
   * ignored. A NULL cycle, or a NULL or empty ns or name, is ignored; refused: ignored. A pod
   * asked for more than once before an activation is activated once. Thread-safe. Only when abi_minor >= 1. */
  void (*cycle_activate_pod)(sh_cycle* cycle, const char* ns, size_t ns_len, const char* name, size_t name_len); /* since 1.1 */

  /* -- Objects of declared kinds (since 1.2; only when abi_minor >= 2) -----------------
   * `kind` is the index of the kind in the calling plugin's descriptor. `cycle` is the
   * sh_cycle of the call (any extension point that has one): reads then see the version of
   * the cycle, the same for every plugin. NULL reads the latest version (PreEnqueue,
   * queueing hints, a thread of the plugin's own). An assumed object (object_assume) hides
   * the stored one in both. An unknown kind index, or a kind the cluster does not serve
   * (its CustomResourceDefinition is not installed: the host says so once at startup),
   * reads as empty. */

  /* The object `ns`/`name` (ns empty for a cluster-scoped kind); NULL when there is none.
   * Refused: NULL. */
  const sh_object* (*object_get)(sh_host* host, sh_cycle* cycle, uint32_t kind,
                                 const char* ns, size_t ns_len, const char* name, size_t name_len); /* since 1.2 */
  /* The objects of the kind in namespace `ns` (empty: every namespace) whose labels match
   * `selector`, a label selector in kubectl's syntax ("app=web,tier in (a,b),!canary"; empty:
   * all), ordered by namespace then name. Returns the count; *out is valid until the same
   * thread calls object_list again, or the views' own lifetime ends, whichever comes first.
   * A selector that does not parse matches nothing and is counted as a failure of the
   * plugin. Refused (a NULL out): 0. */
  size_t (*object_list)(sh_host* host, sh_cycle* cycle, uint32_t kind, const char* ns,
                        size_t ns_len, const char* selector, size_t selector_len,
                        const sh_object* const** out); /* since 1.2 */
  /* The object's JSON text as the host holds it; as pod_json. NULL object: 0. */
  size_t (*object_json)(const sh_object* object, char* buf, size_t capacity); /* since 1.2 */

  /* The read-only JSON tree of an object; nodes live as long as their sh_object. Types are
   * sh_args_type; a NULL node is SH_ARGS_NULL, and every accessor answers a NULL node or a
   * node of another type with NULL, 0, 0.0 or {"", 0}. */
  int (*json_type)(const sh_json* node); /* since 1.2 */
  /* The member `key` of an object node; NULL when absent. */
  const sh_json* (*json_get)(const sh_json* node, const char* key, size_t len); /* since 1.2 */
  /* Follows a dotted path of member names and array indexes from `node`: "spec.minMember",
   * "status.conditions.0.type". NULL when any step is missing. */
  const sh_json* (*json_path)(const sh_json* node, const char* path, size_t len); /* since 1.2 */
  size_t (*json_size)(const sh_json* node);                        /* since 1.2 */
  const sh_json* (*json_at)(const sh_json* node, size_t index);    /* since 1.2 */
  sh_str (*json_key_at)(const sh_json* node, size_t index);        /* since 1.2 */
  int64_t (*json_int)(const sh_json* node);   /* integers, and doubles that are whole; since 1.2 */
  double (*json_double)(const sh_json* node); /* integers convert; since 1.2 */
  int (*json_bool)(const sh_json* node);      /* since 1.2 */
  sh_str (*json_string)(const sh_json* node); /* since 1.2 */

  /* Write through the host's client: the API server's rate limiter, retries and error
   * handling are the binding cycle's. Only from PostFilter, Reserve, Permit, PreBind, Bind
   * and PostBind; blocks until the API server answered. Returns SH_SUCCESS, or SH_ERROR with
   * the API's message as the reason (a verb the plugin did not declare on the kind, a call
   * from another point and a malformed body are refused the same way, with a reason that
   * names the plugin, the kind and the cause). The change reaches reads when the watch
   * delivers it; object_assume makes it visible before. Under `schedhost evaluate` and
   * `test` nothing is written: the write is reported in the output's bindingPlan. */
  sh_code (*object_write)(sh_host* host, sh_cycle* cycle, const sh_object_write* write,
                          sh_status* status); /* since 1.2 */
  /* Assume (upstream's assume cache): `json` is a changed version of a stored object of the
   * kind, with the same namespace and name and the resourceVersion it was derived from.
   * Reads return it in place of the stored one (sh_object.assumed is 1) until the watch
   * delivers a newer resourceVersion or the plugin calls object_restore. Refused with
   * SH_ERROR and a reason: no such stored object, a stored version newer than the assumed
   * one, a body that does not parse. Thread-safe. */
  sh_code (*object_assume)(sh_host* host, uint32_t kind, const char* json, size_t len,
                           sh_status* status); /* since 1.2 */
  /* Drops the assumed version of `ns`/`name`; reads see the stored one again. */
  void (*object_restore)(sh_host* host, uint32_t kind, const char* ns, size_t ns_len,
                         const char* name, size_t name_len); /* since 1.2 */

  /* -- Claims in use and manifests (since 1.3; only when abi_minor >= 3) -------------- */

  /* 1 when a pod of the snapshot (bound, or assumed by this scheduler) uses the
   * PersistentVolumeClaim `ns`/`name` through a persistentVolumeClaim or ephemeral volume
   * (upstream's usedPVCSet, the sum of the nodes' PVCRefCounts); 0 otherwise. Refused: 0. */
  int (*snapshot_pvc_in_use)(const sh_snapshot* snap, const char* ns, size_t ns_len,
                             const char* name, size_t name_len); /* since 1.3 */
  /* The read-only JSON tree (json_* services) of the manifest a pod or node was read from,
   * for fields its view does not carry (security contexts, limits, annotations). Parsed on
   * the first call for that pod or node and kept with it: the tree lives as long as the
   * sh_pod or sh_node it came from. Thread-safe. Refused (a NULL pod or node): NULL. */
  const sh_json* (*pod_manifest)(sh_host* host, const sh_pod* pod);    /* since 1.3 */
  const sh_json* (*node_manifest)(sh_host* host, const sh_node* node); /* since 1.3 */

  /* -- Planned writes and waits in the binding cycle (since 1.3) ----------------------- */

  /* 1 when object_write only plans its writes: under `schedhost evaluate` and `test` they go
   * to the output's bindingPlan and no controller ever acts on them. A plugin that would wait
   * for a controller to finish what it wrote (VolumeBinding's PreBind) returns at once then.
   * 0 on a cluster. */
  int (*writes_planned)(sh_host* host); /* since 1.3 */
  /* Waits up to `millis` milliseconds within a binding cycle (PreBind, Bind, PostBind) and
   * returns SH_WAIT_ELAPSED; returns as soon as the binding cycle is cancelled, with why:
   * SH_WAIT_STOPPING (the scheduler is stopping) or SH_WAIT_POD_DELETED (the pod was deleted
   * or is terminating). A plugin that polls the cluster waits through this, never with a
   * sleep of its own, so that neither a stop nor a deleted pod waits on it. Elsewhere (the
   * scheduling cycle, evaluate) nothing cancels the wait. Refused (a NULL cycle):
   * SH_WAIT_STOPPING. */
  int (*cycle_wait)(sh_host* host, sh_cycle* cycle, uint32_t millis); /* since 1.3 */

  /* -- Versions of a kind (since 1.3) --------------------------------------------------- */

  /* A number that names what object_get and object_list return for `kind` in `cycle` (or
   * now, when `cycle` is NULL): equal numbers, equal objects — assumed versions included.
   * It changes with every change of the kind, and is never reused within the process. A
   * plugin that derives something from every object of a kind (counts per node, an index)
   * keeps it across cycles and derives it again only when the number changes. Refused (an
   * unknown kind): 0, which names no version. Thread-safe. */
  uint64_t (*object_kind_version)(sh_host* host, sh_cycle* cycle, uint32_t kind); /* since 1.3 */

  /* -- Asynchronous preemption and extenders (since 1.4; only when abi_minor >= 4) ------- */

  /* 1 while the victims of a preemption made for `pod` (matched by uid) are still being
   * evicted: preempt_victims hands the evictions to a thread of the host and returns (the
   * scheduler's SchedulerAsyncPreemption, on by default), and the preemptor is not worth
   * scheduling again until they are done. What DefaultPreemption's PreEnqueue asks (upstream
   * Executor.IsPodRunningPreemption): 0 as soon as the last victim is gone or terminating,
   * even before the evicting thread has finished. Always 0 when evictions run within
   * preempt_victims. Refused (a NULL pod): 0. */
  int (*preemption_running)(sh_host* host, const sh_pod* pod); /* since 1.4 */
  /* Offers a PostFilter's preemption candidates to the scheduler's HTTP extenders that take
   * part in preemption (preemptVerb) and are interested in `preemptor`, in their configured
   * order, each given what the one before it kept (upstream Evaluator.callExtenders). Returns
   * the number of candidates left and stores them through `out`, valid for the cycle: the
   * candidates given, in their order, when no extender takes part; otherwise the nodes the
   * extenders kept, with the victims they named, ordered by node name. An ignorable extender
   * that fails, or keeps a node without victims, is passed over (that node dropped); any other
   * failure returns 0 and adds its reasons to `status` (a status from status_create), which
   * the plugin returns as an Error. Only during PostFilter (elsewhere: 0 and a reason).
   * Refused (NULL cycle, preemptor or out, NULL candidates with a count): 0 and a reason. */
  size_t (*preemption_extenders)(sh_cycle* cycle, const sh_pod* preemptor,
                                 const sh_preemption_candidate* candidates,
                                 size_t candidate_count, sh_status* status,
                                 const sh_preemption_candidate** out); /* since 1.4 */
} sh_host_api;

/* ======================================================================== */
/* 7. Entry point                                                           */
/* ======================================================================== */

/*
 * A kind of object the plugin reads (since 1.2), as the API server serves it:
 * /api/v1/<resource> for the core group, /apis/<group>/<version>/<resource> otherwise.
 * `verbs` lists the writes the plugin makes (SH_VERB_*; 0: read only); reading is always
 * allowed. `label_selector` and `field_selector` (NULL or "": none) narrow what the host
 * watches, in the API's syntax; an object outside them is not there for the plugin. The
 * host refuses the plugin, naming it and the kind, when a name is empty or not a valid DNS
 * name (the group: a DNS subdomain, the resource: lower-case), a selector does not parse,
 * two kinds of the plugin are the same, or there are more than SH_MAX_DECLARED_KINDS.
 */
typedef struct sh_object_kind {
  uint32_t struct_size;
  uint32_t verbs;           /* SH_VERB_* bits                                        */
  const char* group;        /* "" for the core group, "scheduling.x-k8s.io"          */
  const char* version;      /* "v1", "v1alpha1"                                      */
  const char* resource;     /* the plural the API serves: "podgroups"                */
  const char* kind;         /* "PodGroup": the objects' kind                         */
  int32_t namespaced;       /* 1 for a namespaced kind                               */
  int32_t reserved_;
  const char* label_selector;
  const char* field_selector;
} sh_object_kind;

/* Descriptor flags. */
#define SH_PLUGIN_SERIALIZE 1u /* the host never calls this plugin concurrently */

/* Extension-point bits, used in the descriptor's metadata and in the ELF note. */
#define SH_POINT_PRE_ENQUEUE (1u << 0)
#define SH_POINT_QUEUE_SORT (1u << 1)
#define SH_POINT_PRE_FILTER (1u << 2)
#define SH_POINT_FILTER (1u << 3)
#define SH_POINT_POST_FILTER (1u << 4)
#define SH_POINT_PRE_SCORE (1u << 5)
#define SH_POINT_SCORE (1u << 6)
#define SH_POINT_RESERVE (1u << 7)
#define SH_POINT_PERMIT (1u << 8)
#define SH_POINT_PRE_BIND (1u << 9)
#define SH_POINT_BIND (1u << 10)
#define SH_POINT_POST_BIND (1u << 11)

/*
 * What the entry point returns. The descriptor and everything it points to are
 * static data of the plugin and live as long as the library is loaded.
 *
 * create: build an instance from `args` (the profile's pluginConfig args, merged
 *   over default_args_json). Report bad args with host->args_error and return NULL.
 *   `host` and `api` stay valid until destroy returns.
 * destroy: free the instance; join any thread the plugin started.
 */
typedef struct sh_plugin_descriptor {
  uint32_t struct_size;
  uint16_t abi_major;       /* SH_ABI_MAJOR the plugin was built with */
  uint16_t abi_minor;       /* SH_ABI_MINOR the plugin was built with */
  const char* name;         /* the plugin name profiles use, e.g. "NodeResourcesFit" */
  const char* version;      /* the plugin's own version, e.g. "1.36.0" */
  const char* default_args_json; /* "{}" or NULL when the plugin takes no args */
  uint32_t flags;           /* SH_PLUGIN_* */
  uint32_t reserved_;
  void* (*create)(const sh_host_api* api, sh_host* host, const sh_args* args);
  void (*destroy)(void* self);
  const sh_plugin_vtable* vtable;
  const sh_object_kind* kinds; /* the kinds it reads and writes; NULL: none. since 1.2 */
  uint32_t kind_count;         /* since 1.2 */
  uint32_t reserved2_;         /* since 1.2 */
} sh_plugin_descriptor;

/* The only symbol a plugin exports. */
typedef const sh_plugin_descriptor* (*sh_plugin_entry_fn)(void);

/*
 * Metadata the host reads from the file without running it (schedhost plugin
 * inspect). It lives in the ELF section ".shmeta"; SH_PLUGIN_METADATA emits it (in
 * C++, SCHEDHOST_PLUGIN does).
 * Fixed size, no pointers, so it needs no relocation.
 */
#define SH_META_MAGIC "SHMETA01"
#define SH_META_SECTION ".shmeta"

typedef struct sh_plugin_metadata {
  char magic[8];          /* SH_META_MAGIC, not NUL-terminated */
  uint32_t struct_size;
  uint16_t abi_major;
  uint16_t abi_minor;
  uint32_t points;        /* SH_POINT_* bits */
  uint32_t flags;
  char name[64];          /* NUL-terminated */
  char version[32];       /* NUL-terminated */
} sh_plugin_metadata;

#if defined(__GNUC__)
#define SH_EXPORT __attribute__((visibility("default")))
#define SH_META_ATTR __attribute__((section(".shmeta"), used, aligned(8)))
#else
#define SH_EXPORT
#define SH_META_ATTR
#endif

/* Emit the metadata record; use once per plugin at file scope. */
#define SH_PLUGIN_METADATA(ident, plugin_name, plugin_version, point_bits, flag_bits)  \
  SH_META_ATTR const sh_plugin_metadata ident = {                                       \
      {'S', 'H', 'M', 'E', 'T', 'A', '0', '1'}, sizeof(sh_plugin_metadata),             \
      SH_ABI_MAJOR, SH_ABI_MINOR, (point_bits), (flag_bits), plugin_name, plugin_version}

/* NOLINTEND(readability-identifier-naming) */
#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SCHEDHOST_PLUGIN_H */
