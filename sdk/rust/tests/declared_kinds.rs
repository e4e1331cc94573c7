//! The kinds a plugin declares reach the host in its descriptor as plugin.h lays them out:
//! static data, in the order of `export_plugin!`'s list, with NUL-terminated strings and NULL
//! for an absent selector.
use std::ffi::CStr;
use std::os::raw::c_char;

use schedhost_sdk::sys::*;
use schedhost_sdk::{
    export_plugin, object_kind, Args, Cycle, Filter, Host, NodeInfo, ObjectKind, Plugin, Pod,
    Status, Verb,
};

const WIDGETS: ObjectKind = object_kind! {
    group: "example.com",
    version: "v1",
    resource: "widgets",
    kind: "Widget",
    namespaced: true,
    verbs: [UpdateStatus, Patch],
};
const CLAIMS: ObjectKind = object_kind! {
    group: "",
    version: "v1",
    resource: "persistentvolumeclaims",
    kind: "PersistentVolumeClaim",
    namespaced: true,
    label_selector: "app=web",
    field_selector: "status.phase=Bound",
};
const CLASSES: ObjectKind = object_kind! {
    group: "storage.k8s.io",
    version: "v1",
    resource: "storageclasses",
    kind: "StorageClass",
    namespaced: false,
};

struct Reader;

impl Plugin for Reader {
    fn new(_host: Host, _args: Args<'_>) -> Result<Self, String> {
        Ok(Reader)
    }
}

impl Filter for Reader {
    fn filter(&self, _: &Cycle<'_>, _: &Pod, _: &NodeInfo) -> Status {
        Status::success()
    }
}

export_plugin!(
    plugin: Reader,
    name: "Reader",
    version: "1.0.0",
    points: [Filter],
    kinds: [WIDGETS, CLAIMS, CLASSES],
);

fn text(p: *const c_char) -> Option<&'static str> {
    if p.is_null() {
        return None;
    }
    Some(unsafe { CStr::from_ptr(p) }.to_str().unwrap())
}

#[test]
fn the_descriptor_lists_the_declared_kinds_in_order() {
    let d = unsafe { &*schedhost_plugin_v1() };
    assert_eq!(
        d.struct_size as usize,
        std::mem::size_of::<sh_plugin_descriptor>()
    );
    assert_eq!((d.abi_major, d.abi_minor), (1, 4));
    assert_eq!(d.kind_count, 3);
    assert_eq!(d.reserved2_, 0);
    let kinds = unsafe { std::slice::from_raw_parts(d.kinds, d.kind_count as usize) };
    let rows: Vec<_> = kinds
        .iter()
        .map(|k| {
            assert_eq!(
                k.struct_size as usize,
                std::mem::size_of::<sh_object_kind>()
            );
            assert_eq!(k.reserved_, 0);
            (
                text(k.group),
                text(k.version),
                text(k.resource),
                text(k.kind),
                k.namespaced,
                k.verbs,
                text(k.label_selector),
                text(k.field_selector),
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            // UpdateStatus (8) | Patch (4)
            (
                Some("example.com"),
                Some("v1"),
                Some("widgets"),
                Some("Widget"),
                1,
                12,
                None,
                None
            ),
            (
                Some(""),
                Some("v1"),
                Some("persistentvolumeclaims"),
                Some("PersistentVolumeClaim"),
                1,
                0,
                Some("app=web"),
                Some("status.phase=Bound"),
            ),
            (
                Some("storage.k8s.io"),
                Some("v1"),
                Some("storageclasses"),
                Some("StorageClass"),
                0,
                0,
                None,
                None,
            ),
        ]
    );
}

#[test]
fn a_declaration_reads_back_its_fields() {
    assert_eq!(WIDGETS.group(), "example.com");
    assert_eq!(WIDGETS.version(), "v1");
    assert_eq!(WIDGETS.resource(), "widgets");
    assert_eq!(WIDGETS.kind(), "Widget");
    assert!(WIDGETS.is_namespaced());
    assert_eq!(
        WIDGETS.verbs(),
        Verb::UpdateStatus.bit() | Verb::Patch.bit()
    );
    assert_eq!(WIDGETS.label_selector(), "");
    assert_eq!(CLAIMS.group(), "");
    assert_eq!(CLAIMS.label_selector(), "app=web");
    assert_eq!(CLAIMS.field_selector(), "status.phase=Bound");
    assert!(!CLASSES.is_namespaced());
}

#[test]
fn verbs_have_the_bits_of_plugin_h() {
    let all = [
        Verb::Create,
        Verb::Update,
        Verb::Patch,
        Verb::UpdateStatus,
        Verb::Delete,
    ];
    // SH_VERB_CREATE 1 .. SH_VERB_DELETE 16, one bit each; together SH_VERB_ALL.
    assert_eq!(all.map(|v| v.bit()), [1, 2, 4, 8, 16]);
    assert_eq!(all.iter().fold(0, |acc, v| acc | v.bit()), SH_VERB_ALL);
}
