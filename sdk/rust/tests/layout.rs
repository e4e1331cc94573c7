//! The `sys` mirrors have the layout of the C structs of plugin.h: the same size, alignment,
//! and offset and size of every field.
//!
//! The C side is what tests/sdk/rust/layout.c prints, built by CMake with the project's C
//! compiler; SCHEDHOST_C_LAYOUT names that program. Without it (a plain `cargo test`) the test
//! only says so, unless SCHEDHOST_C_LAYOUT_REQUIRED is set, as the ctest sets it.
use std::collections::BTreeMap;
use std::mem::{align_of, size_of, MaybeUninit};

use schedhost_sdk::sys::*;

fn size_of_pointee<T>(_: *const T) -> usize {
    size_of::<T>()
}

/// One line per struct and per field, in the format layout.c prints.
macro_rules! layout {
    ($out:ident; $($s:ident { $($f:ident $(=> $cname:ident)?),* };)*) => {$(
        $out.insert(stringify!($s).to_string(),
                    format!("size {} align {}", size_of::<$s>(), align_of::<$s>()));
        {
            let value = MaybeUninit::<$s>::uninit();
            let base = value.as_ptr();
            $(
                // addr_of! takes the field's address without reading the uninitialised value.
                let field = unsafe { std::ptr::addr_of!((*base).$f) };
                let name = layout!(@name $f $($cname)?);
                $out.insert(format!("{}.{}", stringify!($s), name),
                            format!("offset {} size {}", field as usize - base as usize,
                                    size_of_pointee(field)));
            )*
        }
    )*};
    (@name $f:ident) => { stringify!($f) };
    (@name $f:ident $c:ident) => { stringify!($c) };
}

fn rust_layout() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    layout! { out;
    sh_str { ptr, len };
    sh_label { key, value, key_str, value_str };
    sh_quantity { name, value };
    sh_resources { milli_cpu, memory, ephemeral_storage, allowed_pod_number, scalars, scalar_count, reserved_ };
    sh_taint { key, value, effect, reserved_ };
    sh_toleration { key, value, op, effect, toleration_seconds };
    sh_host_port { host_ip, protocol, port };
    sh_requirement { key, op, number_ok, values, value_count, reserved_, number };
    sh_node_selector_term { match_expressions, match_expression_count, match_field_count, match_fields };
    sh_preferred_term { weight, reserved_, preference };
    sh_node_affinity { has_required, required_count, required, preferred, preferred_count, reserved_ };
    sh_label_selector { match_labels, match_label_count, match_expression_count, match_expressions };
    sh_pod_affinity_term { label_selector, namespace_selector, namespaces, namespace_count, topology_key, match_label_keys, match_label_key_count, mismatch_label_key_count, mismatch_label_keys };
    sh_weighted_pod_affinity_term { weight, reserved_, term };
    sh_pod_affinity { required, required_count, preferred_count, preferred };
    sh_topology_spread_constraint { max_skew, when_unsatisfiable, topology_key, min_domains, label_selector, node_affinity_policy, node_taints_policy, match_label_keys, match_label_key_count, reserved_ };
    sh_owner_ref { api_version, kind, name, uid, controller, reserved_ };
    sh_pod_condition { type_ => type, status, reason };
    sh_volume { struct_size, source, name, claim, handle, driver, pool, monitors, monitor_count, lun, read_only, reserved_ };
    sh_pod { struct_size, reserved_, uid, name, namespace_, node_name, scheduler_name, nominated_node_name, priority, preemption_policy, creation_unix_nanos, start_unix_nanos, deleting, phase_terminal, labels, label_count, toleration_count, tolerations, requests, non_zero_milli_cpu, non_zero_memory, host_ports, host_port_count, node_selector_count, node_selector, node_affinity, pod_affinity, pod_anti_affinity, scheduling_gates, scheduling_gate_count, image_count, images, container_count, topology_spread_constraint_count, topology_spread_constraints, owner_refs, owner_ref_count, condition_count, conditions, volumes, volume_count, resource_claim_count, spec_fields, reserved2_ };
    sh_image { name, reserved_, size_bytes };
    sh_node { struct_size, unschedulable, name, name_id, label_count, labels, taints, taint_count, image_count, images, allocatable, declared_features, declared_feature_count, reserved_ };
    sh_image_state { name, num_nodes, size_bytes };
    sh_node_info { struct_size, pod_count, node, pods, requested, non_zero_milli_cpu, non_zero_memory, used_ports, used_port_count, image_state_count, image_states, generation, pods_with_affinity, pods_with_affinity_count, pods_with_required_anti_affinity_count, pods_with_required_anti_affinity };
    sh_pdb { struct_size, disruptions_allowed, namespace_, name, selector, disrupted_pods, disrupted_pod_count, reserved_ };
    sh_preemption_candidate { node_name, victims, victim_count, pdb_violations };
    sh_object { struct_size, label_count, api_version, kind, namespace_, name, uid, resource_version, labels, root, creation_unix_nanos, deleting, assumed };
    sh_queued_pod { struct_size, attempts, pod, timestamp_unix_nanos };
    sh_node_score { node, score };
    sh_event_registration { resource, actions, has_hint, reserved_ };
    sh_event_objects { struct_size, resource, actions, reserved_, old_pod, new_pod, old_node, new_node, old_object, new_object, kind, reserved2_ };
    sh_plugin_vtable { struct_size, reserved_, pre_enqueue, queue_sort_less, pre_filter, pre_filter_add_pod, pre_filter_remove_pod, filter, post_filter, pre_score, score, normalize_score, reserve, unreserve, permit, pre_bind, bind, post_bind, events_to_register, queueing_hint };
    sh_object_write { struct_size, verb, kind, patch_type, namespace_, name, body };
    sh_state_ops { clone, free };
    sh_host_api { struct_size, abi_major, abi_minor, log, status_add_reason, intern, id_str, args_type, args_get, args_size, args_at, args_key_at, args_int, args_double, args_bool, args_string, args_error, cycle_write, cycle_read, cycle_snapshot, snapshot_node_count, snapshot_node_at, snapshot_node_by_name, snapshot_nodes_with_affinity_pods, snapshot_nodes_with_required_anti_affinity_pods, prefilter_result_add_node, node_filter_code, postfilter_nominate, waiting_pod_allow, waiting_pod_reject, bind_pod, pod_json, node_json, namespace_labels, workload_selectors, status_create, status_destroy, status_reason_count, status_reason_at, pod_disruption_budgets, cycle_random, parallel_for, sim_begin, sim_node_info, sim_cycle, sim_remove_pod, sim_add_pod, sim_filter, sim_end, preempt_victims, cycle_activate_pod, object_get, object_list, object_json, json_type, json_get, json_path, json_size, json_at, json_key_at, json_int, json_double, json_bool, json_string, object_write, object_assume, object_restore, snapshot_pvc_in_use, pod_manifest, node_manifest, writes_planned, cycle_wait, object_kind_version, preemption_running, preemption_extenders };
    sh_object_kind { struct_size, verbs, group, version, resource, kind, namespaced, reserved_, label_selector, field_selector };
    sh_plugin_descriptor { struct_size, abi_major, abi_minor, name, version, default_args_json, flags, reserved_, create, destroy, vtable, kinds, kind_count, reserved2_ };
    sh_plugin_metadata { magic, struct_size, abi_major, abi_minor, points, flags, name, version };    }
    out
}

fn c_layout(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (name, rest) = l
                .split_once(' ')
                .expect("a layout line is `<name> <facts>`");
            (name.to_string(), rest.to_string())
        })
        .collect()
}

#[test]
fn sys_structs_have_the_c_layout() {
    let path = match std::env::var("SCHEDHOST_C_LAYOUT") {
        Ok(p) => p,
        Err(_) => {
            assert!(
                std::env::var_os("SCHEDHOST_C_LAYOUT_REQUIRED").is_none(),
                "SCHEDHOST_C_LAYOUT is not set"
            );
            eprintln!("SCHEDHOST_C_LAYOUT not set: the C layout is not compared (ctest does)");
            return;
        }
    };
    let run = std::process::Command::new(&path)
        .output()
        .unwrap_or_else(|e| panic!("{}: {}", path, e));
    assert!(run.status.success(), "{} failed: {}", path, run.status);
    let text = String::from_utf8(run.stdout).expect("layout.c prints ASCII");
    let c = c_layout(&text);
    let rust = rust_layout();
    let mut problems = Vec::new();
    for (name, facts) in &c {
        match rust.get(name) {
            Some(r) if r == facts => {}
            Some(r) => problems.push(format!("{}: C has {}, Rust has {}", name, facts, r)),
            None => problems.push(format!(
                "{}: in C ({}), not in the Rust mirror",
                name, facts
            )),
        }
    }
    for name in rust.keys().filter(|n| !c.contains_key(*n)) {
        problems.push(format!(
            "{}: in the Rust mirror, not in the output of {}",
            name, path
        ));
    }
    assert!(
        problems.is_empty(),
        "layout differs from C:\n  {}",
        problems.join("\n  ")
    );
    // 37 structs of plugin.h and their fields; a smaller table would mean a list was cut.
    assert!(c.len() >= 387, "only {} layout lines in {}", c.len(), path);
    println!("layout: {} structs and fields match C", c.len());
}

#[test]
fn metadata_record_is_120_bytes_like_the_hosts_v1_record() {
    // 8 magic + 4 struct_size + 2 + 2 abi + 4 points + 4 flags + 64 name + 32 version = 120
    assert_eq!(size_of::<sh_plugin_metadata>(), 120);
    assert_eq!(align_of::<schedhost_sdk::export::MetadataRecord>(), 8);
}
