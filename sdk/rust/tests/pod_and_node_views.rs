//! What ABI 1.3 added for pods and nodes, as a plugin reads it: a pod's volumes and resource
//! claims, a node's declared features, the manifests of both as JSON trees, and the PVCs in use
//! in the cycle's snapshot; against views built here and the fake host table, and on a 1.2 host,
//! whose views and table end before all of it.
mod fake_host;

use std::os::raw::{c_char, c_void};

use fake_host::J;
use schedhost_sdk::sys::*;
use schedhost_sdk::{
    export, export_plugin, Args, Code, Cycle, Host, JsonType, Node, Plugin, Pod, PreFilter,
    PreFilterResult, Status, VolumeSource,
};

/// PreFilter reports, one reason each, whether each claim of the pod's volumes is in use.
struct ClaimsInUse;

impl Plugin for ClaimsInUse {
    fn new(_: Host, _: Args<'_>) -> Result<Self, String> {
        Ok(ClaimsInUse)
    }
}

impl PreFilter for ClaimsInUse {
    fn pre_filter(&self, cycle: &mut Cycle<'_>, pod: &Pod, _: &mut PreFilterResult<'_>) -> Status {
        let snapshot = cycle.snapshot();
        let mut status = Status::new(Code::Success);
        for volume in pod.volumes().iter().filter(|v| v.uses_claim()) {
            let in_use = snapshot.pvc_in_use(pod.namespace(), volume.claim());
            status.add_reason(format!("{} in use: {}", volume.claim(), in_use));
        }
        status
    }
}

export_plugin!(plugin: ClaimsInUse, name: "ClaimsInUse", version: "0.1.0", points: [PreFilter]);

fn str_of(text: &'static str) -> sh_str {
    sh_str {
        ptr: text.as_ptr() as *const c_char,
        len: text.len(),
    }
}

fn leak<T>(items: Vec<T>) -> &'static [T] {
    Box::leak(items.into_boxed_slice())
}

fn volume(source: sh_volume_source, name: &'static str) -> sh_volume {
    let mut v: sh_volume = unsafe { std::mem::zeroed() };
    v.struct_size = std::mem::size_of::<sh_volume>() as u32;
    v.source = source;
    v.name = str_of(name);
    v
}

/// The pod "p" of namespace "ns", with one volume of each kind of field and two resource
/// claims, as a 1.3 host gives it.
fn pod_with_volumes() -> &'static sh_pod {
    let mut data = volume(SH_VOLUME_PVC, "data");
    data.claim = str_of("shared");
    data.read_only = 1;
    let mut own = volume(SH_VOLUME_PVC, "own");
    own.claim = str_of("own");
    let mut scratch = volume(SH_VOLUME_EPHEMERAL, "scratch");
    scratch.claim = str_of("p-scratch");
    let mut csi = volume(SH_VOLUME_CSI, "inline");
    csi.driver = str_of("csi.example.com");
    let mut rbd = volume(SH_VOLUME_RBD, "ceph");
    rbd.handle = str_of("image-1");
    rbd.pool = str_of("rbd");
    let monitors = leak(vec![str_of("10.0.0.1:6789"), str_of("10.0.0.2:6789")]);
    rbd.monitors = monitors.as_ptr();
    rbd.monitor_count = 2;
    let mut iscsi = volume(SH_VOLUME_ISCSI, "lun");
    iscsi.handle = str_of("iqn.2001-04.com.example:storage");
    iscsi.lun = 3;
    let cache = volume(SH_VOLUME_OTHER, "cache");
    let newer = volume(99, "from-a-newer-host");
    let volumes = leak(vec![data, own, scratch, csi, rbd, iscsi, cache, newer]);

    let mut pod: sh_pod = unsafe { std::mem::zeroed() };
    pod.struct_size = std::mem::size_of::<sh_pod>() as u32;
    pod.name = str_of("p");
    pod.namespace_ = str_of("ns");
    pod.volumes = volumes.as_ptr();
    pod.volume_count = volumes.len() as u32;
    pod.resource_claim_count = 2;
    pod.spec_fields = SH_POD_FIELD_HOST_USERS;
    Box::leak(Box::new(pod))
}

/// Node "n1" with its declared features, sorted as the host sorts them (by their bytes).
fn node_with_features(features: &[&'static str]) -> &'static sh_node {
    let features = leak(features.iter().map(|f| str_of(f)).collect());
    let mut node: sh_node = unsafe { std::mem::zeroed() };
    node.struct_size = std::mem::size_of::<sh_node>() as u32;
    node.name = str_of("n1");
    node.declared_features = features.as_ptr();
    node.declared_feature_count = features.len() as u32;
    Box::leak(Box::new(node))
}

/// An address where nothing may be read: what a view of an older host has past its end.
fn nowhere<T>() -> *const T {
    std::ptr::NonNull::dangling().as_ptr()
}

#[test]
fn a_volume_gives_the_fields_of_its_source() {
    let pod = unsafe { Pod::from_raw(pod_with_volumes()) };
    let volumes = pod.volumes();
    let rows: Vec<_> = volumes
        .iter()
        .map(|v| (v.name(), v.source(), v.uses_claim()))
        .collect();
    assert_eq!(
        rows,
        vec![
            ("data", VolumeSource::Pvc, true),
            ("own", VolumeSource::Pvc, true),
            ("scratch", VolumeSource::Ephemeral, true),
            ("inline", VolumeSource::Csi, false),
            ("ceph", VolumeSource::Rbd, false),
            ("lun", VolumeSource::Iscsi, false),
            ("cache", VolumeSource::Other, false),
            // A source this crate does not know is one it has nothing to do with.
            ("from-a-newer-host", VolumeSource::Other, false),
        ]
    );
    let (data, scratch, csi, rbd, iscsi) = (
        &volumes[0],
        &volumes[2],
        &volumes[3],
        &volumes[4],
        &volumes[5],
    );
    assert_eq!((data.claim(), data.is_read_only()), ("shared", true));
    assert_eq!((data.handle(), data.driver(), data.pool()), ("", "", ""));
    assert_eq!(
        (scratch.claim(), scratch.is_read_only()),
        ("p-scratch", false)
    );
    assert_eq!((csi.driver(), csi.claim()), ("csi.example.com", ""));
    assert_eq!((rbd.handle(), rbd.pool()), ("image-1", "rbd"));
    assert_eq!(
        rbd.monitors().collect::<Vec<_>>(),
        vec!["10.0.0.1:6789", "10.0.0.2:6789"]
    );
    assert_eq!(data.monitors().len(), 0);
    assert_eq!(
        (iscsi.handle(), iscsi.lun()),
        ("iqn.2001-04.com.example:storage", 3)
    );
    assert_eq!(iscsi.raw().source, SH_VOLUME_ISCSI);
    assert_eq!(pod.resource_claim_count(), 2);
    assert_eq!(pod.spec_fields(), SH_POD_FIELD_HOST_USERS);
}

#[test]
fn declared_features_are_sorted_and_found_by_their_bytes() {
    // "Zeta" < "a..." < "gpu" < "gpu.example.com/v2" by bytes, as std::string_view compares.
    let raw = node_with_features(&["Zeta", "a.example.com/x", "gpu", "gpu.example.com/v2"]);
    let node = unsafe { Node::from_raw(raw) };
    assert_eq!(
        node.declared_features().collect::<Vec<_>>(),
        vec!["Zeta", "a.example.com/x", "gpu", "gpu.example.com/v2"]
    );
    assert_eq!(node.declared_features().len(), 4);
    for present in ["Zeta", "a.example.com/x", "gpu", "gpu.example.com/v2"] {
        assert!(node.has_declared_feature(present), "{}", present);
    }
    for absent in [
        "",
        "zeta",
        "gp",
        "gpu.example.com",
        "gpu.example.com/v3",
        "~",
    ] {
        assert!(!node.has_declared_feature(absent), "{}", absent);
    }
    let bare = unsafe { Node::from_raw(node_with_features(&[])) };
    assert_eq!(bare.declared_features().len(), 0);
    assert!(!bare.has_declared_feature("gpu"));
}

#[test]
fn an_older_hosts_views_have_no_volumes_and_no_features() {
    // A 1.2 host's pod ends at conditions; whatever lies past it is not the pod's.
    let mut older: sh_pod = *pod_with_volumes();
    older.struct_size = std::mem::size_of::<sh_pod>() as u32 - 24;
    older.volumes = nowhere();
    older.volume_count = 7;
    older.resource_claim_count = 7;
    older.spec_fields = SH_POD_FIELD_RESTART_POLICY_RULES;
    let pod = unsafe { Pod::from_raw(&older) };
    assert!(pod.volumes().is_empty());
    assert_eq!(pod.resource_claim_count(), 0);
    assert_eq!(pod.spec_fields(), 0);
    // A view that ends at resource_claim_count has volumes, but no spec_fields.
    older = *pod_with_volumes();
    older.struct_size = std::mem::size_of::<sh_pod>() as u32 - 8;
    older.spec_fields = SH_POD_FIELD_RESTART_POLICY_RULES;
    let pod = unsafe { Pod::from_raw(&older) };
    assert_eq!(pod.resource_claim_count(), 2);
    assert_eq!(pod.spec_fields(), 0);

    // A 1.2 host's node ends at allocatable.
    let mut older: sh_node = *node_with_features(&["gpu"]);
    older.struct_size = std::mem::size_of::<sh_node>() as u32 - 16;
    older.declared_features = nowhere();
    let node = unsafe { Node::from_raw(&older) };
    assert_eq!(node.declared_features().len(), 0);
    assert!(!node.has_declared_feature("gpu"));
}

#[test]
fn manifests_are_the_hosts_json_trees_of_the_pod_and_the_node() {
    let api = fake_host::api();
    let host = unsafe { Host::from_raw(api, std::ptr::null_mut()) };
    assert!(host.serves_claims_and_manifests());
    let raw_pod = pod_with_volumes();
    fake_host::set_manifest(
        raw_pod,
        J::Object(vec![(
            "spec",
            J::Object(vec![(
                "securityContext",
                J::Object(vec![("runAsUser", J::Int(1000))]),
            )]),
        )]),
    );
    let raw_node = node_with_features(&["gpu"]);
    fake_host::set_manifest(
        raw_node,
        J::Object(vec![(
            "metadata",
            J::Object(vec![(
                "annotations",
                J::Object(vec![("probe/zone", J::Str("z1"))]),
            )]),
        )]),
    );
    fake_host::take_calls();

    let pod = unsafe { Pod::from_raw(raw_pod) };
    let node = unsafe { Node::from_raw(raw_node) };
    let manifest = host.pod_manifest(pod);
    assert_eq!(manifest.kind(), JsonType::Object);
    assert_eq!(
        manifest.path("spec.securityContext.runAsUser").as_i64(),
        Some(1000)
    );
    assert_eq!(
        host.node_manifest(node)
            .path("metadata.annotations.probe/zone")
            .as_str(),
        Some("z1")
    );
    // A view the host has no manifest for reads as the null tree.
    let stranger = unsafe { Pod::from_raw(Box::leak(Box::new(*raw_pod))) };
    assert!(!host.pod_manifest(stranger).is_present());
    assert_eq!(
        fake_host::take_calls(),
        vec!["pod_manifest p", "node_manifest n1", "pod_manifest p"]
    );
}

#[test]
fn pvc_in_use_asks_the_cycles_snapshot_about_the_claim_in_the_pods_namespace() {
    let api = fake_host::api();
    fake_host::use_pvc("ns", "shared");
    fake_host::use_pvc("other", "own");
    let (code, reasons) = pre_filter(api, pod_with_volumes());
    assert_eq!(code, SH_SUCCESS);
    assert_eq!(
        reasons,
        vec![
            "shared in use: true",
            // In use in another namespace only.
            "own in use: false",
            "p-scratch in use: false",
        ]
    );
    assert_eq!(
        fake_host::take_calls(),
        vec![
            "pvc_in_use ns/shared",
            "pvc_in_use ns/own",
            "pvc_in_use ns/p-scratch"
        ]
    );
}

#[test]
fn an_older_host_has_no_manifests_and_no_claim_in_use() {
    let api = fake_host::api_1_2();
    fake_host::use_pvc("ns", "shared");
    let host = unsafe { Host::from_raw(api, std::ptr::null_mut()) };
    assert!(!host.serves_claims_and_manifests());
    let raw_pod = pod_with_volumes();
    fake_host::set_manifest(raw_pod, J::Object(vec![]));
    let pod = unsafe { Pod::from_raw(raw_pod) };
    let manifest = host.pod_manifest(pod);
    assert!(!manifest.is_present());
    assert_eq!(manifest.kind(), JsonType::Null);
    assert!(!host
        .node_manifest(unsafe { Node::from_raw(node_with_features(&[])) })
        .is_present());
    let (code, reasons) = pre_filter(api, raw_pod);
    assert_eq!(code, SH_SUCCESS);
    assert_eq!(
        reasons,
        vec![
            "shared in use: false",
            "own in use: false",
            "p-scratch in use: false",
        ]
    );
    // Not one 1.3 service was called, though the table's memory holds them.
    assert!(fake_host::take_calls().is_empty());

    // A table of minor 3 too short for the slots counts as older too.
    let mut short: sh_host_api = unsafe { std::ptr::read(fake_host::api()) };
    short.abi_minor = 3;
    short.struct_size = fake_host::size_of_1_2_table() + 8;
    let short = unsafe { Host::from_raw(Box::leak(Box::new(short)), std::ptr::null_mut()) };
    assert_eq!(short.abi_minor(), 3);
    assert!(!short.serves_claims_and_manifests());
    assert!(!short.pod_manifest(pod).is_present());
    assert!(fake_host::take_calls().is_empty());
}

/// Runs the plugin's PreFilter as the host would, and returns the code and the reasons.
fn pre_filter(api: &'static sh_host_api, pod: &sh_pod) -> (sh_code, Vec<String>) {
    let me: *mut c_void =
        unsafe { export::create::<ClaimsInUse>(api, std::ptr::null_mut(), std::ptr::null()) };
    assert!(!me.is_null());
    let status = unsafe { (api.status_create.unwrap())() };
    let cycle: *mut sh_cycle = std::ptr::NonNull::dangling().as_ptr();
    let code =
        unsafe { export::pre_filter::<ClaimsInUse>(me, cycle, pod, std::ptr::null_mut(), status) };
    let reasons = unsafe {
        (0..(api.status_reason_count.unwrap())(status))
            .map(|i| {
                let r = (api.status_reason_at.unwrap())(status, i);
                String::from_utf8_lossy(std::slice::from_raw_parts(r.ptr as *const u8, r.len))
                    .into_owned()
            })
            .collect()
    };
    unsafe { (api.status_destroy.unwrap())(status) };
    unsafe { export::destroy::<ClaimsInUse>(me) };
    (code, reasons)
}
