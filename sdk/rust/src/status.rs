//! Status: what an extension point answers, a code plus reasons.
use std::borrow::Cow;
use std::fmt;

use crate::sys;

/// kube-scheduler's framework.Code, with the values of plugin.h's `sh_code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    Success,
    Error,
    Unschedulable,
    UnschedulableAndUnresolvable,
    Wait,
    Skip,
    Pending,
}

impl Code {
    pub fn to_raw(self) -> sys::sh_code {
        match self {
            Code::Success => sys::SH_SUCCESS,
            Code::Error => sys::SH_ERROR,
            Code::Unschedulable => sys::SH_UNSCHEDULABLE,
            Code::UnschedulableAndUnresolvable => sys::SH_UNSCHEDULABLE_AND_UNRESOLVABLE,
            Code::Wait => sys::SH_WAIT,
            Code::Skip => sys::SH_SKIP,
            Code::Pending => sys::SH_PENDING,
        }
    }

    /// The code for a raw value; a value outside the ABI's codes reads as Error.
    pub fn from_raw(raw: sys::sh_code) -> Code {
        match raw {
            sys::SH_SUCCESS => Code::Success,
            sys::SH_UNSCHEDULABLE => Code::Unschedulable,
            sys::SH_UNSCHEDULABLE_AND_UNRESOLVABLE => Code::UnschedulableAndUnresolvable,
            sys::SH_WAIT => Code::Wait,
            sys::SH_SKIP => Code::Skip,
            sys::SH_PENDING => Code::Pending,
            _ => Code::Error,
        }
    }

    /// The name kube-scheduler prints ("Success", "Unschedulable", ...).
    pub fn name(self) -> &'static str {
        match self {
            Code::Success => "Success",
            Code::Error => "Error",
            Code::Unschedulable => "Unschedulable",
            Code::UnschedulableAndUnresolvable => "UnschedulableAndUnresolvable",
            Code::Wait => "Wait",
            Code::Skip => "Skip",
            Code::Pending => "Pending",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A code plus reasons. Reasons given as `&'static str` are kept borrowed, so a Filter that
/// rejects with a literal allocates nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    code: Code,
    reasons: Vec<Cow<'static, str>>,
}

impl Default for Status {
    fn default() -> Self {
        Status::success()
    }
}

impl Status {
    pub fn new(code: Code) -> Status {
        Status {
            code,
            reasons: Vec::new(),
        }
    }
    pub fn success() -> Status {
        Status::new(Code::Success)
    }
    pub fn skip() -> Status {
        Status::new(Code::Skip)
    }
    /// `code` with one reason.
    pub fn with_reason(code: Code, reason: impl Into<Cow<'static, str>>) -> Status {
        let mut s = Status::new(code);
        s.add_reason(reason);
        s
    }
    pub fn unschedulable(reason: impl Into<Cow<'static, str>>) -> Status {
        Status::with_reason(Code::Unschedulable, reason)
    }
    /// Unschedulable, and preemption cannot help.
    pub fn unresolvable(reason: impl Into<Cow<'static, str>>) -> Status {
        Status::with_reason(Code::UnschedulableAndUnresolvable, reason)
    }
    pub fn error(reason: impl Into<Cow<'static, str>>) -> Status {
        Status::with_reason(Code::Error, reason)
    }

    pub fn add_reason(&mut self, reason: impl Into<Cow<'static, str>>) {
        self.reasons.push(reason.into());
    }
    pub fn code(&self) -> Code {
        self.code
    }
    pub fn set_code(&mut self, code: Code) {
        self.code = code;
    }
    pub fn is_success(&self) -> bool {
        self.code == Code::Success
    }
    /// Unschedulable, UnschedulableAndUnresolvable or Pending: the pod was turned down.
    pub fn is_rejected(&self) -> bool {
        matches!(
            self.code,
            Code::Unschedulable | Code::UnschedulableAndUnresolvable | Code::Pending
        )
    }
    /// The reasons, in the order they were added.
    pub fn reasons(&self) -> impl Iterator<Item = &str> {
        self.reasons.iter().map(|r| r.as_ref())
    }

    /// Hands the reasons to the host (which copies them) and returns the raw code.
    ///
    /// # Safety
    /// `api` must be the host's table and `out` the status of the current call.
    pub(crate) unsafe fn deliver(
        &self,
        api: &sys::sh_host_api,
        out: *mut sys::sh_status,
    ) -> sys::sh_code {
        if let Some(add) = api.status_add_reason {
            for r in &self.reasons {
                add(out, r.as_ptr() as *const _, r.len());
            }
        }
        self.code.to_raw()
    }
}

impl From<Code> for Status {
    fn from(code: Code) -> Status {
        Status::new(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_through_raw_values() {
        let all = [
            Code::Success,
            Code::Error,
            Code::Unschedulable,
            Code::UnschedulableAndUnresolvable,
            Code::Wait,
            Code::Skip,
            Code::Pending,
        ];
        for (i, c) in all.iter().enumerate() {
            // The raw values are the enum's order, 0..=6, as in plugin.h.
            assert_eq!(c.to_raw(), i as i32);
            assert_eq!(Code::from_raw(c.to_raw()), *c);
        }
        assert_eq!(all.len(), sys::SH_CODE_COUNT);
        assert_eq!(Code::from_raw(42), Code::Error);
        assert_eq!(Code::from_raw(-1), Code::Error);
    }

    #[test]
    fn reasons_keep_their_order() {
        let mut s = Status::unschedulable("first");
        s.add_reason(format!("second {}", 2));
        assert_eq!(s.code(), Code::Unschedulable);
        assert!(s.is_rejected());
        assert!(!s.is_success());
        assert_eq!(s.reasons().collect::<Vec<_>>(), vec!["first", "second 2"]);
        assert!(Status::default().is_success());
        assert!(!Status::error("x").is_rejected());
    }
}
