//! A host table of this ABI (1.3) for the crate's tests: objects of declared kinds with JSON
//! trees, statuses, the manifests of pods and nodes, PVCs in use, and a record of every call the
//! crate makes, with what it passed.
//!
//! The state is per thread (each test runs on its own), and the services run on the thread of
//! the call, as the real host's do. Tables and objects are leaked: the crate keeps the JSON
//! table process-wide, so a table must outlive every test.
#![allow(dead_code)]

use std::cell::RefCell;
use std::os::raw::{c_char, c_int};

use schedhost_sdk::sys::*;

/// A node of the fake JSON tree; an `sh_json` handle is a pointer to one.
pub enum J {
    Null,
    Bool(bool),
    Int(i64),
    Double(f64),
    Str(&'static str),
    Array(Vec<J>),
    Object(Vec<(&'static str, J)>),
}

/// One stored object: the view and what it points to.
pub struct Stored {
    pub kind: u32,
    pub view: sh_object,
    pub text: String,
}

#[derive(Default)]
struct World {
    objects: Vec<&'static Stored>,
    /// The manifests of pods and nodes, by the address of their view.
    manifests: Vec<(usize, &'static J)>,
    /// "namespace/claim" of the PVCs the snapshot's pods use.
    pvcs_in_use: Vec<String>,
    calls: Vec<String>,
    /// Reused by every list, as the host reuses a thread's list buffer.
    list: Vec<*const sh_object>,
    live_statuses: i64,
}

thread_local! {
    static WORLD: RefCell<World> = RefCell::new(World::default());
}

pub fn record(call: String) {
    WORLD.with(|w| w.borrow_mut().calls.push(call));
}

/// The calls recorded since the last take.
pub fn take_calls() -> Vec<String> {
    WORLD.with(|w| std::mem::take(&mut w.borrow_mut().calls))
}

/// Statuses created and not destroyed.
pub fn live_statuses() -> i64 {
    WORLD.with(|w| w.borrow().live_statuses)
}

fn s(text: &'static str) -> sh_str {
    sh_str {
        ptr: text.as_ptr() as *const c_char,
        len: text.len(),
    }
}

unsafe fn text<'a>(ptr: *const c_char, len: usize) -> &'a str {
    if len == 0 {
        return "";
    }
    std::str::from_utf8(std::slice::from_raw_parts(ptr as *const u8, len)).unwrap()
}

/// Stores an object of kind index `kind`; `labels` as (key id, key, value id, value), sorted
/// by key id.
pub fn store(
    kind: u32,
    kind_name: &'static str,
    ns: &'static str,
    name: &'static str,
    labels: &[(u32, &'static str, u32, &'static str)],
    root: J,
) -> &'static Stored {
    let labels: &'static [sh_label] = Box::leak(
        labels
            .iter()
            .map(|&(k, ks, v, vs)| sh_label {
                key: k,
                value: v,
                key_str: s(ks),
                value_str: s(vs),
            })
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    let root: &'static J = Box::leak(Box::new(root));
    let stored: &'static Stored = Box::leak(Box::new(Stored {
        kind,
        view: sh_object {
            struct_size: std::mem::size_of::<sh_object>() as u32,
            label_count: labels.len() as u32,
            api_version: s("example.com/v1"),
            kind: s(kind_name),
            namespace_: s(ns),
            name: s(name),
            uid: s("0b5c-uid"),
            resource_version: s("42"),
            labels: labels.as_ptr(),
            root: root as *const J as *const sh_json,
            creation_unix_nanos: 1_700_000_000_000_000_000,
            deleting: 0,
            assumed: 0,
        },
        text: format!(
            "{{\"kind\":\"{}\",\"metadata\":{{\"namespace\":\"{}\",\"name\":\"{}\"}}}}",
            kind_name, ns, name
        ),
    }));
    WORLD.with(|w| w.borrow_mut().objects.push(stored));
    stored
}

/// Gives the pod or node view at `view` the manifest `root` (pod_manifest, node_manifest).
pub fn set_manifest<T>(view: &T, root: J) {
    let root: &'static J = Box::leak(Box::new(root));
    let at = view as *const T as usize;
    WORLD.with(|w| w.borrow_mut().manifests.push((at, root)));
}

/// Makes a pod of the snapshot use the PersistentVolumeClaim `ns`/`name`.
pub fn use_pvc(ns: &str, name: &str) {
    WORLD.with(|w| w.borrow_mut().pvcs_in_use.push(format!("{}/{}", ns, name)));
}

fn manifest_of(at: usize) -> *const sh_json {
    WORLD.with(|w| {
        handle(
            w.borrow()
                .manifests
                .iter()
                .find(|(view, _)| *view == at)
                .map(|(_, root)| *root),
        )
    })
}

unsafe extern "C" fn pod_manifest(_: *mut sh_host, pod: *const sh_pod) -> *const sh_json {
    record(format!(
        "pod_manifest {}",
        text((*pod).name.ptr, (*pod).name.len)
    ));
    manifest_of(pod as usize)
}

unsafe extern "C" fn node_manifest(_: *mut sh_host, node: *const sh_node) -> *const sh_json {
    record(format!(
        "node_manifest {}",
        text((*node).name.ptr, (*node).name.len)
    ));
    manifest_of(node as usize)
}

/// The one snapshot of the fake: any address will do, the crate only passes it back.
pub fn a_snapshot() -> *const sh_snapshot {
    std::ptr::NonNull::<sh_snapshot>::dangling().as_ptr()
}

unsafe extern "C" fn cycle_snapshot(_: *mut sh_cycle) -> *const sh_snapshot {
    a_snapshot()
}

unsafe extern "C" fn snapshot_pvc_in_use(
    snap: *const sh_snapshot,
    ns: *const c_char,
    ns_len: usize,
    name: *const c_char,
    name_len: usize,
) -> c_int {
    assert_eq!(snap, a_snapshot());
    let key = format!("{}/{}", text(ns, ns_len), text(name, name_len));
    record(format!("pvc_in_use {}", key));
    WORLD.with(|w| w.borrow().pvcs_in_use.contains(&key)) as c_int
}

fn node<'a>(j: *const sh_json) -> Option<&'a J> {
    unsafe { (j as *const J).as_ref() }
}

fn handle(j: Option<&J>) -> *const sh_json {
    j.map_or(std::ptr::null(), |j| j as *const J as *const sh_json)
}

unsafe extern "C" fn json_type(j: *const sh_json) -> c_int {
    match node(j) {
        None | Some(J::Null) => SH_ARGS_NULL,
        Some(J::Bool(_)) => SH_ARGS_BOOL,
        Some(J::Int(_)) => SH_ARGS_INT,
        Some(J::Double(_)) => SH_ARGS_DOUBLE,
        Some(J::Str(_)) => SH_ARGS_STRING,
        Some(J::Array(_)) => SH_ARGS_ARRAY,
        Some(J::Object(_)) => SH_ARGS_OBJECT,
    }
}
fn member<'a>(j: &'a J, key: &str) -> Option<&'a J> {
    match j {
        J::Object(m) => m.iter().find(|(k, _)| *k == key).map(|(_, v)| v),
        _ => None,
    }
}
unsafe extern "C" fn json_get(j: *const sh_json, key: *const c_char, len: usize) -> *const sh_json {
    handle(node(j).and_then(|j| member(j, text(key, len))))
}
unsafe extern "C" fn json_path(
    j: *const sh_json,
    path: *const c_char,
    len: usize,
) -> *const sh_json {
    let mut at = node(j);
    for step in text(path, len).split('.') {
        at = match at {
            Some(J::Array(a)) => step.parse::<usize>().ok().and_then(|i| a.get(i)),
            Some(j) => member(j, step),
            None => None,
        };
    }
    handle(at)
}
unsafe extern "C" fn json_size(j: *const sh_json) -> usize {
    match node(j) {
        Some(J::Array(a)) => a.len(),
        Some(J::Object(m)) => m.len(),
        _ => 0,
    }
}
unsafe extern "C" fn json_at(j: *const sh_json, i: usize) -> *const sh_json {
    match node(j) {
        Some(J::Array(a)) => handle(a.get(i)),
        Some(J::Object(m)) => handle(m.get(i).map(|(_, v)| v)),
        _ => std::ptr::null(),
    }
}
unsafe extern "C" fn json_key_at(j: *const sh_json, i: usize) -> sh_str {
    match node(j) {
        Some(J::Object(m)) if i < m.len() => s(m[i].0),
        _ => s(""),
    }
}
unsafe extern "C" fn json_int(j: *const sh_json) -> i64 {
    match node(j) {
        Some(J::Int(v)) => *v,
        Some(J::Double(d)) if d.fract() == 0.0 => *d as i64,
        _ => 0,
    }
}
unsafe extern "C" fn json_double(j: *const sh_json) -> f64 {
    match node(j) {
        Some(J::Int(v)) => *v as f64,
        Some(J::Double(d)) => *d,
        _ => 0.0,
    }
}
unsafe extern "C" fn json_bool(j: *const sh_json) -> c_int {
    matches!(node(j), Some(J::Bool(true))) as c_int
}
unsafe extern "C" fn json_string(j: *const sh_json) -> sh_str {
    match node(j) {
        Some(J::Str(t)) => s(t),
        _ => s(""),
    }
}

fn cycle_name(c: *mut sh_cycle) -> &'static str {
    if c.is_null() {
        "latest"
    } else {
        "cycle"
    }
}

unsafe extern "C" fn object_get(
    _: *mut sh_host,
    c: *mut sh_cycle,
    kind: u32,
    ns: *const c_char,
    ns_len: usize,
    name: *const c_char,
    name_len: usize,
) -> *const sh_object {
    let (ns, name) = (text(ns, ns_len), text(name, name_len));
    record(format!(
        "get {} kind {} {}/{}",
        cycle_name(c),
        kind,
        ns,
        name
    ));
    WORLD.with(|w| {
        w.borrow()
            .objects
            .iter()
            .find(|o| {
                o.kind == kind
                    && unsafe { text(o.view.namespace_.ptr, o.view.namespace_.len) } == ns
                    && unsafe { text(o.view.name.ptr, o.view.name.len) } == name
            })
            .map_or(std::ptr::null(), |o| &o.view as *const sh_object)
    })
}

/// Lists the kind's objects of `ns` ("" all). The fake's selectors are "" and "key=value";
/// anything else does not parse and matches nothing.
unsafe extern "C" fn object_list(
    _: *mut sh_host,
    c: *mut sh_cycle,
    kind: u32,
    ns: *const c_char,
    ns_len: usize,
    sel: *const c_char,
    sel_len: usize,
    out: *mut *const *const sh_object,
) -> usize {
    let (ns, sel) = (text(ns, ns_len), text(sel, sel_len));
    record(format!(
        "list {} kind {} ns {:?} selector {:?}",
        cycle_name(c),
        kind,
        ns,
        sel
    ));
    let wanted = if sel.is_empty() {
        None
    } else {
        match sel.split_once('=') {
            Some((k, v)) => Some((k, v)),
            None => return 0,
        }
    };
    WORLD.with(|w| {
        let mut w = w.borrow_mut();
        let found: Vec<*const sh_object> = w
            .objects
            .iter()
            .filter(|o| o.kind == kind)
            .filter(|o| ns.is_empty() || text(o.view.namespace_.ptr, o.view.namespace_.len) == ns)
            .filter(|o| {
                let labels = std::slice::from_raw_parts(o.view.labels, o.view.label_count as usize);
                wanted.map_or(true, |(k, v)| {
                    labels.iter().any(|l| {
                        text(l.key_str.ptr, l.key_str.len) == k
                            && text(l.value_str.ptr, l.value_str.len) == v
                    })
                })
            })
            .map(|o| &o.view as *const sh_object)
            .collect();
        w.list.clear();
        w.list.extend(found);
        *out = w.list.as_ptr();
        w.list.len()
    })
}

unsafe extern "C" fn object_json(o: *const sh_object, buf: *mut c_char, cap: usize) -> usize {
    let stored = WORLD.with(|w| {
        w.borrow()
            .objects
            .iter()
            .find(|s| std::ptr::eq(&s.view, o))
            .copied()
    });
    let t = match stored {
        Some(s) => s.text.as_bytes(),
        None => return 0,
    };
    if !buf.is_null() {
        std::ptr::copy_nonoverlapping(t.as_ptr(), buf as *mut u8, t.len().min(cap));
    }
    t.len()
}

unsafe extern "C" fn status_create() -> *mut sh_status {
    WORLD.with(|w| w.borrow_mut().live_statuses += 1);
    Box::into_raw(Box::new(Vec::<String>::new())) as *mut sh_status
}
unsafe extern "C" fn status_destroy(st: *mut sh_status) {
    WORLD.with(|w| w.borrow_mut().live_statuses -= 1);
    drop(Box::from_raw(st as *mut Vec<String>));
}
unsafe extern "C" fn status_add_reason(st: *mut sh_status, r: *const c_char, len: usize) {
    if st.is_null() {
        record("reason into a NULL status".to_string());
        return;
    }
    let reasons = &mut *(st as *mut Vec<String>);
    reasons.push(text(r, len).to_string());
}
unsafe extern "C" fn status_reason_count(st: *const sh_status) -> usize {
    let reasons = &*(st as *const Vec<String>);
    reasons.len()
}
unsafe extern "C" fn status_reason_at(st: *const sh_status, i: usize) -> sh_str {
    let reasons = &*(st as *const Vec<String>);
    let r = &reasons[i];
    sh_str {
        ptr: r.as_ptr() as *const c_char,
        len: r.len(),
    }
}

/// Records the write's fields; a body holding "conflict" fails as the API server would.
unsafe extern "C" fn object_write(
    _: *mut sh_host,
    c: *mut sh_cycle,
    w: *const sh_object_write,
    st: *mut sh_status,
) -> sh_code {
    let w = &*w;
    assert_eq!(
        w.struct_size as usize,
        std::mem::size_of::<sh_object_write>()
    );
    let body = text(w.body.ptr, w.body.len);
    record(format!(
        "write {} verb {} kind {} patch {} ns {:?} name {:?} body {}",
        cycle_name(c),
        w.verb,
        w.kind,
        w.patch_type,
        text(w.namespace_.ptr, w.namespace_.len),
        text(w.name.ptr, w.name.len),
        body
    ));
    if body.contains("conflict") {
        let msg = "Operation cannot be fulfilled: the object has been modified";
        status_add_reason(st, msg.as_ptr() as *const c_char, msg.len());
        return SH_ERROR;
    }
    SH_SUCCESS
}

/// Records the assumed text; one holding resourceVersion "1" is older than the stored one.
unsafe extern "C" fn object_assume(
    _: *mut sh_host,
    kind: u32,
    json: *const c_char,
    len: usize,
    st: *mut sh_status,
) -> sh_code {
    let json = text(json, len);
    record(format!("assume kind {} {}", kind, json));
    if json.contains("\"resourceVersion\":\"1\"") {
        let msg = "object_assume: the stored version 42 is newer";
        status_add_reason(st, msg.as_ptr() as *const c_char, msg.len());
        return SH_ERROR;
    }
    SH_SUCCESS
}

unsafe extern "C" fn object_restore(
    _: *mut sh_host,
    kind: u32,
    ns: *const c_char,
    ns_len: usize,
    name: *const c_char,
    name_len: usize,
) {
    record(format!(
        "restore kind {} {}/{}",
        kind,
        text(ns, ns_len),
        text(name, name_len)
    ));
}

unsafe extern "C" fn cycle_activate_pod(
    _: *mut sh_cycle,
    ns: *const c_char,
    ns_len: usize,
    name: *const c_char,
    name_len: usize,
) {
    record(format!(
        "activate {}/{}",
        text(ns, ns_len),
        text(name, name_len)
    ));
}

unsafe extern "C" fn log(_: *mut sh_host, level: c_int, msg: *const c_char, len: usize) {
    record(format!("log {}: {}", level, text(msg, len)));
}

/// A host table of this ABI with the services above; the others are empty.
pub fn api() -> &'static sh_host_api {
    let mut api: Box<sh_host_api> = Box::new(unsafe { std::mem::zeroed() });
    api.struct_size = std::mem::size_of::<sh_host_api>() as u32;
    api.abi_major = SH_ABI_MAJOR;
    api.abi_minor = SH_ABI_MINOR;
    api.log = Some(log);
    api.status_add_reason = Some(status_add_reason);
    api.status_create = Some(status_create);
    api.status_destroy = Some(status_destroy);
    api.status_reason_count = Some(status_reason_count);
    api.status_reason_at = Some(status_reason_at);
    api.cycle_activate_pod = Some(cycle_activate_pod);
    api.object_get = Some(object_get);
    api.object_list = Some(object_list);
    api.object_json = Some(object_json);
    api.json_type = Some(json_type);
    api.json_get = Some(json_get);
    api.json_path = Some(json_path);
    api.json_size = Some(json_size);
    api.json_at = Some(json_at);
    api.json_key_at = Some(json_key_at);
    api.json_int = Some(json_int);
    api.json_double = Some(json_double);
    api.json_bool = Some(json_bool);
    api.json_string = Some(json_string);
    api.object_write = Some(object_write);
    api.object_assume = Some(object_assume);
    api.object_restore = Some(object_restore);
    api.cycle_snapshot = Some(cycle_snapshot);
    api.snapshot_pvc_in_use = Some(snapshot_pvc_in_use);
    api.pod_manifest = Some(pod_manifest);
    api.node_manifest = Some(node_manifest);
    Box::leak(api)
}

/// The offset just past the 1.2 table's last slot, object_restore: a 1.2 host's struct_size.
pub fn size_of_1_2_table() -> u32 {
    let table = std::mem::MaybeUninit::<sh_host_api>::uninit();
    let base = table.as_ptr();
    let slot = unsafe { std::ptr::addr_of!((*base).object_restore) };
    (slot as usize - base as usize + std::mem::size_of::<usize>()) as u32
}

/// A host of ABI 1.2: its table ends at object_restore. The memory past it holds the 1.3
/// services of `api()`, so a crate that read past struct_size would be caught calling them.
pub fn api_1_2() -> &'static sh_host_api {
    let mut api: sh_host_api = unsafe { std::ptr::read(api()) };
    api.abi_minor = 2;
    api.struct_size = size_of_1_2_table();
    Box::leak(Box::new(api))
}

/// The offset just past the 1.1 table's last slot, cycle_activate_pod: a 1.1 host's
/// struct_size.
pub fn size_of_1_1_table() -> u32 {
    let table = std::mem::MaybeUninit::<sh_host_api>::uninit();
    let base = table.as_ptr();
    let slot = unsafe { std::ptr::addr_of!((*base).cycle_activate_pod) };
    (slot as usize - base as usize + std::mem::size_of::<usize>()) as u32
}

/// A host of ABI 1.1: its table ends at cycle_activate_pod. The memory past it holds the 1.2
/// services of `api()`, so a crate that read past struct_size would be caught calling them.
pub fn api_1_1() -> &'static sh_host_api {
    let mut api: sh_host_api = unsafe { std::ptr::read(api()) };
    api.abi_minor = 1;
    api.struct_size = size_of_1_1_table();
    Box::leak(Box::new(api))
}
