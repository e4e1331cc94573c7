//! RustHello: a schedhost plugin in Rust whose effect on placements is easy to see.
//!
//!   Filter  rejects nodes labelled `rust-hello/reject=true` (Unschedulable,
//!           "node(s) were rejected by RustHello")
//!   Score   100 for nodes labelled `rust-hello/preferred=true`, 0 otherwise
//!
//! Args (all optional): {"rejectLabel": "<key>", "preferLabel": "<key>"} choose other label
//! keys; the value that counts is always "true".
use schedhost_sdk::{
    export_plugin, Args, Cycle, Filter, Host, Id, NodeInfo, Plugin, Pod, Score, Status,
};

struct RustHello {
    // Label keys and "true", interned once: Filter and Score compare integers.
    reject_key: Id,
    prefer_key: Id,
    true_value: Id,
}

impl Plugin for RustHello {
    fn new(host: Host, args: Args<'_>) -> Result<Self, String> {
        let reject = args.string_or("rejectLabel", "rust-hello/reject");
        let prefer = args.string_or("preferLabel", "rust-hello/preferred");
        if reject.is_empty() {
            args.get("rejectLabel").error("Required value: a label key");
        }
        Ok(RustHello {
            reject_key: host.intern(reject),
            prefer_key: host.intern(prefer),
            true_value: host.intern("true"),
        })
    }
}

impl Filter for RustHello {
    fn filter(&self, _cycle: &Cycle<'_>, _pod: &Pod, node: &NodeInfo) -> Status {
        if node.node().labels().get_id(self.reject_key) == Some(self.true_value) {
            return Status::unschedulable("node(s) were rejected by RustHello");
        }
        Status::success()
    }
}

impl Score for RustHello {
    fn score(&self, _cycle: &Cycle<'_>, _pod: &Pod, node: &NodeInfo) -> Result<i64, Status> {
        let preferred = node.node().labels().get_id(self.prefer_key) == Some(self.true_value);
        Ok(if preferred { 100 } else { 0 })
    }
}

export_plugin!(
    plugin: RustHello,
    name: "RustHello",
    version: "0.1.0",
    points: [Filter, Score],
    default_args: r#"{"rejectLabel": "rust-hello/reject", "preferLabel": "rust-hello/preferred"}"#,
);
