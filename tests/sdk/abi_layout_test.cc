// Pins the ABI of plugin.h on x86_64: the size, alignment and field offsets of every struct,
// and the value of every constant. A change here is an ABI change: within major 1 only
// appending fields (a bigger size, new offsets at the end) and new constants are allowed, and
// then this file is updated in the same commit. Generated from plugin.h by listing every
// field; keep it exhaustive.
#include <schedhost/plugin.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

// The C view of the structs (abi_layout_c.c computes it with a C compiler).
// C functions of abi_layout_c.c, named as C names them.
// NOLINTBEGIN(readability-identifier-naming)
extern "C" std::size_t sh_test_c_layout(std::size_t index);
extern "C" std::size_t sh_test_c_layout_count(void);
// NOLINTEND(readability-identifier-naming)

namespace {

struct Pin {
  const char* what;
  std::size_t actual;
  std::size_t expected;
};

#define SH_SIZE(T, size, align) \
  {"sizeof(" #T ")", sizeof(T), size}, {"alignof(" #T ")", alignof(T), align},
#define SH_FIELD(T, f, off) {"offsetof(" #T ", " #f ")", offsetof(T, f), off},
#define SH_CONST(c, v) {#c, static_cast<std::size_t>(c), v},

#if defined(__x86_64__)
// clang-format off
constexpr Pin kLayout[] = {
    SH_SIZE(sh_str, 16, 8)
    SH_FIELD(sh_str, ptr, 0)
    SH_FIELD(sh_str, len, 8)
    SH_SIZE(sh_label, 40, 8)
    SH_FIELD(sh_label, key, 0)
    SH_FIELD(sh_label, value, 4)
    SH_FIELD(sh_label, key_str, 8)
    SH_FIELD(sh_label, value_str, 24)
    SH_SIZE(sh_quantity, 16, 8)
    SH_FIELD(sh_quantity, name, 0)
    SH_FIELD(sh_quantity, value, 8)
    SH_SIZE(sh_resources, 48, 8)
    SH_FIELD(sh_resources, milli_cpu, 0)
    SH_FIELD(sh_resources, memory, 8)
    SH_FIELD(sh_resources, ephemeral_storage, 16)
    SH_FIELD(sh_resources, allowed_pod_number, 24)
    SH_FIELD(sh_resources, scalars, 32)
    SH_FIELD(sh_resources, scalar_count, 40)
    SH_FIELD(sh_resources, reserved_, 44)
    SH_SIZE(sh_taint, 16, 4)
    SH_FIELD(sh_taint, key, 0)
    SH_FIELD(sh_taint, value, 4)
    SH_FIELD(sh_taint, effect, 8)
    SH_FIELD(sh_taint, reserved_, 12)
    SH_SIZE(sh_toleration, 24, 8)
    SH_FIELD(sh_toleration, key, 0)
    SH_FIELD(sh_toleration, value, 4)
    SH_FIELD(sh_toleration, op, 8)
    SH_FIELD(sh_toleration, effect, 12)
    SH_FIELD(sh_toleration, toleration_seconds, 16)
    SH_SIZE(sh_host_port, 24, 8)
    SH_FIELD(sh_host_port, host_ip, 0)
    SH_FIELD(sh_host_port, protocol, 16)
    SH_FIELD(sh_host_port, port, 20)
    SH_SIZE(sh_requirement, 40, 8)
    SH_FIELD(sh_requirement, key, 0)
    SH_FIELD(sh_requirement, op, 4)
    SH_FIELD(sh_requirement, number_ok, 8)
    SH_FIELD(sh_requirement, values, 16)
    SH_FIELD(sh_requirement, value_count, 24)
    SH_FIELD(sh_requirement, reserved_, 28)
    SH_FIELD(sh_requirement, number, 32)
    SH_SIZE(sh_node_selector_term, 24, 8)
    SH_FIELD(sh_node_selector_term, match_expressions, 0)
    SH_FIELD(sh_node_selector_term, match_expression_count, 8)
    SH_FIELD(sh_node_selector_term, match_field_count, 12)
    SH_FIELD(sh_node_selector_term, match_fields, 16)
    SH_SIZE(sh_preferred_term, 32, 8)
    SH_FIELD(sh_preferred_term, weight, 0)
    SH_FIELD(sh_preferred_term, reserved_, 4)
    SH_FIELD(sh_preferred_term, preference, 8)
    SH_SIZE(sh_node_affinity, 32, 8)
    SH_FIELD(sh_node_affinity, has_required, 0)
    SH_FIELD(sh_node_affinity, required_count, 4)
    SH_FIELD(sh_node_affinity, required, 8)
    SH_FIELD(sh_node_affinity, preferred, 16)
    SH_FIELD(sh_node_affinity, preferred_count, 24)
    SH_FIELD(sh_node_affinity, reserved_, 28)
    SH_SIZE(sh_label_selector, 24, 8)
    SH_FIELD(sh_label_selector, match_labels, 0)
    SH_FIELD(sh_label_selector, match_label_count, 8)
    SH_FIELD(sh_label_selector, match_expression_count, 12)
    SH_FIELD(sh_label_selector, match_expressions, 16)
    SH_SIZE(sh_pod_affinity_term, 56, 8)
    SH_FIELD(sh_pod_affinity_term, label_selector, 0)
    SH_FIELD(sh_pod_affinity_term, namespace_selector, 8)
    SH_FIELD(sh_pod_affinity_term, namespaces, 16)
    SH_FIELD(sh_pod_affinity_term, namespace_count, 24)
    SH_FIELD(sh_pod_affinity_term, topology_key, 28)
    SH_FIELD(sh_pod_affinity_term, match_label_keys, 32)
    SH_FIELD(sh_pod_affinity_term, match_label_key_count, 40)
    SH_FIELD(sh_pod_affinity_term, mismatch_label_key_count, 44)
    SH_FIELD(sh_pod_affinity_term, mismatch_label_keys, 48)
    SH_SIZE(sh_weighted_pod_affinity_term, 64, 8)
    SH_FIELD(sh_weighted_pod_affinity_term, weight, 0)
    SH_FIELD(sh_weighted_pod_affinity_term, reserved_, 4)
    SH_FIELD(sh_weighted_pod_affinity_term, term, 8)
    SH_SIZE(sh_pod_affinity, 24, 8)
    SH_FIELD(sh_pod_affinity, required, 0)
    SH_FIELD(sh_pod_affinity, required_count, 8)
    SH_FIELD(sh_pod_affinity, preferred_count, 12)
    SH_FIELD(sh_pod_affinity, preferred, 16)
    SH_SIZE(sh_topology_spread_constraint, 48, 8)
    SH_FIELD(sh_topology_spread_constraint, max_skew, 0)
    SH_FIELD(sh_topology_spread_constraint, when_unsatisfiable, 4)
    SH_FIELD(sh_topology_spread_constraint, topology_key, 8)
    SH_FIELD(sh_topology_spread_constraint, min_domains, 12)
    SH_FIELD(sh_topology_spread_constraint, label_selector, 16)
    SH_FIELD(sh_topology_spread_constraint, node_affinity_policy, 24)
    SH_FIELD(sh_topology_spread_constraint, node_taints_policy, 28)
    SH_FIELD(sh_topology_spread_constraint, match_label_keys, 32)
    SH_FIELD(sh_topology_spread_constraint, match_label_key_count, 40)
    SH_FIELD(sh_topology_spread_constraint, reserved_, 44)
    SH_SIZE(sh_owner_ref, 72, 8)
    SH_FIELD(sh_owner_ref, api_version, 0)
    SH_FIELD(sh_owner_ref, kind, 16)
    SH_FIELD(sh_owner_ref, name, 32)
    SH_FIELD(sh_owner_ref, uid, 48)
    SH_FIELD(sh_owner_ref, controller, 64)
    SH_FIELD(sh_owner_ref, reserved_, 68)
    SH_SIZE(sh_pod, 360, 8)
    SH_FIELD(sh_pod, struct_size, 0)
    SH_FIELD(sh_pod, reserved_, 4)
    SH_FIELD(sh_pod, uid, 8)
    SH_FIELD(sh_pod, name, 24)
    SH_FIELD(sh_pod, namespace_, 40)
    SH_FIELD(sh_pod, node_name, 56)
    SH_FIELD(sh_pod, scheduler_name, 72)
    SH_FIELD(sh_pod, nominated_node_name, 88)
    SH_FIELD(sh_pod, priority, 104)
    SH_FIELD(sh_pod, preemption_policy, 108)
    SH_FIELD(sh_pod, creation_unix_nanos, 112)
    SH_FIELD(sh_pod, start_unix_nanos, 120)
    SH_FIELD(sh_pod, deleting, 128)
    SH_FIELD(sh_pod, phase_terminal, 132)
    SH_FIELD(sh_pod, labels, 136)
    SH_FIELD(sh_pod, label_count, 144)
    SH_FIELD(sh_pod, toleration_count, 148)
    SH_FIELD(sh_pod, tolerations, 152)
    SH_FIELD(sh_pod, requests, 160)
    SH_FIELD(sh_pod, non_zero_milli_cpu, 208)
    SH_FIELD(sh_pod, non_zero_memory, 216)
    SH_FIELD(sh_pod, host_ports, 224)
    SH_FIELD(sh_pod, host_port_count, 232)
    SH_FIELD(sh_pod, node_selector_count, 236)
    SH_FIELD(sh_pod, node_selector, 240)
    SH_FIELD(sh_pod, node_affinity, 248)
    SH_FIELD(sh_pod, pod_affinity, 256)
    SH_FIELD(sh_pod, pod_anti_affinity, 264)
    SH_FIELD(sh_pod, scheduling_gates, 272)
    SH_FIELD(sh_pod, scheduling_gate_count, 280)
    SH_FIELD(sh_pod, image_count, 284)
    SH_FIELD(sh_pod, images, 288)
    SH_FIELD(sh_pod, container_count, 296)
    SH_FIELD(sh_pod, topology_spread_constraint_count, 300)
    SH_FIELD(sh_pod, topology_spread_constraints, 304)
    SH_FIELD(sh_pod, owner_refs, 312)
    SH_FIELD(sh_pod, owner_ref_count, 320)
    SH_FIELD(sh_pod, condition_count, 324)
    SH_FIELD(sh_pod, conditions, 328)
    SH_FIELD(sh_pod, volumes, 336)
    SH_FIELD(sh_pod, volume_count, 344)
    SH_FIELD(sh_pod, resource_claim_count, 348)
    SH_FIELD(sh_pod, spec_fields, 352)
    SH_FIELD(sh_pod, reserved2_, 356)
    SH_SIZE(sh_pod_condition, 48, 8)
    SH_FIELD(sh_pod_condition, type, 0)
    SH_FIELD(sh_pod_condition, status, 16)
    SH_FIELD(sh_pod_condition, reason, 32)
    SH_SIZE(sh_volume, 112, 8)
    SH_FIELD(sh_volume, struct_size, 0)
    SH_FIELD(sh_volume, source, 4)
    SH_FIELD(sh_volume, name, 8)
    SH_FIELD(sh_volume, claim, 24)
    SH_FIELD(sh_volume, handle, 40)
    SH_FIELD(sh_volume, driver, 56)
    SH_FIELD(sh_volume, pool, 72)
    SH_FIELD(sh_volume, monitors, 88)
    SH_FIELD(sh_volume, monitor_count, 96)
    SH_FIELD(sh_volume, lun, 100)
    SH_FIELD(sh_volume, read_only, 104)
    SH_FIELD(sh_volume, reserved_, 108)
    SH_SIZE(sh_pdb, 64, 8)
    SH_FIELD(sh_pdb, struct_size, 0)
    SH_FIELD(sh_pdb, disruptions_allowed, 4)
    SH_FIELD(sh_pdb, namespace_, 8)
    SH_FIELD(sh_pdb, name, 24)
    SH_FIELD(sh_pdb, selector, 40)
    SH_FIELD(sh_pdb, disrupted_pods, 48)
    SH_FIELD(sh_pdb, disrupted_pod_count, 56)
    SH_FIELD(sh_pdb, reserved_, 60)
    SH_SIZE(sh_preemption_candidate, 32, 8)
    SH_FIELD(sh_preemption_candidate, node_name, 0)
    SH_FIELD(sh_preemption_candidate, victims, 16)
    SH_FIELD(sh_preemption_candidate, victim_count, 24)
    SH_FIELD(sh_preemption_candidate, pdb_violations, 28)
    SH_SIZE(sh_object, 136, 8)
    SH_FIELD(sh_object, struct_size, 0)
    SH_FIELD(sh_object, label_count, 4)
    SH_FIELD(sh_object, api_version, 8)
    SH_FIELD(sh_object, kind, 24)
    SH_FIELD(sh_object, namespace_, 40)
    SH_FIELD(sh_object, name, 56)
    SH_FIELD(sh_object, uid, 72)
    SH_FIELD(sh_object, resource_version, 88)
    SH_FIELD(sh_object, labels, 104)
    SH_FIELD(sh_object, root, 112)
    SH_FIELD(sh_object, creation_unix_nanos, 120)
    SH_FIELD(sh_object, deleting, 128)
    SH_FIELD(sh_object, assumed, 132)
    SH_SIZE(sh_image, 16, 8)
    SH_FIELD(sh_image, name, 0)
    SH_FIELD(sh_image, reserved_, 4)
    SH_FIELD(sh_image, size_bytes, 8)
    SH_SIZE(sh_node, 128, 8)
    SH_FIELD(sh_node, struct_size, 0)
    SH_FIELD(sh_node, unschedulable, 4)
    SH_FIELD(sh_node, name, 8)
    SH_FIELD(sh_node, name_id, 24)
    SH_FIELD(sh_node, label_count, 28)
    SH_FIELD(sh_node, labels, 32)
    SH_FIELD(sh_node, taints, 40)
    SH_FIELD(sh_node, taint_count, 48)
    SH_FIELD(sh_node, image_count, 52)
    SH_FIELD(sh_node, images, 56)
    SH_FIELD(sh_node, allocatable, 64)
    SH_FIELD(sh_node, declared_features, 112)
    SH_FIELD(sh_node, declared_feature_count, 120)
    SH_FIELD(sh_node, reserved_, 124)
    SH_SIZE(sh_image_state, 16, 8)
    SH_FIELD(sh_image_state, name, 0)
    SH_FIELD(sh_image_state, num_nodes, 4)
    SH_FIELD(sh_image_state, size_bytes, 8)
    SH_SIZE(sh_node_info, 144, 8)
    SH_FIELD(sh_node_info, struct_size, 0)
    SH_FIELD(sh_node_info, pod_count, 4)
    SH_FIELD(sh_node_info, node, 8)
    SH_FIELD(sh_node_info, pods, 16)
    SH_FIELD(sh_node_info, requested, 24)
    SH_FIELD(sh_node_info, non_zero_milli_cpu, 72)
    SH_FIELD(sh_node_info, non_zero_memory, 80)
    SH_FIELD(sh_node_info, used_ports, 88)
    SH_FIELD(sh_node_info, used_port_count, 96)
    SH_FIELD(sh_node_info, image_state_count, 100)
    SH_FIELD(sh_node_info, image_states, 104)
    SH_FIELD(sh_node_info, generation, 112)
    SH_FIELD(sh_node_info, pods_with_affinity, 120)
    SH_FIELD(sh_node_info, pods_with_affinity_count, 128)
    SH_FIELD(sh_node_info, pods_with_required_anti_affinity_count, 132)
    SH_FIELD(sh_node_info, pods_with_required_anti_affinity, 136)
    SH_SIZE(sh_queued_pod, 24, 8)
    SH_FIELD(sh_queued_pod, struct_size, 0)
    SH_FIELD(sh_queued_pod, attempts, 4)
    SH_FIELD(sh_queued_pod, pod, 8)
    SH_FIELD(sh_queued_pod, timestamp_unix_nanos, 16)
    SH_SIZE(sh_node_score, 16, 8)
    SH_FIELD(sh_node_score, node, 0)
    SH_FIELD(sh_node_score, score, 8)
    SH_SIZE(sh_event_registration, 16, 4)
    SH_FIELD(sh_event_registration, resource, 0)
    SH_FIELD(sh_event_registration, actions, 4)
    SH_FIELD(sh_event_registration, has_hint, 8)
    SH_FIELD(sh_event_registration, reserved_, 12)
    SH_SIZE(sh_event_objects, 72, 8)
    SH_FIELD(sh_event_objects, struct_size, 0)
    SH_FIELD(sh_event_objects, resource, 4)
    SH_FIELD(sh_event_objects, actions, 8)
    SH_FIELD(sh_event_objects, reserved_, 12)
    SH_FIELD(sh_event_objects, old_pod, 16)
    SH_FIELD(sh_event_objects, new_pod, 24)
    SH_FIELD(sh_event_objects, old_node, 32)
    SH_FIELD(sh_event_objects, new_node, 40)
    SH_FIELD(sh_event_objects, old_object, 48)
    SH_FIELD(sh_event_objects, new_object, 56)
    SH_FIELD(sh_event_objects, kind, 64)
    SH_FIELD(sh_event_objects, reserved2_, 68)
    SH_SIZE(sh_plugin_vtable, 152, 8)
    SH_FIELD(sh_plugin_vtable, struct_size, 0)
    SH_FIELD(sh_plugin_vtable, reserved_, 4)
    SH_FIELD(sh_plugin_vtable, pre_enqueue, 8)
    SH_FIELD(sh_plugin_vtable, queue_sort_less, 16)
    SH_FIELD(sh_plugin_vtable, pre_filter, 24)
    SH_FIELD(sh_plugin_vtable, pre_filter_add_pod, 32)
    SH_FIELD(sh_plugin_vtable, pre_filter_remove_pod, 40)
    SH_FIELD(sh_plugin_vtable, filter, 48)
    SH_FIELD(sh_plugin_vtable, post_filter, 56)
    SH_FIELD(sh_plugin_vtable, pre_score, 64)
    SH_FIELD(sh_plugin_vtable, score, 72)
    SH_FIELD(sh_plugin_vtable, normalize_score, 80)
    SH_FIELD(sh_plugin_vtable, reserve, 88)
    SH_FIELD(sh_plugin_vtable, unreserve, 96)
    SH_FIELD(sh_plugin_vtable, permit, 104)
    SH_FIELD(sh_plugin_vtable, pre_bind, 112)
    SH_FIELD(sh_plugin_vtable, bind, 120)
    SH_FIELD(sh_plugin_vtable, post_bind, 128)
    SH_FIELD(sh_plugin_vtable, events_to_register, 136)
    SH_FIELD(sh_plugin_vtable, queueing_hint, 144)
    SH_SIZE(sh_object_write, 64, 8)
    SH_FIELD(sh_object_write, struct_size, 0)
    SH_FIELD(sh_object_write, verb, 4)
    SH_FIELD(sh_object_write, kind, 8)
    SH_FIELD(sh_object_write, patch_type, 12)
    SH_FIELD(sh_object_write, namespace_, 16)
    SH_FIELD(sh_object_write, name, 32)
    SH_FIELD(sh_object_write, body, 48)
    SH_SIZE(sh_state_ops, 16, 8)
    SH_FIELD(sh_state_ops, clone, 0)
    SH_FIELD(sh_state_ops, free, 8)
    SH_SIZE(sh_host_api, 584, 8)
    SH_FIELD(sh_host_api, struct_size, 0)
    SH_FIELD(sh_host_api, abi_major, 4)
    SH_FIELD(sh_host_api, abi_minor, 6)
    SH_FIELD(sh_host_api, log, 8)
    SH_FIELD(sh_host_api, status_add_reason, 16)
    SH_FIELD(sh_host_api, intern, 24)
    SH_FIELD(sh_host_api, id_str, 32)
    SH_FIELD(sh_host_api, args_type, 40)
    SH_FIELD(sh_host_api, args_get, 48)
    SH_FIELD(sh_host_api, args_size, 56)
    SH_FIELD(sh_host_api, args_at, 64)
    SH_FIELD(sh_host_api, args_key_at, 72)
    SH_FIELD(sh_host_api, args_int, 80)
    SH_FIELD(sh_host_api, args_double, 88)
    SH_FIELD(sh_host_api, args_bool, 96)
    SH_FIELD(sh_host_api, args_string, 104)
    SH_FIELD(sh_host_api, args_error, 112)
    SH_FIELD(sh_host_api, cycle_write, 120)
    SH_FIELD(sh_host_api, cycle_read, 128)
    SH_FIELD(sh_host_api, cycle_snapshot, 136)
    SH_FIELD(sh_host_api, snapshot_node_count, 144)
    SH_FIELD(sh_host_api, snapshot_node_at, 152)
    SH_FIELD(sh_host_api, snapshot_node_by_name, 160)
    SH_FIELD(sh_host_api, snapshot_nodes_with_affinity_pods, 168)
    SH_FIELD(sh_host_api, snapshot_nodes_with_required_anti_affinity_pods, 176)
    SH_FIELD(sh_host_api, prefilter_result_add_node, 184)
    SH_FIELD(sh_host_api, node_filter_code, 192)
    SH_FIELD(sh_host_api, postfilter_nominate, 200)
    SH_FIELD(sh_host_api, waiting_pod_allow, 208)
    SH_FIELD(sh_host_api, waiting_pod_reject, 216)
    SH_FIELD(sh_host_api, bind_pod, 224)
    SH_FIELD(sh_host_api, pod_json, 232)
    SH_FIELD(sh_host_api, node_json, 240)
    SH_FIELD(sh_host_api, namespace_labels, 248)
    SH_FIELD(sh_host_api, workload_selectors, 256)
    SH_FIELD(sh_host_api, status_create, 264)
    SH_FIELD(sh_host_api, status_destroy, 272)
    SH_FIELD(sh_host_api, status_reason_count, 280)
    SH_FIELD(sh_host_api, status_reason_at, 288)
    SH_FIELD(sh_host_api, pod_disruption_budgets, 296)
    SH_FIELD(sh_host_api, cycle_random, 304)
    SH_FIELD(sh_host_api, parallel_for, 312)
    SH_FIELD(sh_host_api, sim_begin, 320)
    SH_FIELD(sh_host_api, sim_node_info, 328)
    SH_FIELD(sh_host_api, sim_cycle, 336)
    SH_FIELD(sh_host_api, sim_remove_pod, 344)
    SH_FIELD(sh_host_api, sim_add_pod, 352)
    SH_FIELD(sh_host_api, sim_filter, 360)
    SH_FIELD(sh_host_api, sim_end, 368)
    SH_FIELD(sh_host_api, preempt_victims, 376)
    SH_FIELD(sh_host_api, cycle_activate_pod, 384)
    SH_FIELD(sh_host_api, object_get, 392)
    SH_FIELD(sh_host_api, object_list, 400)
    SH_FIELD(sh_host_api, object_json, 408)
    SH_FIELD(sh_host_api, json_type, 416)
    SH_FIELD(sh_host_api, json_get, 424)
    SH_FIELD(sh_host_api, json_path, 432)
    SH_FIELD(sh_host_api, json_size, 440)
    SH_FIELD(sh_host_api, json_at, 448)
    SH_FIELD(sh_host_api, json_key_at, 456)
    SH_FIELD(sh_host_api, json_int, 464)
    SH_FIELD(sh_host_api, json_double, 472)
    SH_FIELD(sh_host_api, json_bool, 480)
    SH_FIELD(sh_host_api, json_string, 488)
    SH_FIELD(sh_host_api, object_write, 496)
    SH_FIELD(sh_host_api, object_assume, 504)
    SH_FIELD(sh_host_api, object_restore, 512)
    SH_FIELD(sh_host_api, snapshot_pvc_in_use, 520)
    SH_FIELD(sh_host_api, pod_manifest, 528)
    SH_FIELD(sh_host_api, node_manifest, 536)
    SH_FIELD(sh_host_api, writes_planned, 544)
    SH_FIELD(sh_host_api, cycle_wait, 552)
    SH_FIELD(sh_host_api, object_kind_version, 560)
    SH_FIELD(sh_host_api, preemption_running, 568)
    SH_FIELD(sh_host_api, preemption_extenders, 576)
    SH_SIZE(sh_object_kind, 64, 8)
    SH_FIELD(sh_object_kind, struct_size, 0)
    SH_FIELD(sh_object_kind, verbs, 4)
    SH_FIELD(sh_object_kind, group, 8)
    SH_FIELD(sh_object_kind, version, 16)
    SH_FIELD(sh_object_kind, resource, 24)
    SH_FIELD(sh_object_kind, kind, 32)
    SH_FIELD(sh_object_kind, namespaced, 40)
    SH_FIELD(sh_object_kind, reserved_, 44)
    SH_FIELD(sh_object_kind, label_selector, 48)
    SH_FIELD(sh_object_kind, field_selector, 56)
    SH_SIZE(sh_plugin_descriptor, 80, 8)
    SH_FIELD(sh_plugin_descriptor, struct_size, 0)
    SH_FIELD(sh_plugin_descriptor, abi_major, 4)
    SH_FIELD(sh_plugin_descriptor, abi_minor, 6)
    SH_FIELD(sh_plugin_descriptor, name, 8)
    SH_FIELD(sh_plugin_descriptor, version, 16)
    SH_FIELD(sh_plugin_descriptor, default_args_json, 24)
    SH_FIELD(sh_plugin_descriptor, flags, 32)
    SH_FIELD(sh_plugin_descriptor, reserved_, 36)
    SH_FIELD(sh_plugin_descriptor, create, 40)
    SH_FIELD(sh_plugin_descriptor, destroy, 48)
    SH_FIELD(sh_plugin_descriptor, vtable, 56)
    SH_FIELD(sh_plugin_descriptor, kinds, 64)
    SH_FIELD(sh_plugin_descriptor, kind_count, 72)
    SH_FIELD(sh_plugin_descriptor, reserved2_, 76)
    SH_SIZE(sh_plugin_metadata, 120, 4)
    SH_FIELD(sh_plugin_metadata, magic, 0)
    SH_FIELD(sh_plugin_metadata, struct_size, 8)
    SH_FIELD(sh_plugin_metadata, abi_major, 12)
    SH_FIELD(sh_plugin_metadata, abi_minor, 14)
    SH_FIELD(sh_plugin_metadata, points, 16)
    SH_FIELD(sh_plugin_metadata, flags, 20)
    SH_FIELD(sh_plugin_metadata, name, 24)
    SH_FIELD(sh_plugin_metadata, version, 88)
};
// clang-format on
#endif

// clang-format off
constexpr Pin kConstants[] = {
    SH_CONST(SH_ABI_MAJOR, 1)
    SH_CONST(SH_ABI_MINOR, 4)
    SH_CONST(SH_ID_NONE, 0)
    SH_CONST(SH_ID_CPU, 1)
    SH_CONST(SH_ID_MEMORY, 2)
    SH_CONST(SH_ID_EPHEMERAL_STORAGE, 3)
    SH_CONST(SH_ID_PODS, 4)
    SH_CONST(SH_ID_HOSTNAME, 5)
    SH_CONST(SH_ID_ZONE, 6)
    SH_CONST(SH_ID_REGION, 7)
    SH_CONST(SH_ID_EMPTY, 8)
    SH_CONST(SH_WELL_KNOWN_END, 16)
    SH_CONST(SH_SUCCESS, 0)
    SH_CONST(SH_ERROR, 1)
    SH_CONST(SH_UNSCHEDULABLE, 2)
    SH_CONST(SH_UNSCHEDULABLE_AND_UNRESOLVABLE, 3)
    SH_CONST(SH_WAIT, 4)
    SH_CONST(SH_SKIP, 5)
    SH_CONST(SH_PENDING, 6)
    SH_CONST(SH_CODE_COUNT, 7)
    SH_CONST(SH_QUEUE_SKIP, 0)
    SH_CONST(SH_QUEUE, 1)
    SH_CONST(SH_MIN_NODE_SCORE, 0)
    SH_CONST(SH_MAX_NODE_SCORE, 100)
    SH_CONST(SH_EFFECT_NONE, 0)
    SH_CONST(SH_EFFECT_NO_SCHEDULE, 1)
    SH_CONST(SH_EFFECT_PREFER_NO_SCHEDULE, 2)
    SH_CONST(SH_EFFECT_NO_EXECUTE, 3)
    SH_CONST(SH_TOLERATION_EQUAL, 0)
    SH_CONST(SH_TOLERATION_EXISTS, 1)
    SH_CONST(SH_TOLERATION_LT, 2)
    SH_CONST(SH_TOLERATION_GT, 3)
    SH_CONST(SH_TOLERATION_UNKNOWN, 4)
    SH_CONST(SH_PROTO_TCP, 0)
    SH_CONST(SH_PROTO_UDP, 1)
    SH_CONST(SH_PROTO_SCTP, 2)
    SH_CONST(SH_OP_IN, 0)
    SH_CONST(SH_OP_NOT_IN, 1)
    SH_CONST(SH_OP_EXISTS, 2)
    SH_CONST(SH_OP_DOES_NOT_EXIST, 3)
    SH_CONST(SH_OP_GT, 4)
    SH_CONST(SH_OP_LT, 5)
    SH_CONST(SH_DO_NOT_SCHEDULE, 0)
    SH_CONST(SH_SCHEDULE_ANYWAY, 1)
    SH_CONST(SH_POLICY_UNSET, 0)
    SH_CONST(SH_POLICY_HONOR, 1)
    SH_CONST(SH_POLICY_IGNORE, 2)
    SH_CONST(SH_VOLUME_OTHER, 0)
    SH_CONST(SH_VOLUME_PVC, 1)
    SH_CONST(SH_VOLUME_EPHEMERAL, 2)
    SH_CONST(SH_VOLUME_CSI, 3)
    SH_CONST(SH_VOLUME_GCE_PD, 4)
    SH_CONST(SH_VOLUME_AWS_EBS, 5)
    SH_CONST(SH_VOLUME_RBD, 6)
    SH_CONST(SH_VOLUME_ISCSI, 7)
    SH_CONST(SH_VOLUME_AZURE_DISK, 8)
    SH_CONST(SH_VOLUME_CINDER, 9)
    SH_CONST(SH_VOLUME_VSPHERE, 10)
    SH_CONST(SH_VOLUME_PORTWORX, 11)
    SH_CONST(SH_VOLUME_AZURE_FILE, 12)
    SH_CONST(SH_PREEMPT_LOWER_PRIORITY, 0)
    SH_CONST(SH_PREEMPT_NEVER, 1)
    SH_CONST(SH_RESOURCE_POD, 0)
    SH_CONST(SH_RESOURCE_NODE, 1)
    SH_CONST(SH_RESOURCE_PERSISTENT_VOLUME, 2)
    SH_CONST(SH_RESOURCE_PERSISTENT_VOLUME_CLAIM, 3)
    SH_CONST(SH_RESOURCE_CSI_NODE, 4)
    SH_CONST(SH_RESOURCE_CSI_DRIVER, 5)
    SH_CONST(SH_RESOURCE_VOLUME_ATTACHMENT, 6)
    SH_CONST(SH_RESOURCE_CSI_STORAGE_CAPACITY, 7)
    SH_CONST(SH_RESOURCE_STORAGE_CLASS, 8)
    SH_CONST(SH_RESOURCE_RESOURCE_CLAIM, 9)
    SH_CONST(SH_RESOURCE_RESOURCE_SLICE, 10)
    SH_CONST(SH_RESOURCE_DEVICE_CLASS, 11)
    SH_CONST(SH_RESOURCE_WILDCARD, 12)
    SH_CONST(SH_RESOURCE_ASSIGNED_POD, 13)
    SH_CONST(SH_RESOURCE_UNSCHEDULED_POD, 14)
    SH_CONST(SH_RESOURCE_DECLARED_KIND, 0x10000)
    SH_CONST(SH_MAX_DECLARED_KINDS, 64)
    SH_CONST(SH_ACTION_ADD, 1)
    SH_CONST(SH_ACTION_DELETE, 2)
    SH_CONST(SH_ACTION_UPDATE_NODE_ALLOCATABLE, 4)
    SH_CONST(SH_ACTION_UPDATE_NODE_LABEL, 8)
    SH_CONST(SH_ACTION_UPDATE_NODE_TAINT, 16)
    SH_CONST(SH_ACTION_UPDATE_NODE_CONDITION, 32)
    SH_CONST(SH_ACTION_UPDATE_NODE_ANNOTATION, 64)
    SH_CONST(SH_ACTION_UPDATE_NODE_DECLARED_FEATURE, 128)
    SH_CONST(SH_ACTION_UPDATE_POD_LABEL, 256)
    SH_CONST(SH_ACTION_UPDATE_POD_SCALE_DOWN, 512)
    SH_CONST(SH_ACTION_UPDATE_POD_TOLERATION, 1024)
    SH_CONST(SH_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED, 2048)
    SH_CONST(SH_ACTION_UPDATE_POD_GENERATED_RESOURCE_CLAIM, 4096)
    SH_CONST(SH_ACTION_UPDATE, 8188)
    SH_CONST(SH_ACTION_ALL, 8191)
    SH_CONST(SH_LOG_TRACE, 0)
    SH_CONST(SH_LOG_DEBUG, 1)
    SH_CONST(SH_LOG_INFO, 2)
    SH_CONST(SH_LOG_WARN, 3)
    SH_CONST(SH_LOG_ERROR, 4)
    SH_CONST(SH_ARGS_NULL, 0)
    SH_CONST(SH_ARGS_BOOL, 1)
    SH_CONST(SH_ARGS_INT, 2)
    SH_CONST(SH_ARGS_DOUBLE, 3)
    SH_CONST(SH_ARGS_STRING, 4)
    SH_CONST(SH_ARGS_ARRAY, 5)
    SH_CONST(SH_ARGS_OBJECT, 6)
    SH_CONST(SH_VERB_CREATE, 1)
    SH_CONST(SH_VERB_UPDATE, 2)
    SH_CONST(SH_VERB_PATCH, 4)
    SH_CONST(SH_VERB_UPDATE_STATUS, 8)
    SH_CONST(SH_VERB_DELETE, 16)
    SH_CONST(SH_VERB_ALL, 31)
    SH_CONST(SH_PATCH_NONE, 0)
    SH_CONST(SH_PATCH_MERGE, 1)
    SH_CONST(SH_PATCH_STRATEGIC_MERGE, 2)
    SH_CONST(SH_PATCH_JSON, 3)
    SH_CONST(SH_PLUGIN_SERIALIZE, 1)
    SH_CONST(SH_POINT_PRE_ENQUEUE, 1)
    SH_CONST(SH_POINT_QUEUE_SORT, 2)
    SH_CONST(SH_POINT_PRE_FILTER, 4)
    SH_CONST(SH_POINT_FILTER, 8)
    SH_CONST(SH_POINT_POST_FILTER, 16)
    SH_CONST(SH_POINT_PRE_SCORE, 32)
    SH_CONST(SH_POINT_SCORE, 64)
    SH_CONST(SH_POINT_RESERVE, 128)
    SH_CONST(SH_POINT_PERMIT, 256)
    SH_CONST(SH_POINT_PRE_BIND, 512)
    SH_CONST(SH_POINT_BIND, 1024)
    SH_CONST(SH_POINT_POST_BIND, 2048)
};
// clang-format on

#undef SH_SIZE
#undef SH_FIELD
#undef SH_CONST

// The same pins at compile time, one assertion each, so that a layout change fails the build
// and names what moved.
#if defined(__x86_64__)
#define SH_PIN_SIZE(T, size, align) \
  static_assert(sizeof(T) == (size) && alignof(T) == (align), #T " changed size")
#define SH_PIN_OFFSET(T, f, off) static_assert(offsetof(T, f) == (off), #T "." #f " moved")
SH_PIN_SIZE(sh_str, 16, 8);
SH_PIN_OFFSET(sh_str, ptr, 0);
SH_PIN_OFFSET(sh_str, len, 8);
SH_PIN_SIZE(sh_label, 40, 8);
SH_PIN_OFFSET(sh_label, key, 0);
SH_PIN_OFFSET(sh_label, value, 4);
SH_PIN_OFFSET(sh_label, key_str, 8);
SH_PIN_OFFSET(sh_label, value_str, 24);
SH_PIN_SIZE(sh_quantity, 16, 8);
SH_PIN_OFFSET(sh_quantity, name, 0);
SH_PIN_OFFSET(sh_quantity, value, 8);
SH_PIN_SIZE(sh_resources, 48, 8);
SH_PIN_OFFSET(sh_resources, milli_cpu, 0);
SH_PIN_OFFSET(sh_resources, memory, 8);
SH_PIN_OFFSET(sh_resources, ephemeral_storage, 16);
SH_PIN_OFFSET(sh_resources, allowed_pod_number, 24);
SH_PIN_OFFSET(sh_resources, scalars, 32);
SH_PIN_OFFSET(sh_resources, scalar_count, 40);
SH_PIN_OFFSET(sh_resources, reserved_, 44);
SH_PIN_SIZE(sh_taint, 16, 4);
SH_PIN_OFFSET(sh_taint, key, 0);
SH_PIN_OFFSET(sh_taint, value, 4);
SH_PIN_OFFSET(sh_taint, effect, 8);
SH_PIN_OFFSET(sh_taint, reserved_, 12);
SH_PIN_SIZE(sh_toleration, 24, 8);
SH_PIN_OFFSET(sh_toleration, key, 0);
SH_PIN_OFFSET(sh_toleration, value, 4);
SH_PIN_OFFSET(sh_toleration, op, 8);
SH_PIN_OFFSET(sh_toleration, effect, 12);
SH_PIN_OFFSET(sh_toleration, toleration_seconds, 16);
SH_PIN_SIZE(sh_host_port, 24, 8);
SH_PIN_OFFSET(sh_host_port, host_ip, 0);
SH_PIN_OFFSET(sh_host_port, protocol, 16);
SH_PIN_OFFSET(sh_host_port, port, 20);
SH_PIN_SIZE(sh_requirement, 40, 8);
SH_PIN_OFFSET(sh_requirement, key, 0);
SH_PIN_OFFSET(sh_requirement, op, 4);
SH_PIN_OFFSET(sh_requirement, number_ok, 8);
SH_PIN_OFFSET(sh_requirement, values, 16);
SH_PIN_OFFSET(sh_requirement, value_count, 24);
SH_PIN_OFFSET(sh_requirement, reserved_, 28);
SH_PIN_OFFSET(sh_requirement, number, 32);
SH_PIN_SIZE(sh_node_selector_term, 24, 8);
SH_PIN_OFFSET(sh_node_selector_term, match_expressions, 0);
SH_PIN_OFFSET(sh_node_selector_term, match_expression_count, 8);
SH_PIN_OFFSET(sh_node_selector_term, match_field_count, 12);
SH_PIN_OFFSET(sh_node_selector_term, match_fields, 16);
SH_PIN_SIZE(sh_preferred_term, 32, 8);
SH_PIN_OFFSET(sh_preferred_term, weight, 0);
SH_PIN_OFFSET(sh_preferred_term, reserved_, 4);
SH_PIN_OFFSET(sh_preferred_term, preference, 8);
SH_PIN_SIZE(sh_node_affinity, 32, 8);
SH_PIN_OFFSET(sh_node_affinity, has_required, 0);
SH_PIN_OFFSET(sh_node_affinity, required_count, 4);
SH_PIN_OFFSET(sh_node_affinity, required, 8);
SH_PIN_OFFSET(sh_node_affinity, preferred, 16);
SH_PIN_OFFSET(sh_node_affinity, preferred_count, 24);
SH_PIN_OFFSET(sh_node_affinity, reserved_, 28);
SH_PIN_SIZE(sh_label_selector, 24, 8);
SH_PIN_OFFSET(sh_label_selector, match_labels, 0);
SH_PIN_OFFSET(sh_label_selector, match_label_count, 8);
SH_PIN_OFFSET(sh_label_selector, match_expression_count, 12);
SH_PIN_OFFSET(sh_label_selector, match_expressions, 16);
SH_PIN_SIZE(sh_pod_affinity_term, 56, 8);
SH_PIN_OFFSET(sh_pod_affinity_term, label_selector, 0);
SH_PIN_OFFSET(sh_pod_affinity_term, namespace_selector, 8);
SH_PIN_OFFSET(sh_pod_affinity_term, namespaces, 16);
SH_PIN_OFFSET(sh_pod_affinity_term, namespace_count, 24);
SH_PIN_OFFSET(sh_pod_affinity_term, topology_key, 28);
SH_PIN_OFFSET(sh_pod_affinity_term, match_label_keys, 32);
SH_PIN_OFFSET(sh_pod_affinity_term, match_label_key_count, 40);
SH_PIN_OFFSET(sh_pod_affinity_term, mismatch_label_key_count, 44);
SH_PIN_OFFSET(sh_pod_affinity_term, mismatch_label_keys, 48);
SH_PIN_SIZE(sh_weighted_pod_affinity_term, 64, 8);
SH_PIN_OFFSET(sh_weighted_pod_affinity_term, weight, 0);
SH_PIN_OFFSET(sh_weighted_pod_affinity_term, reserved_, 4);
SH_PIN_OFFSET(sh_weighted_pod_affinity_term, term, 8);
SH_PIN_SIZE(sh_pod_affinity, 24, 8);
SH_PIN_OFFSET(sh_pod_affinity, required, 0);
SH_PIN_OFFSET(sh_pod_affinity, required_count, 8);
SH_PIN_OFFSET(sh_pod_affinity, preferred_count, 12);
SH_PIN_OFFSET(sh_pod_affinity, preferred, 16);
SH_PIN_SIZE(sh_topology_spread_constraint, 48, 8);
SH_PIN_OFFSET(sh_topology_spread_constraint, max_skew, 0);
SH_PIN_OFFSET(sh_topology_spread_constraint, when_unsatisfiable, 4);
SH_PIN_OFFSET(sh_topology_spread_constraint, topology_key, 8);
SH_PIN_OFFSET(sh_topology_spread_constraint, min_domains, 12);
SH_PIN_OFFSET(sh_topology_spread_constraint, label_selector, 16);
SH_PIN_OFFSET(sh_topology_spread_constraint, node_affinity_policy, 24);
SH_PIN_OFFSET(sh_topology_spread_constraint, node_taints_policy, 28);
SH_PIN_OFFSET(sh_topology_spread_constraint, match_label_keys, 32);
SH_PIN_OFFSET(sh_topology_spread_constraint, match_label_key_count, 40);
SH_PIN_OFFSET(sh_topology_spread_constraint, reserved_, 44);
SH_PIN_SIZE(sh_owner_ref, 72, 8);
SH_PIN_OFFSET(sh_owner_ref, api_version, 0);
SH_PIN_OFFSET(sh_owner_ref, kind, 16);
SH_PIN_OFFSET(sh_owner_ref, name, 32);
SH_PIN_OFFSET(sh_owner_ref, uid, 48);
SH_PIN_OFFSET(sh_owner_ref, controller, 64);
SH_PIN_OFFSET(sh_owner_ref, reserved_, 68);
SH_PIN_SIZE(sh_pod, 360, 8);
SH_PIN_OFFSET(sh_pod, struct_size, 0);
SH_PIN_OFFSET(sh_pod, reserved_, 4);
SH_PIN_OFFSET(sh_pod, uid, 8);
SH_PIN_OFFSET(sh_pod, name, 24);
SH_PIN_OFFSET(sh_pod, namespace_, 40);
SH_PIN_OFFSET(sh_pod, node_name, 56);
SH_PIN_OFFSET(sh_pod, scheduler_name, 72);
SH_PIN_OFFSET(sh_pod, nominated_node_name, 88);
SH_PIN_OFFSET(sh_pod, priority, 104);
SH_PIN_OFFSET(sh_pod, preemption_policy, 108);
SH_PIN_OFFSET(sh_pod, creation_unix_nanos, 112);
SH_PIN_OFFSET(sh_pod, start_unix_nanos, 120);
SH_PIN_OFFSET(sh_pod, deleting, 128);
SH_PIN_OFFSET(sh_pod, phase_terminal, 132);
SH_PIN_OFFSET(sh_pod, labels, 136);
SH_PIN_OFFSET(sh_pod, label_count, 144);
SH_PIN_OFFSET(sh_pod, toleration_count, 148);
SH_PIN_OFFSET(sh_pod, tolerations, 152);
SH_PIN_OFFSET(sh_pod, requests, 160);
SH_PIN_OFFSET(sh_pod, non_zero_milli_cpu, 208);
SH_PIN_OFFSET(sh_pod, non_zero_memory, 216);
SH_PIN_OFFSET(sh_pod, host_ports, 224);
SH_PIN_OFFSET(sh_pod, host_port_count, 232);
SH_PIN_OFFSET(sh_pod, node_selector_count, 236);
SH_PIN_OFFSET(sh_pod, node_selector, 240);
SH_PIN_OFFSET(sh_pod, node_affinity, 248);
SH_PIN_OFFSET(sh_pod, pod_affinity, 256);
SH_PIN_OFFSET(sh_pod, pod_anti_affinity, 264);
SH_PIN_OFFSET(sh_pod, scheduling_gates, 272);
SH_PIN_OFFSET(sh_pod, scheduling_gate_count, 280);
SH_PIN_OFFSET(sh_pod, image_count, 284);
SH_PIN_OFFSET(sh_pod, images, 288);
SH_PIN_OFFSET(sh_pod, container_count, 296);
SH_PIN_OFFSET(sh_pod, topology_spread_constraint_count, 300);
SH_PIN_OFFSET(sh_pod, topology_spread_constraints, 304);
SH_PIN_OFFSET(sh_pod, owner_refs, 312);
SH_PIN_OFFSET(sh_pod, owner_ref_count, 320);
SH_PIN_OFFSET(sh_pod, condition_count, 324);
SH_PIN_OFFSET(sh_pod, conditions, 328);
SH_PIN_OFFSET(sh_pod, volumes, 336);
SH_PIN_OFFSET(sh_pod, volume_count, 344);
SH_PIN_OFFSET(sh_pod, resource_claim_count, 348);
SH_PIN_OFFSET(sh_pod, spec_fields, 352);
SH_PIN_OFFSET(sh_pod, reserved2_, 356);
SH_PIN_SIZE(sh_pod_condition, 48, 8);
SH_PIN_OFFSET(sh_pod_condition, type, 0);
SH_PIN_OFFSET(sh_pod_condition, status, 16);
SH_PIN_OFFSET(sh_pod_condition, reason, 32);
SH_PIN_SIZE(sh_volume, 112, 8);
SH_PIN_OFFSET(sh_volume, struct_size, 0);
SH_PIN_OFFSET(sh_volume, source, 4);
SH_PIN_OFFSET(sh_volume, name, 8);
SH_PIN_OFFSET(sh_volume, claim, 24);
SH_PIN_OFFSET(sh_volume, handle, 40);
SH_PIN_OFFSET(sh_volume, driver, 56);
SH_PIN_OFFSET(sh_volume, pool, 72);
SH_PIN_OFFSET(sh_volume, monitors, 88);
SH_PIN_OFFSET(sh_volume, monitor_count, 96);
SH_PIN_OFFSET(sh_volume, lun, 100);
SH_PIN_OFFSET(sh_volume, read_only, 104);
SH_PIN_OFFSET(sh_volume, reserved_, 108);
SH_PIN_SIZE(sh_pdb, 64, 8);
SH_PIN_OFFSET(sh_pdb, struct_size, 0);
SH_PIN_OFFSET(sh_pdb, disruptions_allowed, 4);
SH_PIN_OFFSET(sh_pdb, namespace_, 8);
SH_PIN_OFFSET(sh_pdb, name, 24);
SH_PIN_OFFSET(sh_pdb, selector, 40);
SH_PIN_OFFSET(sh_pdb, disrupted_pods, 48);
SH_PIN_OFFSET(sh_pdb, disrupted_pod_count, 56);
SH_PIN_OFFSET(sh_pdb, reserved_, 60);
SH_PIN_SIZE(sh_preemption_candidate, 32, 8);
SH_PIN_OFFSET(sh_preemption_candidate, node_name, 0);
SH_PIN_OFFSET(sh_preemption_candidate, victims, 16);
SH_PIN_OFFSET(sh_preemption_candidate, victim_count, 24);
SH_PIN_OFFSET(sh_preemption_candidate, pdb_violations, 28);
SH_PIN_SIZE(sh_object, 136, 8);
SH_PIN_OFFSET(sh_object, struct_size, 0);
SH_PIN_OFFSET(sh_object, label_count, 4);
SH_PIN_OFFSET(sh_object, api_version, 8);
SH_PIN_OFFSET(sh_object, kind, 24);
SH_PIN_OFFSET(sh_object, namespace_, 40);
SH_PIN_OFFSET(sh_object, name, 56);
SH_PIN_OFFSET(sh_object, uid, 72);
SH_PIN_OFFSET(sh_object, resource_version, 88);
SH_PIN_OFFSET(sh_object, labels, 104);
SH_PIN_OFFSET(sh_object, root, 112);
SH_PIN_OFFSET(sh_object, creation_unix_nanos, 120);
SH_PIN_OFFSET(sh_object, deleting, 128);
SH_PIN_OFFSET(sh_object, assumed, 132);
SH_PIN_SIZE(sh_image, 16, 8);
SH_PIN_OFFSET(sh_image, name, 0);
SH_PIN_OFFSET(sh_image, reserved_, 4);
SH_PIN_OFFSET(sh_image, size_bytes, 8);
SH_PIN_SIZE(sh_node, 128, 8);
SH_PIN_OFFSET(sh_node, struct_size, 0);
SH_PIN_OFFSET(sh_node, unschedulable, 4);
SH_PIN_OFFSET(sh_node, name, 8);
SH_PIN_OFFSET(sh_node, name_id, 24);
SH_PIN_OFFSET(sh_node, label_count, 28);
SH_PIN_OFFSET(sh_node, labels, 32);
SH_PIN_OFFSET(sh_node, taints, 40);
SH_PIN_OFFSET(sh_node, taint_count, 48);
SH_PIN_OFFSET(sh_node, image_count, 52);
SH_PIN_OFFSET(sh_node, images, 56);
SH_PIN_OFFSET(sh_node, allocatable, 64);
SH_PIN_OFFSET(sh_node, declared_features, 112);
SH_PIN_OFFSET(sh_node, declared_feature_count, 120);
SH_PIN_OFFSET(sh_node, reserved_, 124);
SH_PIN_SIZE(sh_image_state, 16, 8);
SH_PIN_OFFSET(sh_image_state, name, 0);
SH_PIN_OFFSET(sh_image_state, num_nodes, 4);
SH_PIN_OFFSET(sh_image_state, size_bytes, 8);
SH_PIN_SIZE(sh_node_info, 144, 8);
SH_PIN_OFFSET(sh_node_info, struct_size, 0);
SH_PIN_OFFSET(sh_node_info, pod_count, 4);
SH_PIN_OFFSET(sh_node_info, node, 8);
SH_PIN_OFFSET(sh_node_info, pods, 16);
SH_PIN_OFFSET(sh_node_info, requested, 24);
SH_PIN_OFFSET(sh_node_info, non_zero_milli_cpu, 72);
SH_PIN_OFFSET(sh_node_info, non_zero_memory, 80);
SH_PIN_OFFSET(sh_node_info, used_ports, 88);
SH_PIN_OFFSET(sh_node_info, used_port_count, 96);
SH_PIN_OFFSET(sh_node_info, image_state_count, 100);
SH_PIN_OFFSET(sh_node_info, image_states, 104);
SH_PIN_OFFSET(sh_node_info, generation, 112);
SH_PIN_OFFSET(sh_node_info, pods_with_affinity, 120);
SH_PIN_OFFSET(sh_node_info, pods_with_affinity_count, 128);
SH_PIN_OFFSET(sh_node_info, pods_with_required_anti_affinity_count, 132);
SH_PIN_OFFSET(sh_node_info, pods_with_required_anti_affinity, 136);
SH_PIN_SIZE(sh_queued_pod, 24, 8);
SH_PIN_OFFSET(sh_queued_pod, struct_size, 0);
SH_PIN_OFFSET(sh_queued_pod, attempts, 4);
SH_PIN_OFFSET(sh_queued_pod, pod, 8);
SH_PIN_OFFSET(sh_queued_pod, timestamp_unix_nanos, 16);
SH_PIN_SIZE(sh_node_score, 16, 8);
SH_PIN_OFFSET(sh_node_score, node, 0);
SH_PIN_OFFSET(sh_node_score, score, 8);
SH_PIN_SIZE(sh_event_registration, 16, 4);
SH_PIN_OFFSET(sh_event_registration, resource, 0);
SH_PIN_OFFSET(sh_event_registration, actions, 4);
SH_PIN_OFFSET(sh_event_registration, has_hint, 8);
SH_PIN_OFFSET(sh_event_registration, reserved_, 12);
SH_PIN_SIZE(sh_event_objects, 72, 8);
SH_PIN_OFFSET(sh_event_objects, struct_size, 0);
SH_PIN_OFFSET(sh_event_objects, resource, 4);
SH_PIN_OFFSET(sh_event_objects, actions, 8);
SH_PIN_OFFSET(sh_event_objects, reserved_, 12);
SH_PIN_OFFSET(sh_event_objects, old_pod, 16);
SH_PIN_OFFSET(sh_event_objects, new_pod, 24);
SH_PIN_OFFSET(sh_event_objects, old_node, 32);
SH_PIN_OFFSET(sh_event_objects, new_node, 40);
SH_PIN_OFFSET(sh_event_objects, old_object, 48);
SH_PIN_OFFSET(sh_event_objects, new_object, 56);
SH_PIN_OFFSET(sh_event_objects, kind, 64);
SH_PIN_OFFSET(sh_event_objects, reserved2_, 68);
SH_PIN_SIZE(sh_plugin_vtable, 152, 8);
SH_PIN_OFFSET(sh_plugin_vtable, struct_size, 0);
SH_PIN_OFFSET(sh_plugin_vtable, reserved_, 4);
SH_PIN_OFFSET(sh_plugin_vtable, pre_enqueue, 8);
SH_PIN_OFFSET(sh_plugin_vtable, queue_sort_less, 16);
SH_PIN_OFFSET(sh_plugin_vtable, pre_filter, 24);
SH_PIN_OFFSET(sh_plugin_vtable, pre_filter_add_pod, 32);
SH_PIN_OFFSET(sh_plugin_vtable, pre_filter_remove_pod, 40);
SH_PIN_OFFSET(sh_plugin_vtable, filter, 48);
SH_PIN_OFFSET(sh_plugin_vtable, post_filter, 56);
SH_PIN_OFFSET(sh_plugin_vtable, pre_score, 64);
SH_PIN_OFFSET(sh_plugin_vtable, score, 72);
SH_PIN_OFFSET(sh_plugin_vtable, normalize_score, 80);
SH_PIN_OFFSET(sh_plugin_vtable, reserve, 88);
SH_PIN_OFFSET(sh_plugin_vtable, unreserve, 96);
SH_PIN_OFFSET(sh_plugin_vtable, permit, 104);
SH_PIN_OFFSET(sh_plugin_vtable, pre_bind, 112);
SH_PIN_OFFSET(sh_plugin_vtable, bind, 120);
SH_PIN_OFFSET(sh_plugin_vtable, post_bind, 128);
SH_PIN_OFFSET(sh_plugin_vtable, events_to_register, 136);
SH_PIN_OFFSET(sh_plugin_vtable, queueing_hint, 144);
SH_PIN_SIZE(sh_object_write, 64, 8);
SH_PIN_OFFSET(sh_object_write, struct_size, 0);
SH_PIN_OFFSET(sh_object_write, verb, 4);
SH_PIN_OFFSET(sh_object_write, kind, 8);
SH_PIN_OFFSET(sh_object_write, patch_type, 12);
SH_PIN_OFFSET(sh_object_write, namespace_, 16);
SH_PIN_OFFSET(sh_object_write, name, 32);
SH_PIN_OFFSET(sh_object_write, body, 48);
SH_PIN_SIZE(sh_state_ops, 16, 8);
SH_PIN_OFFSET(sh_state_ops, clone, 0);
SH_PIN_OFFSET(sh_state_ops, free, 8);
SH_PIN_SIZE(sh_host_api, 584, 8);
SH_PIN_OFFSET(sh_host_api, struct_size, 0);
SH_PIN_OFFSET(sh_host_api, abi_major, 4);
SH_PIN_OFFSET(sh_host_api, abi_minor, 6);
SH_PIN_OFFSET(sh_host_api, log, 8);
SH_PIN_OFFSET(sh_host_api, status_add_reason, 16);
SH_PIN_OFFSET(sh_host_api, intern, 24);
SH_PIN_OFFSET(sh_host_api, id_str, 32);
SH_PIN_OFFSET(sh_host_api, args_type, 40);
SH_PIN_OFFSET(sh_host_api, args_get, 48);
SH_PIN_OFFSET(sh_host_api, args_size, 56);
SH_PIN_OFFSET(sh_host_api, args_at, 64);
SH_PIN_OFFSET(sh_host_api, args_key_at, 72);
SH_PIN_OFFSET(sh_host_api, args_int, 80);
SH_PIN_OFFSET(sh_host_api, args_double, 88);
SH_PIN_OFFSET(sh_host_api, args_bool, 96);
SH_PIN_OFFSET(sh_host_api, args_string, 104);
SH_PIN_OFFSET(sh_host_api, args_error, 112);
SH_PIN_OFFSET(sh_host_api, cycle_write, 120);
SH_PIN_OFFSET(sh_host_api, cycle_read, 128);
SH_PIN_OFFSET(sh_host_api, cycle_snapshot, 136);
SH_PIN_OFFSET(sh_host_api, snapshot_node_count, 144);
SH_PIN_OFFSET(sh_host_api, snapshot_node_at, 152);
SH_PIN_OFFSET(sh_host_api, snapshot_node_by_name, 160);
SH_PIN_OFFSET(sh_host_api, snapshot_nodes_with_affinity_pods, 168);
SH_PIN_OFFSET(sh_host_api, snapshot_nodes_with_required_anti_affinity_pods, 176);
SH_PIN_OFFSET(sh_host_api, prefilter_result_add_node, 184);
SH_PIN_OFFSET(sh_host_api, node_filter_code, 192);
SH_PIN_OFFSET(sh_host_api, postfilter_nominate, 200);
SH_PIN_OFFSET(sh_host_api, waiting_pod_allow, 208);
SH_PIN_OFFSET(sh_host_api, waiting_pod_reject, 216);
SH_PIN_OFFSET(sh_host_api, bind_pod, 224);
SH_PIN_OFFSET(sh_host_api, pod_json, 232);
SH_PIN_OFFSET(sh_host_api, node_json, 240);
SH_PIN_OFFSET(sh_host_api, namespace_labels, 248);
SH_PIN_OFFSET(sh_host_api, workload_selectors, 256);
SH_PIN_OFFSET(sh_host_api, status_create, 264);
SH_PIN_OFFSET(sh_host_api, status_destroy, 272);
SH_PIN_OFFSET(sh_host_api, status_reason_count, 280);
SH_PIN_OFFSET(sh_host_api, status_reason_at, 288);
SH_PIN_OFFSET(sh_host_api, pod_disruption_budgets, 296);
SH_PIN_OFFSET(sh_host_api, cycle_random, 304);
SH_PIN_OFFSET(sh_host_api, parallel_for, 312);
SH_PIN_OFFSET(sh_host_api, sim_begin, 320);
SH_PIN_OFFSET(sh_host_api, sim_node_info, 328);
SH_PIN_OFFSET(sh_host_api, sim_cycle, 336);
SH_PIN_OFFSET(sh_host_api, sim_remove_pod, 344);
SH_PIN_OFFSET(sh_host_api, sim_add_pod, 352);
SH_PIN_OFFSET(sh_host_api, sim_filter, 360);
SH_PIN_OFFSET(sh_host_api, sim_end, 368);
SH_PIN_OFFSET(sh_host_api, preempt_victims, 376);
SH_PIN_OFFSET(sh_host_api, cycle_activate_pod, 384);
SH_PIN_OFFSET(sh_host_api, object_get, 392);
SH_PIN_OFFSET(sh_host_api, object_list, 400);
SH_PIN_OFFSET(sh_host_api, object_json, 408);
SH_PIN_OFFSET(sh_host_api, json_type, 416);
SH_PIN_OFFSET(sh_host_api, json_get, 424);
SH_PIN_OFFSET(sh_host_api, json_path, 432);
SH_PIN_OFFSET(sh_host_api, json_size, 440);
SH_PIN_OFFSET(sh_host_api, json_at, 448);
SH_PIN_OFFSET(sh_host_api, json_key_at, 456);
SH_PIN_OFFSET(sh_host_api, json_int, 464);
SH_PIN_OFFSET(sh_host_api, json_double, 472);
SH_PIN_OFFSET(sh_host_api, json_bool, 480);
SH_PIN_OFFSET(sh_host_api, json_string, 488);
SH_PIN_OFFSET(sh_host_api, object_write, 496);
SH_PIN_OFFSET(sh_host_api, object_assume, 504);
SH_PIN_OFFSET(sh_host_api, object_restore, 512);
SH_PIN_OFFSET(sh_host_api, snapshot_pvc_in_use, 520);
SH_PIN_OFFSET(sh_host_api, pod_manifest, 528);
SH_PIN_OFFSET(sh_host_api, node_manifest, 536);
SH_PIN_OFFSET(sh_host_api, writes_planned, 544);
SH_PIN_OFFSET(sh_host_api, cycle_wait, 552);
SH_PIN_OFFSET(sh_host_api, object_kind_version, 560);
SH_PIN_OFFSET(sh_host_api, preemption_running, 568);
SH_PIN_OFFSET(sh_host_api, preemption_extenders, 576);
SH_PIN_SIZE(sh_object_kind, 64, 8);
SH_PIN_OFFSET(sh_object_kind, struct_size, 0);
SH_PIN_OFFSET(sh_object_kind, verbs, 4);
SH_PIN_OFFSET(sh_object_kind, group, 8);
SH_PIN_OFFSET(sh_object_kind, version, 16);
SH_PIN_OFFSET(sh_object_kind, resource, 24);
SH_PIN_OFFSET(sh_object_kind, kind, 32);
SH_PIN_OFFSET(sh_object_kind, namespaced, 40);
SH_PIN_OFFSET(sh_object_kind, reserved_, 44);
SH_PIN_OFFSET(sh_object_kind, label_selector, 48);
SH_PIN_OFFSET(sh_object_kind, field_selector, 56);
SH_PIN_SIZE(sh_plugin_descriptor, 80, 8);
SH_PIN_OFFSET(sh_plugin_descriptor, struct_size, 0);
SH_PIN_OFFSET(sh_plugin_descriptor, abi_major, 4);
SH_PIN_OFFSET(sh_plugin_descriptor, abi_minor, 6);
SH_PIN_OFFSET(sh_plugin_descriptor, name, 8);
SH_PIN_OFFSET(sh_plugin_descriptor, version, 16);
SH_PIN_OFFSET(sh_plugin_descriptor, default_args_json, 24);
SH_PIN_OFFSET(sh_plugin_descriptor, flags, 32);
SH_PIN_OFFSET(sh_plugin_descriptor, reserved_, 36);
SH_PIN_OFFSET(sh_plugin_descriptor, create, 40);
SH_PIN_OFFSET(sh_plugin_descriptor, destroy, 48);
SH_PIN_OFFSET(sh_plugin_descriptor, vtable, 56);
SH_PIN_OFFSET(sh_plugin_descriptor, kinds, 64);
SH_PIN_OFFSET(sh_plugin_descriptor, kind_count, 72);
SH_PIN_OFFSET(sh_plugin_descriptor, reserved2_, 76);
SH_PIN_SIZE(sh_plugin_metadata, 120, 4);
SH_PIN_OFFSET(sh_plugin_metadata, magic, 0);
SH_PIN_OFFSET(sh_plugin_metadata, struct_size, 8);
SH_PIN_OFFSET(sh_plugin_metadata, abi_major, 12);
SH_PIN_OFFSET(sh_plugin_metadata, abi_minor, 14);
SH_PIN_OFFSET(sh_plugin_metadata, points, 16);
SH_PIN_OFFSET(sh_plugin_metadata, flags, 20);
SH_PIN_OFFSET(sh_plugin_metadata, name, 24);
SH_PIN_OFFSET(sh_plugin_metadata, version, 88);
#undef SH_PIN_SIZE
#undef SH_PIN_OFFSET
#endif

#if defined(__x86_64__)
TEST(AbiLayoutTest, StructLayout) {
  for (const Pin& pin : kLayout) {
    EXPECT_EQ(pin.actual, pin.expected) << pin.what;
  }
}
#endif

TEST(AbiLayoutTest, Constants) {
  for (const Pin& pin : kConstants) {
    EXPECT_EQ(pin.actual, pin.expected) << pin.what;
  }
}

// C and C++ see the same layout.
#if defined(__x86_64__)
TEST(AbiLayoutTest, CAgreesWithCxx) {
  ASSERT_EQ(sh_test_c_layout_count(), sizeof(kLayout) / sizeof(kLayout[0]));
  for (std::size_t i = 0; i < sh_test_c_layout_count(); ++i) {
    EXPECT_EQ(sh_test_c_layout(i), kLayout[i].actual) << kLayout[i].what;
  }
}
#endif

}  // namespace
