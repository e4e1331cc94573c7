//! One trait per extension point. A plugin type implements `Plugin` (construction from its
//! args) and the traits of the points it serves, then names those points in
//! `export_plugin!`, which checks at compile time that each trait is implemented.
//!
//! Every method takes `&self`: the host calls Filter and Score concurrently for different
//! nodes, and binding cycles concurrently with scheduling. Keep mutable state behind a
//! `Mutex` or atomics, or declare the plugin serialised (`flags: sys::SH_PLUGIN_SERIALIZE`).
use std::time::Duration;

use crate::host::{Args, Cycle, Host, PreFilterResult};
use crate::status::Status;
use crate::views::{EventObjects, NodeInfo, NodeScore, Pod, QueuedPod};

/// Construction. `args` is the profile's pluginConfig args merged over the plugin's default
/// args; it is valid only during `new`. Return `Err(message)` to refuse bad args (the host
/// shows the message at the args), or report each problem with `Args::error` (the plugin is
/// then not created, whatever `new` returns). `host` stays valid as long as the plugin lives.
pub trait Plugin: Sized + Send + Sync + 'static {
    fn new(host: Host, args: Args<'_>) -> Result<Self, String>;
}

/// PreEnqueue: may the pod enter activeQ? Lightweight; runs in the queue.
pub trait PreEnqueue: Plugin {
    fn pre_enqueue(&self, pod: &Pod) -> Status;
}

/// QueueSort: true when `a` should pop before `b`. Exactly one per profile.
pub trait QueueSort: Plugin {
    fn less(&self, a: &QueuedPod, b: &QueuedPod) -> bool;
}

/// PreFilter: prepare cycle state; may restrict the nodes with `result.add_node`. Return
/// `Status::skip()` to skip this plugin's Filter in this cycle.
pub trait PreFilter: Plugin {
    fn pre_filter(
        &self,
        cycle: &mut Cycle<'_>,
        pod: &Pod,
        result: &mut PreFilterResult<'_>,
    ) -> Status;
}

/// PreFilterExtensions: the host added or removed `other` on `node` (a copy) while
/// evaluating nominated pods or preemption; update the cycle state to match.
pub trait PreFilterExtensions: PreFilter {
    fn add_pod(&self, cycle: &mut Cycle<'_>, pod: &Pod, other: &Pod, node: &NodeInfo) -> Status;
    fn remove_pod(&self, cycle: &mut Cycle<'_>, pod: &Pod, other: &Pod, node: &NodeInfo) -> Status;
}

/// Filter: does the pod fit this node? Concurrent across nodes; the cycle state is read-only.
pub trait Filter: Plugin {
    fn filter(&self, cycle: &Cycle<'_>, pod: &Pod, node: &NodeInfo) -> Status;
}

/// PostFilter: runs after the pod fit nowhere; may nominate a node (`Cycle::nominate`).
pub trait PostFilter: Plugin {
    fn post_filter(&self, cycle: &mut Cycle<'_>, pod: &Pod) -> Status;
}

/// PreScore: prepare scoring over the feasible nodes. `Status::skip()` skips this plugin's
/// Score in this cycle.
pub trait PreScore: Plugin {
    fn pre_score(&self, cycle: &mut Cycle<'_>, pod: &Pod, nodes: &[&NodeInfo]) -> Status;
}

/// Score: a raw score for one node, or a failure status. Concurrent across nodes; the cycle
/// state is read-only. Without NormalizeScore the score must lie in [0, 100].
pub trait Score: Plugin {
    fn score(&self, cycle: &Cycle<'_>, pod: &Pod, node: &NodeInfo) -> Result<i64, Status>;
}

/// NormalizeScore: rewrite the scores in place; each must end in [0, 100].
pub trait NormalizeScore: Score {
    fn normalize_score(&self, cycle: &mut Cycle<'_>, pod: &Pod, scores: &mut [NodeScore])
        -> Status;
}

/// Reserve and Unreserve. `unreserve` must be idempotent and may run without `reserve`.
pub trait Reserve: Plugin {
    fn reserve(&self, cycle: &mut Cycle<'_>, pod: &Pod, node: &str) -> Status;
    fn unreserve(&self, cycle: &mut Cycle<'_>, pod: &Pod, node: &str);
}

/// Permit: `Code::Wait` with `*timeout` set holds the pod (capped by the host at 15 minutes)
/// until a plugin allows or rejects it (`Host::allow_waiting_pod`).
pub trait Permit: Plugin {
    fn permit(
        &self,
        cycle: &mut Cycle<'_>,
        pod: &Pod,
        node: &str,
        timeout: &mut Duration,
    ) -> Status;
}

/// PreBind: runs in the binding cycle, before Bind.
pub trait PreBind: Plugin {
    fn pre_bind(&self, cycle: &mut Cycle<'_>, pod: &Pod, node: &str) -> Status;
}

/// Bind: `Status::skip()` hands the pod to the next binder.
pub trait Bind: Plugin {
    fn bind(&self, cycle: &mut Cycle<'_>, pod: &Pod, node: &str) -> Status;
}

/// PostBind: informational, after a successful bind.
pub trait PostBind: Plugin {
    fn post_bind(&self, cycle: &mut Cycle<'_>, pod: &Pod, node: &str);
}

/// One cluster-event registration (kube-scheduler's ClusterEventWithHint).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventRegistration {
    /// `sys::SH_RESOURCE_*`.
    pub resource: i32,
    /// `sys::SH_ACTION_*` bits.
    pub actions: u32,
    /// Ask `queueing_hint` before requeueing; otherwise the answer is always Queue.
    pub has_hint: bool,
}

/// What a cluster event means for a pod this plugin rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueingHint {
    /// The event cannot make the pod schedulable.
    Skip,
    /// Retry the pod (after backoff).
    Queue,
}

/// EnqueueExtensions: the events that may make a pod this plugin rejected schedulable.
/// `events_to_register` is asked once, the first time the host needs the list.
pub trait EnqueueExtensions: Plugin {
    fn events_to_register(&self) -> Vec<EventRegistration>;
    /// Asked for registrations with `has_hint`; `index` is the registration's position.
    fn queueing_hint(&self, index: usize, pod: &Pod, event: &EventObjects) -> QueueingHint {
        let _ = (index, pod, event);
        QueueingHint::Queue
    }
}
