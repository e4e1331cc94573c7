//! The adapter between plugin traits and the C table of plugin.h: one `extern "C"`
//! trampoline per slot, create/destroy, and the .shmeta record. `export_plugin!` uses it;
//! nothing here is meant to be called by plugin code, and it may change in any release.
//!
//! Every trampoline runs the plugin under `catch_unwind`: a panic becomes an Error status
//! carrying the panic's message (a logged error where the slot has no status) and never
//! unwinds into the host. A plugin must therefore not be built with `panic = "abort"`.
use std::any::Any;
use std::cell::Cell;
use std::os::raw::{c_char, c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;
use std::time::Duration;

use crate::host::{Args, Cycle, Host, LogLevel, PreFilterResult};
use crate::plugin::*;
use crate::status::Status;
use crate::sys;
use crate::views::{EventObjects, NodeInfo, NodeScore, Pod, QueuedPod};

/// What `create` returns to the host: the plugin plus what the trampolines need.
pub struct Instance<T> {
    host: Host,
    plugin: T,
    events: Mutex<Option<Vec<sys::sh_event_registration>>>,
}

/// The text of a panic payload (what `panic!` was given, when it was a string).
fn panic_message(payload: Box<dyn Any + Send>) -> String {
    let msg = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-string payload".to_string()
    };
    // Dropping a payload runs foreign code: keep its panic on this side too.
    let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
    msg
}

unsafe fn instance<'a, T>(s: *mut c_void) -> &'a Instance<T> {
    &*(s as *const Instance<T>)
}

/// Runs `f` and hands its status to the host; a panic becomes an Error status.
unsafe fn guard(
    api: &sys::sh_host_api,
    st: *mut sys::sh_status,
    f: impl FnOnce() -> Status,
) -> sys::sh_code {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(status) => status.deliver(api, st),
        Err(payload) => {
            let msg = format!("plugin panicked: {}", panic_message(payload));
            Status::error(msg).deliver(api, st)
        }
    }
}

/// Runs `f` where the slot has no status to report into; a panic is logged.
fn guard_void<T>(inst: &Instance<T>, what: &str, f: impl FnOnce()) {
    if let Err(payload) = catch_unwind(AssertUnwindSafe(f)) {
        let msg = format!("{} panicked: {}", what, panic_message(payload));
        let _ = catch_unwind(AssertUnwindSafe(|| inst.host.log(LogLevel::Error, &msg)));
    }
}

pub unsafe extern "C" fn create<T: Plugin>(
    api: *const sys::sh_host_api,
    host: *mut sys::sh_host,
    args: *const sys::sh_args,
) -> *mut c_void {
    if api.is_null() {
        return std::ptr::null_mut();
    }
    let api_ref = &*api;
    let report = |msg: &str| {
        if let Some(f) = api_ref.args_error {
            f(host, args, msg.as_ptr() as *const c_char, msg.len());
        }
    };
    let errors = Cell::new(0usize);
    let made = catch_unwind(AssertUnwindSafe(|| {
        T::new(
            Host::from_raw(api, host),
            Args::new(api_ref, host, args, &errors),
        )
    }));
    match made {
        Ok(Ok(plugin)) => {
            if errors.get() > 0 {
                let _ = catch_unwind(AssertUnwindSafe(move || drop(plugin)));
                return std::ptr::null_mut();
            }
            let inst = Instance {
                host: Host::from_raw(api, host),
                plugin,
                events: Mutex::new(None),
            };
            Box::into_raw(Box::new(inst)) as *mut c_void
        }
        Ok(Err(msg)) => {
            // Args::error already showed each problem; a message of its own is shown too.
            if errors.get() == 0 || !msg.is_empty() {
                report(&msg);
            }
            std::ptr::null_mut()
        }
        Err(payload) => {
            report(&format!(
                "create failed: plugin panicked: {}",
                panic_message(payload)
            ));
            std::ptr::null_mut()
        }
    }
}

pub unsafe extern "C" fn destroy<T: Plugin>(s: *mut c_void) {
    if !s.is_null() {
        let inst = Box::from_raw(s as *mut Instance<T>);
        let _ = catch_unwind(AssertUnwindSafe(move || drop(inst)));
    }
}

pub unsafe extern "C" fn pre_enqueue<T: PreEnqueue>(
    s: *mut c_void,
    pod: *const sys::sh_pod,
    st: *mut sys::sh_status,
) -> sys::sh_code {
    let inst = instance::<T>(s);
    guard(inst.host.api(), st, || {
        inst.plugin.pre_enqueue(Pod::from_raw(pod))
    })
}

pub unsafe extern "C" fn queue_sort_less<T: QueueSort>(
    s: *mut c_void,
    a: *const sys::sh_queued_pod,
    b: *const sys::sh_queued_pod,
) -> c_int {
    let inst = instance::<T>(s);
    let mut less = false;
    guard_void(inst, "QueueSort", || {
        less = inst
            .plugin
            .less(QueuedPod::from_raw(a), QueuedPod::from_raw(b));
    });
    less as c_int
}

pub unsafe extern "C" fn pre_filter<T: PreFilter>(
    s: *mut c_void,
    c: *mut sys::sh_cycle,
    pod: *const sys::sh_pod,
    r: *mut sys::sh_prefilter_result,
    st: *mut sys::sh_status,
) -> sys::sh_code {
    let inst = instance::<T>(s);
    let api = inst.host.api();
    guard(api, st, || {
        let mut cycle = Cycle::new(api, c, st);
        let mut result = PreFilterResult::new(api, r);
        inst.plugin
            .pre_filter(&mut cycle, Pod::from_raw(pod), &mut result)
    })
}

pub unsafe extern "C" fn pre_filter_add_pod<T: PreFilterExtensions>(
    s: *mut c_void,
    c: *mut sys::sh_cycle,
    pod: *const sys::sh_pod,
    other: *const sys::sh_pod,
    ni: *const sys::sh_node_info,
    st: *mut sys::sh_status,
) -> sys::sh_code {
    let inst = instance::<T>(s);
    let api = inst.host.api();
    guard(api, st, || {
        let mut cycle = Cycle::new(api, c, st);
        inst.plugin.add_pod(
            &mut cycle,
            Pod::from_raw(pod),
            Pod::from_raw(other),
            NodeInfo::from_raw(ni),
        )
    })
}

pub unsafe extern "C" fn pre_filter_remove_pod<T: PreFilterExtensions>(
    s: *mut c_void,
    c: *mut sys::sh_cycle,
    pod: *const sys::sh_pod,
    other: *const sys::sh_pod,
    ni: *const sys::sh_node_info,
    st: *mut sys::sh_status,
) -> sys::sh_code {
    let inst = instance::<T>(s);
    let api = inst.host.api();
    guard(api, st, || {
        let mut cycle = Cycle::new(api, c, st);
        inst.plugin.remove_pod(
            &mut cycle,
            Pod::from_raw(pod),
            Pod::from_raw(other),
            NodeInfo::from_raw(ni),
        )
    })
}

pub unsafe extern "C" fn filter<T: Filter>(
    s: *mut c_void,
    c: *mut sys::sh_cycle,
    pod: *const sys::sh_pod,
    ni: *const sys::sh_node_info,
    st: *mut sys::sh_status,
) -> sys::sh_code {
    let inst = instance::<T>(s);
    let api = inst.host.api();
    guard(api, st, || {
        let cycle = Cycle::new(api, c, st);
        inst.plugin
            .filter(&cycle, Pod::from_raw(pod), NodeInfo::from_raw(ni))
    })
}

pub unsafe extern "C" fn post_filter<T: PostFilter>(
    s: *mut c_void,
    c: *mut sys::sh_cycle,
    pod: *const sys::sh_pod,
    st: *mut sys::sh_status,
) -> sys::sh_code {
    let inst = instance::<T>(s);
    let api = inst.host.api();
    guard(api, st, || {
        let mut cycle = Cycle::new(api, c, st);
        inst.plugin.post_filter(&mut cycle, Pod::from_raw(pod))
    })
}

pub unsafe extern "C" fn pre_score<T: PreScore>(
    s: *mut c_void,
    c: *mut sys::sh_cycle,
    pod: *const sys::sh_pod,
    nodes: *const *const sys::sh_node_info,
    n: usize,
    st: *mut sys::sh_status,
) -> sys::sh_code {
    let inst = instance::<T>(s);
    let api = inst.host.api();
    guard(api, st, || {
        let mut cycle = Cycle::new(api, c, st);
        inst.plugin.pre_score(
            &mut cycle,
            Pod::from_raw(pod),
            NodeInfo::slice_from_raw(nodes, n),
        )
    })
}

pub unsafe extern "C" fn score<T: Score>(
    s: *mut c_void,
    c: *mut sys::sh_cycle,
    pod: *const sys::sh_pod,
    ni: *const sys::sh_node_info,
    out: *mut i64,
    st: *mut sys::sh_status,
) -> sys::sh_code {
    let inst = instance::<T>(s);
    let api = inst.host.api();
    guard(api, st, || {
        let cycle = Cycle::new(api, c, st);
        match inst
            .plugin
            .score(&cycle, Pod::from_raw(pod), NodeInfo::from_raw(ni))
        {
            Ok(value) => {
                *out = value;
                Status::success()
            }
            Err(status) => status,
        }
    })
}

pub unsafe extern "C" fn normalize_score<T: NormalizeScore>(
    s: *mut c_void,
    c: *mut sys::sh_cycle,
    pod: *const sys::sh_pod,
    scores: *mut sys::sh_node_score,
    n: usize,
    st: *mut sys::sh_status,
) -> sys::sh_code {
    let inst = instance::<T>(s);
    let api = inst.host.api();
    guard(api, st, || {
        let mut cycle = Cycle::new(api, c, st);
        let scores: &mut [NodeScore] = if scores.is_null() || n == 0 {
            &mut []
        } else {
            std::slice::from_raw_parts_mut(scores as *mut NodeScore, n)
        };
        inst.plugin
            .normalize_score(&mut cycle, Pod::from_raw(pod), scores)
    })
}

pub unsafe extern "C" fn reserve<T: Reserve>(
    s: *mut c_void,
    c: *mut sys::sh_cycle,
    pod: *const sys::sh_pod,
    node: sys::sh_str,
    st: *mut sys::sh_status,
) -> sys::sh_code {
    let inst = instance::<T>(s);
    let api = inst.host.api();
    guard(api, st, || {
        let mut cycle = Cycle::new(api, c, st);
        inst.plugin
            .reserve(&mut cycle, Pod::from_raw(pod), crate::views::text(node))
    })
}

pub unsafe extern "C" fn unreserve<T: Reserve>(
    s: *mut c_void,
    c: *mut sys::sh_cycle,
    pod: *const sys::sh_pod,
    node: sys::sh_str,
) {
    let inst = instance::<T>(s);
    guard_void(inst, "Unreserve", || {
        let mut cycle = Cycle::new(inst.host.api(), c, std::ptr::null_mut());
        inst.plugin
            .unreserve(&mut cycle, Pod::from_raw(pod), crate::views::text(node))
    })
}

pub unsafe extern "C" fn permit<T: Permit>(
    s: *mut c_void,
    c: *mut sys::sh_cycle,
    pod: *const sys::sh_pod,
    node: sys::sh_str,
    timeout_ms: *mut i64,
    st: *mut sys::sh_status,
) -> sys::sh_code {
    let inst = instance::<T>(s);
    let api = inst.host.api();
    guard(api, st, || {
        let mut cycle = Cycle::new(api, c, st);
        let mut timeout = Duration::from_millis((*timeout_ms).max(0) as u64);
        let status = inst.plugin.permit(
            &mut cycle,
            Pod::from_raw(pod),
            crate::views::text(node),
            &mut timeout,
        );
        *timeout_ms = timeout.as_millis().min(i64::MAX as u128) as i64;
        status
    })
}

pub unsafe extern "C" fn pre_bind<T: PreBind>(
    s: *mut c_void,
    c: *mut sys::sh_cycle,
    pod: *const sys::sh_pod,
    node: sys::sh_str,
    st: *mut sys::sh_status,
) -> sys::sh_code {
    let inst = instance::<T>(s);
    let api = inst.host.api();
    guard(api, st, || {
        let mut cycle = Cycle::new(api, c, st);
        inst.plugin
            .pre_bind(&mut cycle, Pod::from_raw(pod), crate::views::text(node))
    })
}

pub unsafe extern "C" fn bind<T: Bind>(
    s: *mut c_void,
    c: *mut sys::sh_cycle,
    pod: *const sys::sh_pod,
    node: sys::sh_str,
    st: *mut sys::sh_status,
) -> sys::sh_code {
    let inst = instance::<T>(s);
    let api = inst.host.api();
    guard(api, st, || {
        let mut cycle = Cycle::new(api, c, st);
        inst.plugin
            .bind(&mut cycle, Pod::from_raw(pod), crate::views::text(node))
    })
}

pub unsafe extern "C" fn post_bind<T: PostBind>(
    s: *mut c_void,
    c: *mut sys::sh_cycle,
    pod: *const sys::sh_pod,
    node: sys::sh_str,
) {
    let inst = instance::<T>(s);
    guard_void(inst, "PostBind", || {
        let mut cycle = Cycle::new(inst.host.api(), c, std::ptr::null_mut());
        inst.plugin
            .post_bind(&mut cycle, Pod::from_raw(pod), crate::views::text(node))
    })
}

pub unsafe extern "C" fn events_to_register<T: EnqueueExtensions>(
    s: *mut c_void,
    out: *mut sys::sh_event_registration,
    capacity: usize,
) -> usize {
    let inst = instance::<T>(s);
    let mut count = 0;
    guard_void(inst, "EventsToRegister", || {
        let mut cached = match inst.events.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let events = cached.get_or_insert_with(|| {
            inst.plugin
                .events_to_register()
                .iter()
                .map(|e| sys::sh_event_registration {
                    resource: e.resource,
                    actions: e.actions,
                    has_hint: e.has_hint as i32,
                    reserved_: 0,
                })
                .collect()
        });
        for (i, e) in events
            .iter()
            .take(if out.is_null() { 0 } else { capacity })
            .enumerate()
        {
            *out.add(i) = *e;
        }
        count = events.len();
    });
    count
}

pub unsafe extern "C" fn queueing_hint<T: EnqueueExtensions>(
    s: *mut c_void,
    index: usize,
    pod: *const sys::sh_pod,
    event: *const sys::sh_event_objects,
) -> sys::sh_queueing_hint {
    let inst = instance::<T>(s);
    // An error in a hint is treated as Queue, as upstream.
    let mut hint = QueueingHint::Queue;
    guard_void(inst, "QueueingHint", || {
        hint = inst
            .plugin
            .queueing_hint(index, Pod::from_raw(pod), EventObjects::from_raw(event));
    });
    match hint {
        QueueingHint::Skip => sys::SH_QUEUE_SKIP,
        QueueingHint::Queue => sys::SH_QUEUE,
    }
}

/// The .shmeta record, 8-aligned like the C SDK's.
#[repr(C, align(8))]
pub struct MetadataRecord(pub sys::sh_plugin_metadata);

/// Copies `s` into a NUL-terminated field; a string that does not fit, or holds a NUL, fails
/// the build (this runs at compile time).
const fn fill<const N: usize>(mut field: [c_char; N], s: &str, what: &str) -> [c_char; N] {
    let bytes = s.as_bytes();
    if bytes.len() + 1 > N {
        // A const panic names only a literal in Rust 1.63, so `what` picks one.
        if what.len() == 4 {
            panic!("plugin name longer than 63 bytes");
        } else {
            panic!("plugin version longer than 31 bytes");
        }
    }
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0 {
            panic!("plugin name or version holds a NUL byte");
        }
        field[i] = bytes[i] as c_char;
        i += 1;
    }
    field
}

/// The metadata record for `name`/`version`, built at compile time.
pub const fn metadata(name: &str, version: &str, points: u32, flags: u32) -> MetadataRecord {
    if name.is_empty() {
        panic!("plugin name is empty");
    }
    let mut magic = [0 as c_char; 8];
    let mut i = 0;
    while i < 8 {
        magic[i] = sys::SH_META_MAGIC[i] as c_char;
        i += 1;
    }
    MetadataRecord(sys::sh_plugin_metadata {
        magic,
        struct_size: std::mem::size_of::<sys::sh_plugin_metadata>() as u32,
        abi_major: sys::SH_ABI_MAJOR,
        abi_minor: sys::SH_ABI_MINOR,
        points,
        flags,
        name: fill([0; 64], name, "name"),
        version: fill([0; 32], version, "version"),
    })
}

/// A static descriptor (its pointers lead to static data only).
#[repr(transparent)]
pub struct Descriptor(pub sys::sh_plugin_descriptor);
unsafe impl Sync for Descriptor {}
