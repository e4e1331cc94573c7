//! The services of plugin.h that ABI 1.3 added for waits in the binding cycle (section 6,
//! "Planned writes and waits in the binding cycle"): whether writes are only planned
//! (`schedhost evaluate` and `test`), and a wait that ends as soon as the cycle is cancelled.
use std::time::Duration;

use crate::host::{Cycle, Host};
use crate::sys;

/// How `Host::cycle_wait` ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitEnd {
    /// The time passed.
    Elapsed,
    /// The scheduler is stopping (upstream: the context is canceled).
    Stopping,
    /// The pod was deleted, or is terminating.
    PodDeleted,
}

/// The host's table has writes_planned and cycle_wait (ABI 1.3, cycle_wait the last).
fn serves_binding_waits(api: &sys::sh_host_api) -> bool {
    api.abi_minor >= 3
        && api.struct_size as usize >= end_of!(sys::sh_host_api, cycle_wait)
        && api.writes_planned.is_some()
        && api.cycle_wait.is_some()
}

impl Host {
    /// True under `schedhost evaluate` and `test`: `object_write` only plans the write and
    /// nothing will act on it, so a plugin does not wait for a controller. False on a cluster
    /// and on a host older than ABI 1.3.
    pub fn writes_planned(&self) -> bool {
        match self.api().writes_planned {
            Some(f) if serves_binding_waits(self.api()) => unsafe { f(self.handle()) != 0 },
            _ => false,
        }
    }

    /// Waits up to `timeout` in a binding cycle (PreBind, Bind, PostBind; millisecond
    /// resolution, at most u32::MAX ms). Ends early when the binding cycle is cancelled: the
    /// scheduler stops, or the pod is deleted. On a host older than ABI 1.3 it sleeps and is
    /// never cancelled.
    pub fn cycle_wait(&self, cycle: &Cycle, timeout: Duration) -> WaitEnd {
        let millis = u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX);
        match self.api().cycle_wait {
            Some(f) if serves_binding_waits(self.api()) => {
                match unsafe { f(self.handle(), cycle.handle(), millis) } {
                    sys::SH_WAIT_ELAPSED => WaitEnd::Elapsed,
                    sys::SH_WAIT_POD_DELETED => WaitEnd::PodDeleted,
                    _ => WaitEnd::Stopping,
                }
            }
            _ => {
                std::thread::sleep(Duration::from_millis(u64::from(millis)));
                WaitEnd::Elapsed
            }
        }
    }
}
