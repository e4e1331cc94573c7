//! Objects of declared kinds as a plugin reads, hears about and writes them: the wrappers of
//! the 1.2 services against a fake host table that records what it is given, driven through
//! the trampolines of `export_plugin!` where the call needs a cycle.
mod fake_host;

use std::cell::RefCell;
use std::os::raw::{c_char, c_void};

use fake_host::J;
use schedhost_sdk::sys::*;
use schedhost_sdk::{
    export, export_plugin, object_kind, Args, Code, Cycle, EnqueueExtensions, EventObjects,
    EventRegistration, Host, Json, JsonType, Kind, Object, ObjectKind, ObjectWrite, PatchType,
    Plugin, Pod, PreBind, PreFilter, PreFilterResult, QueueingHint, Status,
};

const WIDGETS: ObjectKind = object_kind! {
    group: "example.com",
    version: "v1",
    resource: "widgets",
    kind: "Widget",
    namespaced: true,
    verbs: [Create, Update, Patch, UpdateStatus, Delete],
};
const WIDGET: Kind = Kind(0);

/// The widget "gate" of a pod's namespace lets its pods through while spec.open is true;
/// events on widgets requeue a pod only when the new gate is open. PreBind runs the script the
/// test set (`script`), for the services only a binding point may call.
struct Gate {
    host: Host,
}

type Script = Box<dyn FnOnce(&Host, &mut Cycle<'_>) -> Status>;
thread_local! {
    static SCRIPT: RefCell<Option<Script>> = RefCell::new(None);
}

fn script(f: impl FnOnce(&Host, &mut Cycle<'_>) -> Status + 'static) {
    SCRIPT.with(|s| *s.borrow_mut() = Some(Box::new(f)));
}

fn is_open(gate: Option<&Object>) -> bool {
    gate.map_or(false, |g| {
        g.root().path("spec.open").as_bool() == Some(true)
    })
}

impl Plugin for Gate {
    fn new(host: Host, _args: Args<'_>) -> Result<Self, String> {
        Ok(Gate { host })
    }
}

impl PreFilter for Gate {
    fn pre_filter(&self, cycle: &mut Cycle<'_>, pod: &Pod, _: &mut PreFilterResult<'_>) -> Status {
        if is_open(
            self.host
                .object_get(Some(cycle), WIDGET, pod.namespace(), "gate"),
        ) {
            return Status::success();
        }
        Status::unschedulable("widget gate is closed")
    }
}

impl PreBind for Gate {
    fn pre_bind(&self, cycle: &mut Cycle<'_>, _: &Pod, _: &str) -> Status {
        let f = SCRIPT
            .with(|s| s.borrow_mut().take())
            .expect("the test set a script");
        f(&self.host, cycle)
    }
}

impl EnqueueExtensions for Gate {
    fn events_to_register(&self) -> Vec<EventRegistration> {
        vec![EventRegistration {
            resource: WIDGET.event_resource(),
            actions: SH_ACTION_ADD | SH_ACTION_UPDATE,
            has_hint: true,
        }]
    }
    fn queueing_hint(&self, _: usize, _: &Pod, event: &EventObjects) -> QueueingHint {
        match event.kind() {
            Some(WIDGET) if !is_open(event.new_object()) => QueueingHint::Skip,
            _ => QueueingHint::Queue,
        }
    }
}

export_plugin!(
    plugin: Gate,
    name: "Gate",
    version: "0.1.0",
    points: [PreFilter, PreBind, EnqueueExtensions],
    kinds: [WIDGETS],
);

fn str_of(text: &'static str) -> sh_str {
    sh_str {
        ptr: text.as_ptr() as *const c_char,
        len: text.len(),
    }
}

fn pod_in(ns: &'static str) -> sh_pod {
    let mut pod: sh_pod = unsafe { std::mem::zeroed() };
    pod.struct_size = std::mem::size_of::<sh_pod>() as u32;
    pod.name = str_of("web-0");
    pod.namespace_ = str_of(ns);
    pod
}

/// The plugin as the host creates it.
fn create(api: &'static sh_host_api) -> *mut c_void {
    let me = unsafe { export::create::<Gate>(api, std::ptr::null_mut(), std::ptr::null()) };
    assert!(!me.is_null());
    me
}

/// A cycle handle the fake host never dereferences.
fn a_cycle() -> *mut sh_cycle {
    std::ptr::NonNull::dangling().as_ptr()
}

/// Runs `f` in the plugin's PreBind, as the host would, and returns the code and the reasons
/// the plugin answered.
fn in_pre_bind(
    api: &'static sh_host_api,
    f: impl FnOnce(&Host, &mut Cycle<'_>) -> Status + 'static,
) -> (sh_code, Vec<String>) {
    let me = create(api);
    script(f);
    let pod = pod_in("default");
    let answer = with_status(api, |status| unsafe {
        export::pre_bind::<Gate>(me, a_cycle(), &pod, str_of("node-a"), status)
    });
    unsafe { export::destroy::<Gate>(me) };
    answer
}

/// Makes the call's status, as the host does, and returns the code and the reasons written
/// into it.
fn with_status(
    api: &'static sh_host_api,
    call: impl FnOnce(*mut sh_status) -> sh_code,
) -> (sh_code, Vec<String>) {
    let status = unsafe { (api.status_create.unwrap())() };
    let code = call(status);
    let reasons = unsafe {
        (0..(api.status_reason_count.unwrap())(status))
            .map(|i| {
                let r = (api.status_reason_at.unwrap())(status, i);
                String::from_utf8_lossy(std::slice::from_raw_parts(r.ptr as *const u8, r.len))
                    .into_owned()
            })
            .collect()
    };
    unsafe { (api.status_destroy.unwrap())(status) };
    (code, reasons)
}

/// default/gate (open, labels tier=gold), default/side (closed), other/gate (closed,
/// tier=gold); one object of another kind index.
fn store_widgets() {
    fake_host::store(
        0,
        "Widget",
        "default",
        "gate",
        &[(20, "tier", 21, "gold"), (30, "zone", 31, "a")],
        J::Object(vec![
            ("apiVersion", J::Str("example.com/v1")),
            (
                "spec",
                J::Object(vec![
                    ("open", J::Bool(true)),
                    ("replicas", J::Int(3)),
                    ("ratio", J::Double(2.0)),
                    ("share", J::Double(2.5)),
                ]),
            ),
            (
                "status",
                J::Object(vec![(
                    "conditions",
                    J::Array(vec![
                        J::Object(vec![("type", J::Str("Ready"))]),
                        J::Object(vec![("type", J::Str("Open")), ("status", J::Str("True"))]),
                    ]),
                )]),
            ),
            ("note", J::Null),
        ]),
    );
    fake_host::store(
        0,
        "Widget",
        "default",
        "side",
        &[(20, "tier", 22, "silver")],
        J::Object(vec![("spec", J::Object(vec![("open", J::Bool(false))]))]),
    );
    fake_host::store(
        0,
        "Widget",
        "other",
        "gate",
        &[(20, "tier", 21, "gold")],
        J::Object(vec![("spec", J::Object(vec![("open", J::Bool(false))]))]),
    );
    fake_host::store(1, "Gadget", "default", "gate", &[], J::Object(vec![]));
}

fn names(objects: &[&Object]) -> Vec<String> {
    objects
        .iter()
        .map(|o| format!("{}/{}", o.namespace(), o.name()))
        .collect()
}

#[test]
fn reads_in_a_cycle_see_the_cycles_version_and_reads_without_one_the_latest() {
    let api = fake_host::api();
    store_widgets();
    let me = create(api);
    let pre_filter = |ns: &'static str| {
        let pod = pod_in(ns);
        with_status(api, |status| unsafe {
            export::pre_filter::<Gate>(me, a_cycle(), &pod, std::ptr::null_mut(), status)
        })
    };

    // default/gate is open: PreFilter passes, having read it through the cycle.
    assert_eq!(pre_filter("default"), (SH_SUCCESS, vec![]));
    assert_eq!(
        fake_host::take_calls(),
        vec!["get cycle kind 0 default/gate"]
    );

    // other/gate is closed: Unschedulable with the plugin's reason.
    assert_eq!(
        pre_filter("other"),
        (SH_UNSCHEDULABLE, vec!["widget gate is closed".to_string()])
    );

    let host = unsafe { Host::from_raw(api, std::ptr::null_mut()) };
    fake_host::take_calls();
    assert_eq!(
        host.object_get(None, WIDGET, "default", "side")
            .map(|o| o.name()),
        Some("side")
    );
    assert!(host
        .object_get(None, WIDGET, "default", "missing")
        .is_none());
    assert_eq!(
        fake_host::take_calls(),
        vec![
            "get latest kind 0 default/side",
            "get latest kind 0 default/missing"
        ]
    );
    unsafe { export::destroy::<Gate>(me) };
}

#[test]
fn an_object_view_carries_the_objects_metadata() {
    let api = fake_host::api();
    store_widgets();
    let host = unsafe { Host::from_raw(api, std::ptr::null_mut()) };
    let gate = host.object_get(None, WIDGET, "default", "gate").unwrap();
    assert_eq!(gate.api_version(), "example.com/v1");
    assert_eq!(gate.kind(), "Widget");
    assert_eq!(gate.namespace(), "default");
    assert_eq!(gate.name(), "gate");
    assert_eq!(gate.uid(), "0b5c-uid");
    assert_eq!(gate.resource_version(), "42");
    assert_eq!(gate.creation_unix_nanos(), 1_700_000_000_000_000_000);
    assert!(!gate.is_deleting());
    assert!(!gate.is_assumed());
    assert_eq!(gate.labels().len(), 2);
    assert_eq!(gate.labels().get("tier"), Some("gold"));
    // Labels are sorted by key id: "zone" (30) is found by its id.
    assert_eq!(gate.labels().get_id(30), Some(31));
    assert_eq!(host.object_json(gate), gate_text());
}

fn gate_text() -> &'static str {
    r#"{"kind":"Widget","metadata":{"namespace":"default","name":"gate"}}"#
}

#[test]
fn the_json_view_walks_the_objects_tree() {
    let api = fake_host::api();
    store_widgets();
    let host = unsafe { Host::from_raw(api, std::ptr::null_mut()) };
    let root = host
        .object_get(None, WIDGET, "default", "gate")
        .unwrap()
        .root();

    assert_eq!(root.kind(), JsonType::Object);
    assert_eq!(root.len(), 4);
    assert_eq!(root.key_at(1), "spec");
    assert_eq!(root.key_at(4), "", "past the end");
    let spec = root.get("spec");
    assert_eq!(spec.get("replicas").as_i64(), Some(3));
    assert_eq!(spec.get("replicas").as_f64(), Some(3.0), "integers convert");
    // A whole double reads as an integer, as the host's json_int does; 2.5 does not.
    assert_eq!(spec.get("ratio").as_i64(), Some(2));
    assert_eq!(spec.get("share").as_i64(), None);
    assert_eq!(spec.get("share").as_f64(), Some(2.5));
    assert_eq!(spec.get("open").as_bool(), Some(true));
    assert_eq!(spec.get("open").as_str(), None, "another type is None");
    assert_eq!(root.path("status.conditions.1.type").as_str(), Some("Open"));
    let conditions = root.path("status.conditions");
    assert_eq!(conditions.kind(), JsonType::Array);
    assert_eq!(conditions.len(), 2);
    assert_eq!(conditions.at(0).get("type").as_str(), Some("Ready"));
    assert_eq!(
        conditions
            .iter()
            .map(|c| c.get("type").as_str().unwrap_or(""))
            .collect::<Vec<_>>(),
        vec!["Ready", "Open"]
    );
    assert_eq!(
        conditions
            .at(1)
            .members()
            .map(|(k, _)| k)
            .collect::<Vec<_>>(),
        vec!["type", "status"]
    );
    assert_eq!(conditions.members().count(), 0, "an array has no members");

    // Absent nodes read as null, all the way down.
    for absent in [
        root.get("nope"),
        root.path("spec.open.deeper"),
        root.path("status.conditions.7"),
        conditions.at(2),
        root.get("nope").get("more").at(0),
    ] {
        assert_eq!(absent.kind(), JsonType::Null);
        assert!(!absent.is_present());
        assert!(absent.raw().is_null());
        assert_eq!(absent.len(), 0);
        assert_eq!(absent.as_i64(), None);
        assert_eq!(absent.as_str(), None);
    }
    // A JSON null is present in the tree but reads as Null.
    assert!(!root.get("note").raw().is_null());
    assert_eq!(root.get("note").kind(), JsonType::Null);

    assert_eq!(
        spec.to_json(),
        r#"{"open":true,"replicas":3,"ratio":2.0,"share":2.5}"#
    );
    assert_eq!(
        root.path("status").to_json(),
        r#"{"conditions":[{"type":"Ready"},{"type":"Open","status":"True"}]}"#
    );
}

#[test]
fn a_json_view_without_a_table_of_1_2_reads_as_null() {
    let api = fake_host::api();
    let tree: &'static J = Box::leak(Box::new(J::Object(vec![("a", J::Int(1))])));
    let node = tree as *const J as *const sh_json;
    let with = unsafe { Json::from_raw(api, node) };
    assert_eq!(with.get("a").as_i64(), Some(1));
    let older = unsafe { Json::from_raw(fake_host::api_1_1(), node) };
    assert_eq!(
        older.get("a").as_i64(),
        None,
        "a 1.1 table has no JSON services"
    );
    let without = unsafe { Json::from_raw(std::ptr::null(), node) };
    assert_eq!(without.kind(), JsonType::Null);
    assert_eq!(without.get("a").as_i64(), None);
    assert_eq!(without.len(), 0);
    assert_eq!(without.to_json(), "null");
}

#[test]
fn lists_filter_by_namespace_and_selector_and_outlive_the_hosts_next_list() {
    let api = fake_host::api();
    store_widgets();
    let host = unsafe { Host::from_raw(api, std::ptr::null_mut()) };

    let in_default = host.object_list(None, WIDGET, "default", "");
    // The host reuses its array for the thread's next list; the first list is a copy.
    let gold = host.object_list(None, WIDGET, "", "tier=gold");
    assert_eq!(names(&in_default), vec!["default/gate", "default/side"]);
    assert_eq!(names(&gold), vec!["default/gate", "other/gate"]);
    assert_eq!(
        names(&host.object_list(None, WIDGET, "", "")),
        vec!["default/gate", "default/side", "other/gate"]
    );
    // The fake's selectors are key=value only: another does not parse and matches nothing.
    assert!(host
        .object_list(None, WIDGET, "", "tier in (gold)")
        .is_empty());
    assert_eq!(
        names(&host.object_list(None, Kind(1), "", "")),
        vec!["default/gate"]
    );
    assert_eq!(
        fake_host::take_calls(),
        vec![
            r#"list latest kind 0 ns "default" selector """#,
            r#"list latest kind 0 ns "" selector "tier=gold""#,
            r#"list latest kind 0 ns "" selector """#,
            r#"list latest kind 0 ns "" selector "tier in (gold)""#,
            r#"list latest kind 1 ns "" selector """#,
        ]
    );
}

#[test]
fn a_list_in_a_cycle_reads_the_cycles_version() {
    let api = fake_host::api();
    store_widgets();
    let (code, reasons) = in_pre_bind(api, |host, cycle| {
        let n = host.object_list(Some(cycle), WIDGET, "other", "").len();
        Status::with_reason(Code::Success, format!("{} widget(s)", n))
    });
    assert_eq!(
        (code, reasons),
        (SH_SUCCESS, vec!["1 widget(s)".to_string()])
    );
    assert_eq!(
        fake_host::take_calls(),
        vec![r#"list cycle kind 0 ns "other" selector """#]
    );
}

#[test]
fn each_write_passes_its_verb_kind_patch_type_and_names() {
    let api = fake_host::api();
    let pod_group = r#"{"metadata":{"name":"pg"}}"#;
    let merge = r#"{"status":{"lastPod":"web-0"}}"#;
    let json_patch = r#"[{"op":"add","path":"/spec/x","value":1}]"#;
    let cases: Vec<(ObjectWrite<'static>, String)> = vec![
        (
            ObjectWrite::create(WIDGET, pod_group).in_namespace("default"),
            format!(
                r#"verb 1 kind 0 patch 0 ns "default" name "" body {}"#,
                pod_group
            ),
        ),
        (
            ObjectWrite::update(Kind(1), pod_group),
            format!(r#"verb 2 kind 1 patch 0 ns "" name "" body {}"#, pod_group),
        ),
        (
            ObjectWrite::patch(WIDGET, "default", "gate", PatchType::Merge, merge),
            format!(
                r#"verb 4 kind 0 patch 1 ns "default" name "gate" body {}"#,
                merge
            ),
        ),
        (
            ObjectWrite::patch(WIDGET, "default", "gate", PatchType::Json, json_patch),
            format!(
                r#"verb 4 kind 0 patch 3 ns "default" name "gate" body {}"#,
                json_patch
            ),
        ),
        (
            ObjectWrite::update_status(WIDGET, pod_group),
            format!(r#"verb 8 kind 0 patch 0 ns "" name "" body {}"#, pod_group),
        ),
        (
            ObjectWrite::patch_status(WIDGET, "default", "gate", PatchType::StrategicMerge, merge),
            format!(
                r#"verb 8 kind 0 patch 2 ns "default" name "gate" body {}"#,
                merge
            ),
        ),
        (
            ObjectWrite::delete(WIDGET, "default", "gate"),
            r#"verb 16 kind 0 patch 0 ns "default" name "gate" body "#.to_string(),
        ),
    ];
    for (write, expected) in cases {
        let (code, reasons) = in_pre_bind(api, move |host, cycle| host.object_write(cycle, &write));
        assert_eq!(code, SH_SUCCESS, "{}", expected);
        assert!(reasons.is_empty());
        assert_eq!(
            fake_host::take_calls(),
            vec![format!("write cycle {}", expected)]
        );
    }
    assert_eq!(
        fake_host::live_statuses(),
        0,
        "every status the crate made is destroyed"
    );
}

#[test]
fn a_refused_write_is_an_error_status_with_the_apis_message() {
    let api = fake_host::api();
    let (code, reasons) = in_pre_bind(api, |host, cycle| {
        let write = ObjectWrite::update(WIDGET, r#"{"conflict":true}"#);
        assert_eq!(write.verb(), schedhost_sdk::Verb::Update);
        let status = host.object_write(cycle, &write);
        assert_eq!(status.code(), Code::Error);
        // The plugin decides what to answer: here, the write's status as it is.
        status
    });
    assert_eq!(code, SH_ERROR);
    assert_eq!(
        reasons,
        vec!["Operation cannot be fulfilled: the object has been modified"]
    );
    assert_eq!(fake_host::live_statuses(), 0);
}

#[test]
fn assume_reports_the_hosts_answer_and_restore_passes_the_names() {
    let api = fake_host::api();
    let host = unsafe { Host::from_raw(api, std::ptr::null_mut()) };
    let newer = r#"{"metadata":{"namespace":"default","name":"gate","resourceVersion":"42"}}"#;
    let stale = r#"{"metadata":{"namespace":"default","name":"gate","resourceVersion":"1"}}"#;
    assert_eq!(host.object_assume(WIDGET, newer), Status::success());
    let refused = host.object_assume(WIDGET, stale);
    assert_eq!(refused.code(), Code::Error);
    assert_eq!(
        refused.reasons().collect::<Vec<_>>(),
        vec!["object_assume: the stored version 42 is newer"]
    );
    host.object_restore(WIDGET, "default", "gate");
    assert_eq!(
        fake_host::take_calls(),
        vec![
            format!("assume kind 0 {}", newer),
            format!("assume kind 0 {}", stale),
            "restore kind 0 default/gate".to_string(),
        ]
    );
    assert_eq!(fake_host::live_statuses(), 0);
}

fn event(
    size: usize,
    resource: i32,
    old: Option<&Object>,
    new: Option<&Object>,
    kind: u32,
) -> sh_event_objects {
    let mut e: sh_event_objects = unsafe { std::mem::zeroed() };
    e.struct_size = size as u32;
    e.resource = resource;
    e.actions = SH_ACTION_UPDATE;
    e.old_object = old.map_or(std::ptr::null(), |o| o.raw());
    e.new_object = new.map_or(std::ptr::null(), |o| o.raw());
    e.kind = kind;
    e
}

#[test]
fn queueing_hints_see_the_objects_and_kind_of_an_event() {
    let api = fake_host::api();
    store_widgets();
    let host = unsafe { Host::from_raw(api, std::ptr::null_mut()) };
    let open = host.object_get(None, WIDGET, "default", "gate");
    let closed = host.object_get(None, WIDGET, "default", "side");
    let me = create(api);
    let pod = pod_in("default");

    let mut registrations = [sh_event_registration {
        resource: 0,
        actions: 0,
        has_hint: 0,
        reserved_: 0,
    }];
    assert_eq!(
        unsafe { export::events_to_register::<Gate>(me, registrations.as_mut_ptr(), 1) },
        1
    );
    assert_eq!(
        registrations[0].resource, 0x10000,
        "SH_RESOURCE_DECLARED_KIND + 0"
    );
    assert_eq!(registrations[0].actions, SH_ACTION_ADD | SH_ACTION_UPDATE);

    let full = std::mem::size_of::<sh_event_objects>();
    let opened = event(full, 0x10000, closed, open, 0);
    let closing = event(full, 0x10000, open, closed, 0);
    let hint = |e: &sh_event_objects| unsafe { export::queueing_hint::<Gate>(me, 0, &pod, e) };
    assert_eq!(hint(&opened), SH_QUEUE);
    assert_eq!(hint(&closing), SH_QUEUE_SKIP);

    let view = unsafe { EventObjects::from_raw(&closing) };
    assert_eq!(view.kind(), Some(WIDGET));
    assert_eq!(view.old_object().map(|o| o.name()), Some("gate"));
    assert_eq!(view.new_object().map(|o| o.name()), Some("side"));

    // A delete has no new object, and still names the kind.
    let deleted = event(full, 0x10000, closed, None, 0);
    let view = unsafe { EventObjects::from_raw(&deleted) };
    assert_eq!(view.kind(), Some(WIDGET));
    assert!(view.new_object().is_none());

    // A pod event carries no object: no kind, whatever the field holds.
    let pod_event = event(full, SH_RESOURCE_POD, None, None, 0);
    assert_eq!(unsafe { EventObjects::from_raw(&pod_event) }.kind(), None);

    // A 1.1 host's struct ends before the object fields: they are never read.
    let old_size = full - 24;
    let from_1_1 = event(old_size, SH_RESOURCE_NODE, open, closed, 0);
    let view = unsafe { EventObjects::from_raw(&from_1_1) };
    assert!(view.old_object().is_none());
    assert!(view.new_object().is_none());
    assert_eq!(view.kind(), None);
    assert_eq!(hint(&from_1_1), SH_QUEUE);
    unsafe { export::destroy::<Gate>(me) };
}

#[test]
fn an_older_host_reads_nothing_and_refuses_writes() {
    let api = fake_host::api_1_1();
    store_widgets();
    let host = unsafe { Host::from_raw(api, std::ptr::null_mut()) };
    assert!(!host.serves_objects());
    assert!(host.object_get(None, WIDGET, "default", "gate").is_none());
    assert!(host.object_list(None, WIDGET, "", "").is_empty());
    // An object from elsewhere (the newer host's table reads it) has no text on this host.
    let newer = unsafe { Host::from_raw(fake_host::api(), std::ptr::null_mut()) };
    let gate = newer.object_get(None, WIDGET, "default", "gate").unwrap();
    fake_host::take_calls();
    assert_eq!(host.object_json(gate), "");
    let assumed = host.object_assume(WIDGET, "{}");
    assert_eq!(assumed.code(), Code::Error);
    assert_eq!(
        assumed.reasons().collect::<Vec<_>>(),
        vec!["object_assume: the host's ABI is 1.1, objects of declared kinds need 1.2"]
    );
    host.object_restore(WIDGET, "default", "gate");

    // In a binding point: the write is refused, and the 1.1 service still works.
    let (code, reasons) = in_pre_bind(api, |host, cycle| {
        assert!(cycle.activate_pod("default", "web-1"));
        host.object_write(cycle, &ObjectWrite::delete(WIDGET, "default", "gate"))
    });
    assert_eq!(code, SH_ERROR);
    assert_eq!(
        reasons,
        vec!["object_write: the host's ABI is 1.1, objects of declared kinds need 1.2"]
    );
    // Not one 1.2 service was called, though the table's memory holds them.
    assert_eq!(fake_host::take_calls(), vec!["activate default/web-1"]);
}

#[test]
fn a_table_too_short_for_the_services_counts_as_older_whatever_its_minor() {
    let mut short: sh_host_api = unsafe { std::ptr::read(fake_host::api()) };
    short.struct_size = fake_host::size_of_1_1_table() + 8;
    let short: &'static sh_host_api = Box::leak(Box::new(short));
    let host = unsafe { Host::from_raw(short, std::ptr::null_mut()) };
    assert_eq!(host.abi_minor(), SH_ABI_MINOR);
    assert!(!host.serves_objects());
    assert!(host.object_get(None, WIDGET, "default", "gate").is_none());
    assert!(fake_host::take_calls().is_empty());
    assert!(unsafe { Host::from_raw(fake_host::api(), std::ptr::null_mut()) }.serves_objects());
}
