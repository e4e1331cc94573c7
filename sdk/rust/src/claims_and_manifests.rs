//! The services of plugin.h that ABI 1.3 added (section 6, "Claims in use and manifests"):
//! whether a PersistentVolumeClaim is in use in the cycle's snapshot, as a method of
//! `Snapshot`, and the manifests of pods and nodes as JSON trees, as methods of `Host`.
//!
//! Each checks first that the host serves them (ABI 1.3 or newer, and a table long enough): on
//! an older host no claim is in use and a manifest is a null `Json`.
use std::os::raw::c_char;

use crate::host::{Host, Snapshot};
use crate::json::Json;
use crate::sys;
use crate::views::{Node, Pod};

/// The host's table has the services of ABI 1.3 (node_manifest is the last).
pub(crate) fn serves_claims_and_manifests(api: &sys::sh_host_api) -> bool {
    api.abi_minor >= 3 && api.struct_size as usize >= end_of!(sys::sh_host_api, node_manifest)
}

impl Host {
    /// The host serves the PVCs in use (`Snapshot::pvc_in_use`) and the manifests of pods and
    /// nodes (ABI 1.3 or newer).
    pub fn serves_claims_and_manifests(&self) -> bool {
        serves_claims_and_manifests(self.api())
    }

    /// The manifest `pod` was read from, as a read-only JSON tree, for the fields the view does
    /// not carry (security contexts, limits, annotations). The host parses it on the first call
    /// for that pod and keeps it as long as the pod's view. A null `Json` on a host older than
    /// ABI 1.3.
    pub fn pod_manifest<'p>(&self, pod: &'p Pod) -> Json<'p> {
        let node = match self.api().pod_manifest {
            Some(f) if self.serves_claims_and_manifests() => unsafe { f(self.handle(), pod.raw()) },
            _ => std::ptr::null(),
        };
        unsafe { Json::from_raw(self.api(), node) }
    }

    /// The manifest `node` was read from, as `pod_manifest` gives a pod's.
    pub fn node_manifest<'n>(&self, node: &'n Node) -> Json<'n> {
        let tree = match self.api().node_manifest {
            Some(f) if self.serves_claims_and_manifests() => unsafe {
                f(self.handle(), node.raw())
            },
            _ => std::ptr::null(),
        };
        unsafe { Json::from_raw(self.api(), tree) }
    }
}

impl<'a> Snapshot<'a> {
    /// A pod of the snapshot (bound, or assumed by this scheduler) uses the
    /// PersistentVolumeClaim `ns`/`name`, through a persistentVolumeClaim or an ephemeral
    /// volume (upstream's usedPVCSet). False on a host older than ABI 1.3
    /// (`Host::serves_claims_and_manifests`).
    pub fn pvc_in_use(&self, ns: &str, name: &str) -> bool {
        match self.api.snapshot_pvc_in_use {
            Some(f) if serves_claims_and_manifests(self.api) => unsafe {
                f(
                    self.snap,
                    ns.as_ptr() as *const c_char,
                    ns.len(),
                    name.as_ptr() as *const c_char,
                    name.len(),
                ) != 0
            },
            _ => false,
        }
    }
}
