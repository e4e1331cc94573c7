//! The object services of plugin.h (section 6, since 1.2) as methods of `Host`: reads of the
//! declared kinds, the object's JSON text, writes through the host's client, and the assume
//! cache.
//!
//! Each checks first that the host serves them (ABI 1.2 or newer, and a table long enough):
//! on an older host reads answer None or nothing, and writes an Error status saying why.
use std::os::raw::c_char;

use crate::host::{Cycle, Host};
use crate::object::{Kind, Object, ObjectWrite};
use crate::status::{Code, Status};
use crate::sys;

/// The host's table has the object and JSON services of ABI 1.2 (object_restore is the last).
pub(crate) fn serves_objects(api: &sys::sh_host_api) -> bool {
    api.abi_minor >= 2 && api.struct_size as usize >= end_of!(sys::sh_host_api, object_restore)
}

/// The C string view of `s`.
fn raw_str(s: &str) -> (*const c_char, usize) {
    (s.as_ptr() as *const c_char, s.len())
}

impl Host {
    /// The host serves objects of declared kinds (ABI 1.2 or newer).
    pub fn serves_objects(&self) -> bool {
        serves_objects(self.api())
    }

    /// Refuses a write on a host older than ABI 1.2.
    fn older_host(&self, service: &str) -> Status {
        Status::error(format!(
            "{}: the host's ABI is 1.{}, objects of declared kinds need 1.2",
            service,
            self.abi_minor()
        ))
    }

    /// The object `ns`/`name` of `kind` (`ns` "" for a cluster-scoped kind), or None. With the
    /// call's cycle (`Some(cycle)`, a `&mut Cycle` as well) the read sees the cycle's version
    /// of the kind, the one every plugin sees in this cycle; with None (PreEnqueue, queueing
    /// hints, a thread of the plugin's own), the latest. An object the plugin assumed
    /// (`object_assume`) hides the stored one.
    pub fn object_get<'s, 'c: 's>(
        &'s self,
        cycle: Option<&'s Cycle<'c>>,
        kind: Kind,
        ns: &str,
        name: &str,
    ) -> Option<&'s Object> {
        let f = match self.api().object_get {
            Some(f) if self.serves_objects() => f,
            _ => return None,
        };
        let cycle = cycle.map_or(std::ptr::null_mut(), |c| c.handle());
        let (ns_ptr, ns_len) = raw_str(ns);
        let (name_ptr, name_len) = raw_str(name);
        let p = unsafe {
            f(
                self.handle(),
                cycle,
                kind.0,
                ns_ptr,
                ns_len,
                name_ptr,
                name_len,
            )
        };
        unsafe { p.as_ref().map(|o| Object::from_raw(o)) }
    }

    /// The number naming the objects of `kind` as the cycle (`Some(cycle)`) or, with None, the
    /// present reads them: while it stays the same, so do `object_get` and `object_list`, and
    /// what a plugin derived from them may be kept across cycles. 0 (no version: derive again)
    /// for an unknown kind and on a host older than ABI 1.3.
    pub fn object_kind_version(&self, cycle: Option<&Cycle>, kind: Kind) -> u64 {
        let api = self.api();
        let served = api.abi_minor >= 3
            && api.struct_size as usize >= end_of!(sys::sh_host_api, object_kind_version);
        match api.object_kind_version {
            Some(f) if served => {
                let cycle = cycle.map_or(std::ptr::null_mut(), |c| c.handle());
                unsafe { f(self.handle(), cycle, kind.0) }
            }
            _ => 0,
        }
    }

    /// The objects of `kind` in namespace `ns` ("" for every namespace) whose labels match
    /// `selector` (kubectl's syntax: "app=web,tier in (a,b),!canary"; "" for all), ordered by
    /// namespace then name; the cycle as for `object_get`. A selector that does not parse
    /// matches nothing, and the host counts it as a failure of the plugin.
    ///
    /// The views are the host's; only the list of them is copied, because the host reuses its
    /// array on the thread's next list.
    pub fn object_list<'s, 'c: 's>(
        &'s self,
        cycle: Option<&'s Cycle<'c>>,
        kind: Kind,
        ns: &str,
        selector: &str,
    ) -> Vec<&'s Object> {
        let f = match self.api().object_list {
            Some(f) if self.serves_objects() => f,
            _ => return Vec::new(),
        };
        let cycle = cycle.map_or(std::ptr::null_mut(), |c| c.handle());
        let (ns_ptr, ns_len) = raw_str(ns);
        let (sel_ptr, sel_len) = raw_str(selector);
        let mut out: *const *const sys::sh_object = std::ptr::null();
        unsafe {
            let n = f(
                self.handle(),
                cycle,
                kind.0,
                ns_ptr,
                ns_len,
                sel_ptr,
                sel_len,
                &mut out,
            );
            Object::vec_from_raw(out, n)
        }
    }

    /// The object's JSON text as the host holds it; "" on a host older than ABI 1.2.
    pub fn object_json(&self, object: &Object) -> String {
        match self.api().object_json {
            Some(f) if self.serves_objects() => {
                crate::host::read_json(|buf, cap| unsafe { f(object.raw(), buf, cap) })
            }
            _ => String::new(),
        }
    }

    /// Writes through the host's client, blocking until the API server answered: Success, or
    /// Error with the API's message (and the host's refusals: a verb not declared on the kind,
    /// a call outside PostFilter, Reserve, Permit, PreBind, Bind and PostBind, a bad body).
    /// The change reaches reads when the watch delivers it; `object_assume` shows it sooner.
    /// Under `schedhost evaluate` and `test` nothing is written: the plan reports the write.
    pub fn object_write(&self, cycle: &Cycle<'_>, write: &ObjectWrite<'_>) -> Status {
        let f = match self.api().object_write {
            Some(f) if self.serves_objects() => f,
            _ => return self.older_host("object_write"),
        };
        let raw = write.to_raw();
        self.with_status(|st| unsafe { f(self.handle(), cycle.handle(), &raw, st) })
    }

    /// Assumes `json`, a changed version of a stored object of `kind` (same namespace and
    /// name, and the resourceVersion it was derived from): reads return it in its place
    /// (`Object::is_assumed`) until the watch delivers a newer version or `object_restore`.
    /// Error when there is no such stored object, the stored one is newer, or `json` does not
    /// parse.
    pub fn object_assume(&self, kind: Kind, json: &str) -> Status {
        let f = match self.api().object_assume {
            Some(f) if self.serves_objects() => f,
            _ => return self.older_host("object_assume"),
        };
        let (ptr, len) = raw_str(json);
        self.with_status(|st| unsafe { f(self.handle(), kind.0, ptr, len, st) })
    }

    /// Drops the assumed version of `ns`/`name`; reads see the stored one again. Nothing on a
    /// host older than ABI 1.2.
    pub fn object_restore(&self, kind: Kind, ns: &str, name: &str) {
        if let Some(f) = self.api().object_restore.filter(|_| self.serves_objects()) {
            let (ns_ptr, ns_len) = raw_str(ns);
            let (name_ptr, name_len) = raw_str(name);
            unsafe { f(self.handle(), kind.0, ns_ptr, ns_len, name_ptr, name_len) }
        }
    }

    /// Runs a service that reports into a status of its own, and returns its code with the
    /// reasons it wrote, for the plugin to pass on or not.
    fn with_status(&self, call: impl FnOnce(*mut sys::sh_status) -> sys::sh_code) -> Status {
        let api = self.api();
        let st = match api.status_create {
            Some(create) => unsafe { create() },
            None => std::ptr::null_mut(),
        };
        let mut status = Status::new(Code::from_raw(call(st)));
        if !st.is_null() {
            if let (Some(count), Some(at)) = (api.status_reason_count, api.status_reason_at) {
                for i in 0..unsafe { count(st) } {
                    let reason = unsafe { crate::views::bytes(at(st, i)) };
                    status.add_reason(String::from_utf8_lossy(reason).into_owned());
                }
            }
            if let Some(destroy) = api.status_destroy {
                unsafe { destroy(st) }
            }
        }
        status
    }
}
