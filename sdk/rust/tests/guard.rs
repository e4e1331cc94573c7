//! What the host sees when plugin code fails: the trampolines of `export_plugin!` against a
//! host table whose status and args services record what they are given.
use std::os::raw::{c_char, c_void};
use std::sync::Mutex;

use schedhost_sdk::sys::*;
use schedhost_sdk::{
    export, export_plugin, Args, Cycle, Filter, Host, NodeInfo, Plugin, Pod, Score, Status,
};

// What the fake host received, in order. The tests share it, so they take TEST_LOCK.
static RECORDED: Mutex<Vec<String>> = Mutex::new(Vec::new());
static TEST_LOCK: Mutex<()> = Mutex::new(());

unsafe fn text(ptr: *const c_char, len: usize) -> String {
    String::from_utf8_lossy(std::slice::from_raw_parts(ptr as *const u8, len)).into_owned()
}
unsafe extern "C" fn add_reason(_: *mut sh_status, reason: *const c_char, len: usize) {
    RECORDED
        .lock()
        .unwrap()
        .push(format!("reason: {}", text(reason, len)));
}
unsafe extern "C" fn args_error(
    _: *mut sh_host,
    _: *const sh_args,
    msg: *const c_char,
    len: usize,
) {
    RECORDED
        .lock()
        .unwrap()
        .push(format!("args: {}", text(msg, len)));
}
unsafe extern "C" fn log(_: *mut sh_host, level: i32, msg: *const c_char, len: usize) {
    RECORDED
        .lock()
        .unwrap()
        .push(format!("log {}: {}", level, text(msg, len)));
}

fn fake_api() -> Box<sh_host_api> {
    // Every slot empty (zero is None), then the three services the tests watch.
    let mut api: Box<sh_host_api> = Box::new(unsafe { std::mem::zeroed() });
    api.struct_size = std::mem::size_of::<sh_host_api>() as u32;
    api.abi_major = SH_ABI_MAJOR;
    api.abi_minor = SH_ABI_MINOR;
    api.status_add_reason = Some(add_reason);
    api.args_error = Some(args_error);
    api.log = Some(log);
    api
}

fn take_recorded() -> Vec<String> {
    std::mem::take(&mut *RECORDED.lock().unwrap())
}

/// Filter panics on nodes named "boom", rejects "full", accepts the rest; Score panics
/// with a String payload.
struct Touchy;

impl Plugin for Touchy {
    fn new(_host: Host, args: Args<'_>) -> Result<Self, String> {
        // The fake host has no args tree: a null node.
        assert!(!args.is_present());
        Ok(Touchy)
    }
}

impl Filter for Touchy {
    fn filter(&self, _: &Cycle<'_>, _: &Pod, node: &NodeInfo) -> Status {
        match node.name() {
            "boom" => panic!("no room for {}", node.name()),
            "full" => Status::unschedulable("node(s) were full"),
            _ => Status::success(),
        }
    }
}

impl Score for Touchy {
    fn score(&self, _: &Cycle<'_>, _: &Pod, _: &NodeInfo) -> Result<i64, Status> {
        std::panic::panic_any(String::from("score exploded"))
    }
}

struct Refuses;

impl Plugin for Refuses {
    fn new(_host: Host, _args: Args<'_>) -> Result<Self, String> {
        Err("Invalid value: nope".to_string())
    }
}

struct PanicsInNew;

impl Plugin for PanicsInNew {
    fn new(_host: Host, _args: Args<'_>) -> Result<Self, String> {
        panic!("cannot start")
    }
}

fn node_named(name: &'static str) -> (Box<sh_node>, Box<sh_node_info>) {
    let mut node: Box<sh_node> = Box::new(unsafe { std::mem::zeroed() });
    node.struct_size = std::mem::size_of::<sh_node>() as u32;
    node.name = sh_str {
        ptr: name.as_ptr() as *const c_char,
        len: name.len(),
    };
    let mut info: Box<sh_node_info> = Box::new(unsafe { std::mem::zeroed() });
    info.struct_size = std::mem::size_of::<sh_node_info>() as u32;
    info.node = &*node;
    (node, info)
}

#[test]
fn a_panic_becomes_an_error_status_with_its_message() {
    let _guard = TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let api = fake_api();
    let pod: sh_pod = unsafe { std::mem::zeroed() };
    let status = std::ptr::NonNull::<sh_status>::dangling().as_ptr();
    unsafe {
        let me = export::create::<Touchy>(&*api, std::ptr::null_mut(), std::ptr::null());
        assert!(!me.is_null());
        take_recorded();

        let (_n1, ok) = node_named("ok");
        assert_eq!(
            export::filter::<Touchy>(me, std::ptr::null_mut(), &pod, &*ok, status),
            SH_SUCCESS
        );
        assert!(take_recorded().is_empty());

        let (_n2, full) = node_named("full");
        assert_eq!(
            export::filter::<Touchy>(me, std::ptr::null_mut(), &pod, &*full, status),
            SH_UNSCHEDULABLE
        );
        assert_eq!(take_recorded(), vec!["reason: node(s) were full"]);

        let (_n3, boom) = node_named("boom");
        assert_eq!(
            export::filter::<Touchy>(me, std::ptr::null_mut(), &pod, &*boom, status),
            SH_ERROR
        );
        assert_eq!(
            take_recorded(),
            vec!["reason: plugin panicked: no room for boom"]
        );

        let mut score = 7i64;
        assert_eq!(
            export::score::<Touchy>(me, std::ptr::null_mut(), &pod, &*ok, &mut score, status),
            SH_ERROR
        );
        assert_eq!(
            take_recorded(),
            vec!["reason: plugin panicked: score exploded"]
        );
        assert_eq!(score, 7, "a failed Score leaves the host's value alone");

        export::destroy::<Touchy>(me as *mut c_void);
    }
}

#[test]
fn create_reports_a_refusal_or_a_panic_at_the_args() {
    let _guard = TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let api = fake_api();
    take_recorded();
    unsafe {
        assert!(export::create::<Refuses>(&*api, std::ptr::null_mut(), std::ptr::null()).is_null());
        assert_eq!(take_recorded(), vec!["args: Invalid value: nope"]);
        assert!(
            export::create::<PanicsInNew>(&*api, std::ptr::null_mut(), std::ptr::null()).is_null()
        );
        assert_eq!(
            take_recorded(),
            vec!["args: create failed: plugin panicked: cannot start"]
        );
    }
}

#[test]
fn metadata_carries_name_version_and_points() {
    let m = export::metadata("Touchy", "2.3.4", SH_POINT_FILTER | SH_POINT_SCORE, 0).0;
    assert_eq!(
        m.magic.iter().map(|&c| c as u8).collect::<Vec<_>>(),
        b"SHMETA01".to_vec()
    );
    assert_eq!(m.struct_size, 120);
    assert_eq!((m.abi_major, m.abi_minor), (1, 4));
    // Filter is bit 3 and Score bit 6: 8 + 64 = 72.
    assert_eq!(m.points, 72);
    let name: Vec<u8> = m
        .name
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    assert_eq!(name, b"Touchy".to_vec());
    let version: Vec<u8> = m
        .version
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    assert_eq!(version, b"2.3.4".to_vec());
}

export_plugin!(plugin: Touchy, name: "Touchy", version: "2.3.4", points: [Filter, Score]);

#[test]
fn a_descriptor_without_kinds_declares_none() {
    let d = unsafe { &*schedhost_plugin_v1() };
    assert_eq!(
        d.struct_size as usize,
        std::mem::size_of::<sh_plugin_descriptor>()
    );
    assert_eq!((d.abi_major, d.abi_minor), (1, 4));
    assert!(d.kinds.is_null());
    assert_eq!((d.kind_count, d.reserved2_), (0, 0));
    assert!(!d.vtable.is_null() && d.create.is_some() && d.destroy.is_some());
}
