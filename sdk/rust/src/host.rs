//! The host services of plugin.h (section 6) as safe methods: Host, Args, Cycle, Snapshot
//! and PreFilterResult.
use std::any::TypeId;
use std::cell::Cell;
use std::ffi::CString;
use std::marker::PhantomData;
use std::os::raw::{c_char, c_void};

use crate::json;
use crate::status::{Code, Status};
use crate::sys;
use crate::views::{self, Id, Node, NodeInfo, Pod};

/// A host service slot the host left empty: a broken host, reported as an Error status by
/// the panic guard around every extension point.
fn slot<T>(f: Option<T>, name: &str) -> T {
    match f {
        Some(f) => f,
        None => panic!("the host's service table has no {}", name),
    }
}

/// Log levels of `Host::log`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogLevel {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
}

/// The host: logging, interned strings, waiting pods, binding, JSON of objects. Valid from
/// the plugin's construction until it is dropped, so a plugin may keep a copy.
#[derive(Clone, Copy)]
pub struct Host {
    api: *const sys::sh_host_api,
    host: *mut sys::sh_host,
}

// plugin.h: every host service is thread-safe unless noted, and the table outlives the plugin.
unsafe impl Send for Host {}
unsafe impl Sync for Host {}

impl Host {
    /// # Safety
    /// `api` and `host` must be what the host passed to `create`, and the Host must not be
    /// used after the plugin's `destroy`. A table of ABI 1.2 or newer also becomes the one
    /// object views read their JSON trees through (see `Json`).
    pub unsafe fn from_raw(api: *const sys::sh_host_api, host: *mut sys::sh_host) -> Host {
        json::remember_table(api);
        Host { api, host }
    }
    pub fn api(&self) -> &sys::sh_host_api {
        unsafe { &*self.api }
    }
    pub fn handle(&self) -> *mut sys::sh_host {
        self.host
    }
    /// The ABI minor of the host (a plugin checks it before using a "since 1.N" service).
    pub fn abi_minor(&self) -> u16 {
        self.api().abi_minor
    }

    pub fn log(&self, level: LogLevel, msg: &str) {
        let level = match level {
            LogLevel::Trace => sys::SH_LOG_TRACE,
            LogLevel::Debug => sys::SH_LOG_DEBUG,
            LogLevel::Info => sys::SH_LOG_INFO,
            LogLevel::Warn => sys::SH_LOG_WARN,
            LogLevel::Error => sys::SH_LOG_ERROR,
        };
        if let Some(log) = self.api().log {
            unsafe { log(self.host, level, msg.as_ptr() as *const c_char, msg.len()) }
        }
    }
    /// The id of `s`; equal strings have equal ids for the life of the process.
    pub fn intern(&self, s: &str) -> Id {
        let f = slot(self.api().intern, "intern");
        unsafe { f(self.host, s.as_ptr() as *const c_char, s.len()) }
    }
    /// The text of an interned id.
    pub fn str(&self, id: Id) -> &'static str {
        let f = slot(self.api().id_str, "id_str");
        // plugin.h: the text of an id is valid for the life of the process.
        unsafe { views::text(f(self.host, id)) }
    }

    /// Allows the pod with `pod_uid` waiting on Permit, on behalf of `plugin`; false when no
    /// such pod waits.
    pub fn allow_waiting_pod(&self, pod_uid: &str, plugin: &str) -> bool {
        let f = slot(self.api().waiting_pod_allow, "waiting_pod_allow");
        unsafe {
            f(
                self.host,
                pod_uid.as_ptr() as *const c_char,
                pod_uid.len(),
                plugin.as_ptr() as *const c_char,
                plugin.len(),
            ) != 0
        }
    }
    pub fn reject_waiting_pod(&self, pod_uid: &str, plugin: &str, msg: &str) -> bool {
        let f = slot(self.api().waiting_pod_reject, "waiting_pod_reject");
        unsafe {
            f(
                self.host,
                pod_uid.as_ptr() as *const c_char,
                pod_uid.len(),
                plugin.as_ptr() as *const c_char,
                plugin.len(),
                msg.as_ptr() as *const c_char,
                msg.len(),
            ) != 0
        }
    }
    /// Asks the cluster connector to bind `pod` to `node` (what DefaultBinder does). The host
    /// writes its reasons into the current call's status, so the result carries the code.
    pub fn bind_pod(&self, cycle: &Cycle<'_>, pod: &Pod, node: &str) -> Status {
        let f = slot(self.api().bind_pod, "bind_pod");
        let code = unsafe {
            f(
                self.host,
                pod.raw(),
                node.as_ptr() as *const c_char,
                node.len(),
                cycle.status,
            )
        };
        Status::new(Code::from_raw(code))
    }
    /// The pod's full JSON text, for fields the view does not carry.
    pub fn pod_json(&self, pod: &Pod) -> String {
        let f = slot(self.api().pod_json, "pod_json");
        read_json(|buf, cap| unsafe { f(pod.raw(), buf, cap) })
    }
    pub fn node_json(&self, node: &Node) -> String {
        let f = slot(self.api().node_json, "node_json");
        read_json(|buf, cap| unsafe { f(node.raw(), buf, cap) })
    }
}

/// Fills a buffer through a "write up to capacity, return the full length" service.
pub(crate) fn read_json(mut fill: impl FnMut(*mut c_char, usize) -> usize) -> String {
    let mut buf: Vec<u8> = Vec::new();
    loop {
        let n = fill(buf.as_mut_ptr() as *mut c_char, buf.len());
        if n <= buf.len() {
            buf.truncate(n);
            return String::from_utf8_lossy(&buf).into_owned();
        }
        buf.resize(n, 0);
    }
}

/// The type of an args node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgsType {
    Null,
    Bool,
    Int,
    Double,
    String,
    Array,
    Object,
}

/// A read-only node of the plugin's args tree (the profile's pluginConfig args merged over
/// the plugin's default args), valid while the plugin is being constructed.
#[derive(Clone, Copy)]
pub struct Args<'a> {
    api: &'a sys::sh_host_api,
    host: *mut sys::sh_host,
    node: *const sys::sh_args,
    errors: &'a Cell<usize>,
}

impl<'a> Args<'a> {
    pub(crate) fn new(
        api: &'a sys::sh_host_api,
        host: *mut sys::sh_host,
        node: *const sys::sh_args,
        errors: &'a Cell<usize>,
    ) -> Args<'a> {
        Args {
            api,
            host,
            node,
            errors,
        }
    }
    fn at_node(&self, node: *const sys::sh_args) -> Args<'a> {
        Args { node, ..*self }
    }

    pub fn kind(&self) -> ArgsType {
        if self.node.is_null() {
            return ArgsType::Null;
        }
        match unsafe { slot(self.api.args_type, "args_type")(self.node) } {
            sys::SH_ARGS_BOOL => ArgsType::Bool,
            sys::SH_ARGS_INT => ArgsType::Int,
            sys::SH_ARGS_DOUBLE => ArgsType::Double,
            sys::SH_ARGS_STRING => ArgsType::String,
            sys::SH_ARGS_ARRAY => ArgsType::Array,
            sys::SH_ARGS_OBJECT => ArgsType::Object,
            _ => ArgsType::Null,
        }
    }
    /// Present and not null.
    pub fn is_present(&self) -> bool {
        self.kind() != ArgsType::Null
    }
    /// The member `key` of an object (absent: a node whose kind is Null).
    pub fn get(&self, key: &str) -> Args<'a> {
        let child = match CString::new(key) {
            Ok(k) if !self.node.is_null() => unsafe {
                slot(self.api.args_get, "args_get")(self.node, k.as_ptr())
            },
            _ => std::ptr::null(),
        };
        self.at_node(child)
    }
    /// The length of an array or object; 0 otherwise.
    pub fn len(&self) -> usize {
        if self.node.is_null() {
            return 0;
        }
        unsafe { slot(self.api.args_size, "args_size")(self.node) }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Element `index` of an array (or the value of member `index` of an object).
    pub fn at(&self, index: usize) -> Args<'a> {
        if index >= self.len() {
            return self.at_node(std::ptr::null());
        }
        self.at_node(unsafe { slot(self.api.args_at, "args_at")(self.node, index) })
    }
    /// The key of member `index` of an object.
    pub fn key_at(&self, index: usize) -> &'a str {
        if index >= self.len() {
            return "";
        }
        unsafe { views::text(slot(self.api.args_key_at, "args_key_at")(self.node, index)) }
    }
    pub fn as_i64(&self) -> Option<i64> {
        match self.kind() {
            ArgsType::Int => Some(unsafe { slot(self.api.args_int, "args_int")(self.node) }),
            _ => None,
        }
    }
    /// Ints convert.
    pub fn as_f64(&self) -> Option<f64> {
        match self.kind() {
            ArgsType::Int | ArgsType::Double => {
                Some(unsafe { slot(self.api.args_double, "args_double")(self.node) })
            }
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self.kind() {
            ArgsType::Bool => {
                Some(unsafe { slot(self.api.args_bool, "args_bool")(self.node) } != 0)
            }
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&'a str> {
        match self.kind() {
            ArgsType::String => {
                Some(unsafe { views::text(slot(self.api.args_string, "args_string")(self.node)) })
            }
            _ => None,
        }
    }
    /// Member `key` as a string, `default` when absent; a member of another type is
    /// reported as an args error (and `default` returned).
    pub fn string_or(&self, key: &str, default: &'a str) -> &'a str {
        let member = self.get(key);
        match member.kind() {
            ArgsType::Null => default,
            ArgsType::String => member.as_str().unwrap_or(default),
            _ => {
                member.error("Invalid value: expected a string");
                default
            }
        }
    }

    /// Reports a validation problem at this node; the host adds its path and file:line:column.
    /// The plugin is then not created, whatever its constructor returns.
    pub fn error(&self, msg: &str) {
        if let Some(f) = self.api.args_error {
            unsafe {
                f(
                    self.host,
                    self.node,
                    msg.as_ptr() as *const c_char,
                    msg.len(),
                )
            }
        }
        self.errors.set(self.errors.get() + 1);
    }
    pub fn had_errors(&self) -> bool {
        self.errors.get() > 0
    }

    /// This node as JSON text, for a plugin that would rather hand its args to a JSON library
    /// of its own.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        json::write_json(self, &mut out);
        out
    }
}

impl<'a> json::Tree for Args<'a> {
    fn kind(&self) -> ArgsType {
        Args::kind(self)
    }
    fn len(&self) -> usize {
        Args::len(self)
    }
    fn at(&self, index: usize) -> Self {
        Args::at(self, index)
    }
    fn key_at(&self, index: usize) -> &str {
        Args::key_at(self, index)
    }
    fn as_bool(&self) -> Option<bool> {
        Args::as_bool(self)
    }
    fn as_i64(&self) -> Option<i64> {
        Args::as_i64(self)
    }
    fn as_f64(&self) -> Option<f64> {
        Args::as_f64(self)
    }
    fn as_str(&self) -> Option<&str> {
        Args::as_str(self)
    }
}

/// The CycleState of one scheduling cycle, and the services bound to it.
///
/// Filter and Score get `&Cycle` (the state is read-only for them: they run concurrently);
/// the other extension points get `&mut Cycle` and may write.
pub struct Cycle<'a> {
    api: &'a sys::sh_host_api,
    cycle: *mut sys::sh_cycle,
    status: *mut sys::sh_status,
}

/// A cycle-state entry: the value behind its type's id, so `read` can check the type.
#[repr(C)]
struct Entry<T> {
    type_id: TypeId,
    value: T,
}

struct StateOps<T>(PhantomData<T>);

impl<T: Clone + Send + Sync + 'static> StateOps<T> {
    const OPS: sys::sh_state_ops = sys::sh_state_ops {
        clone: Some(Self::clone_entry),
        free: Some(Self::free_entry),
    };
    unsafe extern "C" fn clone_entry(data: *const c_void) -> *mut c_void {
        let entry = &*(data as *const Entry<T>);
        // A panicking Clone must not unwind into the host: the entry is then not cloned.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| entry.value.clone())) {
            Ok(value) => Box::into_raw(Box::new(Entry {
                type_id: entry.type_id,
                value,
            })) as *mut c_void,
            Err(_) => std::ptr::null_mut(),
        }
    }
    unsafe extern "C" fn free_entry(data: *mut c_void) {
        if !data.is_null() {
            let entry = Box::from_raw(data as *mut Entry<T>);
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(entry)));
        }
    }
}

impl<'a> Cycle<'a> {
    pub(crate) fn new(
        api: &'a sys::sh_host_api,
        cycle: *mut sys::sh_cycle,
        status: *mut sys::sh_status,
    ) -> Cycle<'a> {
        Cycle { api, cycle, status }
    }
    pub fn handle(&self) -> *mut sys::sh_cycle {
        self.cycle
    }

    /// Stores `value` under `key`, replacing any previous entry. The host clones it (for
    /// preemption dry runs) with `T::clone` and drops it when the cycle ends. Keys are
    /// shared by all plugins: intern a name of your own (e.g. "PreFilterMyPlugin").
    pub fn write<T: Clone + Send + Sync + 'static>(&mut self, key: Id, value: T) {
        let entry = Box::into_raw(Box::new(Entry {
            type_id: TypeId::of::<T>(),
            value,
        }));
        let ops: &'static sys::sh_state_ops = &StateOps::<T>::OPS;
        unsafe {
            slot(self.api.cycle_write, "cycle_write")(self.cycle, key, entry as *mut c_void, ops)
        }
    }
    /// The value stored under `key` by `write::<T>`, or None (also when it holds another
    /// type).
    pub fn read<T: 'static>(&self, key: Id) -> Option<&T> {
        unsafe { self.entry::<T>(key).map(|e| &(*e).value) }
    }
    /// Like `read`, for changing the entry in place (PreFilter extensions do).
    pub fn read_mut<T: 'static>(&mut self, key: Id) -> Option<&mut T> {
        unsafe { self.entry::<T>(key).map(|e| &mut (*e).value) }
    }
    unsafe fn entry<T: 'static>(&self, key: Id) -> Option<*mut Entry<T>> {
        let p = slot(self.api.cycle_read, "cycle_read")(self.cycle, key);
        if p.is_null() || *(p as *const TypeId) != TypeId::of::<T>() {
            return None;
        }
        Some(p as *mut Entry<T>)
    }

    /// The cluster snapshot of this cycle.
    pub fn snapshot(&self) -> Snapshot<'_> {
        let snap = unsafe { slot(self.api.cycle_snapshot, "cycle_snapshot")(self.cycle) };
        Snapshot {
            api: self.api,
            snap,
            _cycle: PhantomData,
        }
    }
    /// The code the Filter phase gave `node` in this cycle (for PostFilter).
    pub fn node_filter_code(&self, node: &str) -> Code {
        let f = slot(self.api.node_filter_code, "node_filter_code");
        Code::from_raw(unsafe { f(self.cycle, node.as_ptr() as *const c_char, node.len()) })
    }
    /// Nominates `node` for the pod (PostFilter); "" clears the nomination.
    pub fn nominate(&mut self, node: &str) {
        let f = slot(self.api.postfilter_nominate, "postfilter_nominate");
        unsafe { f(self.cycle, node.as_ptr() as *const c_char, node.len()) }
    }
    /// Asks the host to move the pending pod `ns`/`name` to activeQ when this cycle succeeds
    /// (kube-scheduler's PodsToActivate). False, and nothing asked, on a host older than ABI
    /// 1.1 or for an empty namespace or name.
    pub fn activate_pod(&self, ns: &str, name: &str) -> bool {
        // cycle_activate_pod is the last slot of the 1.1 table.
        let has_slot = self.api.abi_minor >= 1
            && self.api.struct_size as usize >= end_of!(sys::sh_host_api, cycle_activate_pod);
        if ns.is_empty() || name.is_empty() || !has_slot {
            return false;
        }
        match self.api.cycle_activate_pod {
            Some(f) => {
                unsafe {
                    f(
                        self.cycle,
                        ns.as_ptr() as *const c_char,
                        ns.len(),
                        name.as_ptr() as *const c_char,
                        name.len(),
                    )
                };
                true
            }
            None => false,
        }
    }
}

/// The nodes of the cycle's snapshot; valid for the whole cycle.
pub struct Snapshot<'a> {
    pub(crate) api: &'a sys::sh_host_api,
    pub(crate) snap: *const sys::sh_snapshot,
    _cycle: PhantomData<&'a Cycle<'a>>,
}

impl<'a> Snapshot<'a> {
    pub fn len(&self) -> usize {
        unsafe { slot(self.api.snapshot_node_count, "snapshot_node_count")(self.snap) }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn get(&self, index: usize) -> Option<&'a NodeInfo> {
        if index >= self.len() {
            return None;
        }
        let p = unsafe { slot(self.api.snapshot_node_at, "snapshot_node_at")(self.snap, index) };
        unsafe { p.as_ref().map(|n| NodeInfo::from_raw(n)) }
    }
    pub fn find(&self, name: &str) -> Option<&'a NodeInfo> {
        let f = slot(self.api.snapshot_node_by_name, "snapshot_node_by_name");
        let p = unsafe { f(self.snap, name.as_ptr() as *const c_char, name.len()) };
        unsafe { p.as_ref().map(|n| NodeInfo::from_raw(n)) }
    }
    pub fn iter(&self) -> impl Iterator<Item = &'a NodeInfo> + '_ {
        (0..self.len()).filter_map(move |i| self.get(i))
    }
}

/// Where PreFilter restricts the nodes the cycle considers. Not adding any node means all.
pub struct PreFilterResult<'a> {
    api: &'a sys::sh_host_api,
    result: *mut sys::sh_prefilter_result,
}

impl<'a> PreFilterResult<'a> {
    pub(crate) fn new(
        api: &'a sys::sh_host_api,
        result: *mut sys::sh_prefilter_result,
    ) -> PreFilterResult<'a> {
        PreFilterResult { api, result }
    }
    pub fn add_node(&mut self, name: &str) {
        let f = slot(
            self.api.prefilter_result_add_node,
            "prefilter_result_add_node",
        );
        unsafe { f(self.result, name.as_ptr() as *const c_char, name.len()) }
    }
}
