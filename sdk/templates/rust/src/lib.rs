//! @NAME@: a schedhost plugin.
//!
//!   Filter  rejects nodes labelled `@KEBAB@/reject=true`
//!   Score   100 for nodes labelled `@KEBAB@/preferred=true`, 0 otherwise
//!
//! Replace both with your own logic; add the traits of other extension points (PreFilter,
//! PostFilter, Reserve, Permit, Bind, ...) and list them in `points` below.
use schedhost_sdk::{export_plugin, Args, Cycle, Filter, Host, Id, NodeInfo, Plugin, Pod, Score, Status};

struct @NAME@ {
    // Interned once at construction: Filter and Score then compare integers.
    reject_key: Id,
    preferred_key: Id,
    true_value: Id,
}

impl Plugin for @NAME@ {
    // `args` holds the profile's pluginConfig args for this plugin (see `Args`); refuse bad
    // ones with Err(message) or args.error(...).
    fn new(host: Host, _args: Args<'_>) -> Result<Self, String> {
        Ok(@NAME@ {
            reject_key: host.intern("@KEBAB@/reject"),
            preferred_key: host.intern("@KEBAB@/preferred"),
            true_value: host.intern("true"),
        })
    }
}

impl Filter for @NAME@ {
    fn filter(&self, _cycle: &Cycle<'_>, _pod: &Pod, node: &NodeInfo) -> Status {
        if node.node().labels().get_id(self.reject_key) == Some(self.true_value) {
            return Status::unschedulable("node(s) were rejected by @NAME@");
        }
        Status::success()
    }
}

impl Score for @NAME@ {
    fn score(&self, _cycle: &Cycle<'_>, _pod: &Pod, node: &NodeInfo) -> Result<i64, Status> {
        let preferred = node.node().labels().get_id(self.preferred_key) == Some(self.true_value);
        Ok(if preferred { 100 } else { 0 })
    }
}

export_plugin!(plugin: @NAME@, name: "@NAME@", version: "0.1.0", points: [Filter, Score]);
