//! RustObjects: the Rust SDK's object services against the real host (ABI 1.2). The scenarios
//! in test/ hold Widgets (example.com/v1, namespaced), as a cluster would hold a custom
//! resource.
//!
//!   PreFilter  the pod passes only while the Widget "gate" of its namespace exists with
//!              spec.open true (read through the cycle); otherwise Unschedulable
//!              "widget gate is closed".
//!   Score      the sum of spec.weight over the Widgets of the pod's namespace labelled
//!              tier=gold (a list with a selector), capped at 100; the same on every node.
//!   PreBind    patches the gate's status (a merge patch of the status subresource) with the
//!              pod's name and the resourceVersion it read.
use schedhost_sdk::{
    export_plugin, object_kind, Args, Cycle, Host, Kind, NodeInfo, ObjectKind, ObjectWrite,
    PatchType, Plugin, Pod, PreBind, PreFilter, PreFilterResult, Score, Status,
};

const WIDGETS: ObjectKind = object_kind! {
    group: "example.com",
    version: "v1",
    resource: "widgets",
    kind: "Widget",
    namespaced: true,
    verbs: [UpdateStatus],
};
const WIDGET: Kind = Kind(0);

struct RustObjects {
    host: Host,
}

impl Plugin for RustObjects {
    fn new(host: Host, _args: Args<'_>) -> Result<Self, String> {
        if !host.serves_objects() {
            return Err("RustObjects needs a host of ABI 1.2".to_string());
        }
        Ok(RustObjects { host })
    }
}

impl PreFilter for RustObjects {
    fn pre_filter(
        &self,
        cycle: &mut Cycle<'_>,
        pod: &Pod,
        _result: &mut PreFilterResult<'_>,
    ) -> Status {
        let gate = self
            .host
            .object_get(Some(cycle), WIDGET, pod.namespace(), "gate");
        match gate {
            Some(g) if g.root().path("spec.open").as_bool() == Some(true) => Status::success(),
            _ => Status::unschedulable("widget gate is closed"),
        }
    }
}

impl Score for RustObjects {
    fn score(&self, cycle: &Cycle<'_>, pod: &Pod, _node: &NodeInfo) -> Result<i64, Status> {
        let gold = self
            .host
            .object_list(Some(cycle), WIDGET, pod.namespace(), "tier=gold");
        let weight: i64 = gold
            .iter()
            .map(|w| w.root().path("spec.weight").as_i64().unwrap_or(0))
            .sum();
        Ok(weight.min(100))
    }
}

impl PreBind for RustObjects {
    fn pre_bind(&self, cycle: &mut Cycle<'_>, pod: &Pod, _node: &str) -> Status {
        let seen = match self
            .host
            .object_get(Some(cycle), WIDGET, pod.namespace(), "gate")
        {
            Some(gate) => gate.resource_version().to_string(),
            None => return Status::error("the gate is gone"),
        };
        let patch = format!(
            r#"{{"status":{{"lastPod":"{}","seen":"{}"}}}}"#,
            pod.name(),
            seen
        );
        let write =
            ObjectWrite::patch_status(WIDGET, pod.namespace(), "gate", PatchType::Merge, &patch);
        self.host.object_write(cycle, &write)
    }
}

export_plugin!(
    plugin: RustObjects,
    name: "RustObjects",
    version: "0.1.0",
    points: [PreFilter, Score, PreBind],
    kinds: [WIDGETS],
);
