//! Objects of declared kinds (plugin.h, since 1.2): the declaration a plugin exports
//! (`ObjectKind`, built by `object_kind!`), the index it reads them by (`Kind`), the read-only
//! `Object` view, and the writes it asks the host for (`ObjectWrite`).
use std::os::raw::c_char;

use crate::json::Json;
use crate::sys;
use crate::views::{text, Labels};

/// A kind by its index in the plugin's `kinds` (the order of `export_plugin!`'s list).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Kind(pub u32);

impl Kind {
    /// The resource of an event registration on this kind (`SH_RESOURCE_DECLARED_KIND` + the
    /// index), for `EventRegistration::resource`.
    pub const fn event_resource(self) -> i32 {
        sys::SH_RESOURCE_DECLARED_KIND + self.0 as i32
    }
}

/// A write a plugin makes on a kind; it declares each one it uses (`object_kind!`'s `verbs`),
/// and the host refuses the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verb {
    Create,
    Update,
    Patch,
    /// Both the update and the patch of the status subresource.
    UpdateStatus,
    Delete,
}

impl Verb {
    /// The `SH_VERB_*` bit.
    pub const fn bit(self) -> u32 {
        match self {
            Verb::Create => sys::SH_VERB_CREATE,
            Verb::Update => sys::SH_VERB_UPDATE,
            Verb::Patch => sys::SH_VERB_PATCH,
            Verb::UpdateStatus => sys::SH_VERB_UPDATE_STATUS,
            Verb::Delete => sys::SH_VERB_DELETE,
        }
    }
}

/// The content type of a patch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PatchType {
    /// application/merge-patch+json (RFC 7386).
    Merge,
    /// application/strategic-merge-patch+json; built-in kinds only.
    StrategicMerge,
    /// application/json-patch+json (RFC 6902).
    Json,
}

impl PatchType {
    pub const fn to_raw(self) -> sys::sh_patch_type {
        match self {
            PatchType::Merge => sys::SH_PATCH_MERGE,
            PatchType::StrategicMerge => sys::SH_PATCH_STRATEGIC_MERGE,
            PatchType::Json => sys::SH_PATCH_JSON,
        }
    }
}

/// One kind a plugin declares in its descriptor (`sh_object_kind`): static data, built at
/// compile time by `object_kind!` and listed in `export_plugin!`'s `kinds`.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct ObjectKind(sys::sh_object_kind);

// The declaration is static data the host only reads (sys::sh_object_kind is Sync too).
unsafe impl Sync for ObjectKind {}

impl ObjectKind {
    /// # Safety
    /// Every string pointer of `raw` must be null (the selectors only) or a NUL-terminated
    /// string of static data; `object_kind!` builds them so.
    pub const unsafe fn from_raw(raw: sys::sh_object_kind) -> ObjectKind {
        ObjectKind(raw)
    }
    pub fn raw(&self) -> &sys::sh_object_kind {
        &self.0
    }
    /// The API group; "" for the core group.
    pub fn group(&self) -> &'static str {
        unsafe { c_text(self.0.group) }
    }
    pub fn version(&self) -> &'static str {
        unsafe { c_text(self.0.version) }
    }
    /// The plural the API serves ("podgroups").
    pub fn resource(&self) -> &'static str {
        unsafe { c_text(self.0.resource) }
    }
    /// The objects' kind ("PodGroup").
    pub fn kind(&self) -> &'static str {
        unsafe { c_text(self.0.kind) }
    }
    pub fn is_namespaced(&self) -> bool {
        self.0.namespaced != 0
    }
    /// `SH_VERB_*` bits of the writes the plugin makes.
    pub fn verbs(&self) -> u32 {
        self.0.verbs
    }
    /// "" when there is none.
    pub fn label_selector(&self) -> &'static str {
        unsafe { c_text(self.0.label_selector) }
    }
    pub fn field_selector(&self) -> &'static str {
        unsafe { c_text(self.0.field_selector) }
    }
}

/// The text of a static NUL-terminated string; "" for null.
unsafe fn c_text(p: *const c_char) -> &'static str {
    if p.is_null() {
        return "";
    }
    std::ffi::CStr::from_ptr(p).to_str().unwrap_or("")
}

/// `s`, which `object_kind!` gave a NUL terminator, as a C string; a NUL inside it fails the
/// build, as it would cut the name short.
const fn c_string(s: &'static str) -> *const c_char {
    let bytes = s.as_bytes();
    if bytes.is_empty() || bytes[bytes.len() - 1] != 0 {
        panic!("object_kind!: a string lacks its NUL terminator");
    }
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == 0 {
            panic!("object_kind!: a name or selector holds a NUL byte");
        }
        i += 1;
    }
    s.as_ptr() as *const c_char
}

/// The declaration `object_kind!` expands to, checked at compile time before the host checks
/// it at load: version, resource and kind are not empty, the resource is lower-case, and no
/// string holds a NUL. Every string comes with its NUL terminator; a selector of just "\0" is
/// none.
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub const fn declare(
    group: &'static str,
    version: &'static str,
    resource: &'static str,
    kind: &'static str,
    namespaced: bool,
    verbs: u32,
    label_selector: &'static str,
    field_selector: &'static str,
) -> ObjectKind {
    if version.len() <= 1 {
        panic!("object_kind!: version is empty");
    }
    if resource.len() <= 1 {
        panic!("object_kind!: resource is empty");
    }
    if kind.len() <= 1 {
        panic!("object_kind!: kind is empty");
    }
    let r = resource.as_bytes();
    let mut i = 0;
    while i < r.len() {
        if r[i].is_ascii_uppercase() {
            panic!("object_kind!: resource is not lower-case (the plural the API serves)");
        }
        i += 1;
    }
    ObjectKind(sys::sh_object_kind {
        struct_size: std::mem::size_of::<sys::sh_object_kind>() as u32,
        verbs,
        group: c_string(group),
        version: c_string(version),
        resource: c_string(resource),
        kind: c_string(kind),
        namespaced: namespaced as i32,
        reserved_: 0,
        label_selector: optional_c_string(label_selector),
        field_selector: optional_c_string(field_selector),
    })
}

/// A selector: null for none ("\0").
const fn optional_c_string(s: &'static str) -> *const c_char {
    if s.len() <= 1 {
        let _ = c_string(s);
        return std::ptr::null();
    }
    c_string(s)
}

/// An object of a declared kind, as the host holds it: valid for the whole cycle it was read
/// in (for a binding cycle, until PostBind returns), and for a read outside a cycle until the
/// calling function returns.
#[repr(transparent)]
pub struct Object(sys::sh_object);

impl Object {
    /// # Safety
    /// `p` must be a valid, non-null object view that outlives `'a`.
    pub unsafe fn from_raw<'a>(p: *const sys::sh_object) -> &'a Object {
        &*(p as *const Object)
    }
    /// Views from a C array of pointers, copied into a Vec (the array itself may be reused
    /// by the host: see `Host::object_list`).
    ///
    /// # Safety
    /// `ptr` must point to `count` valid, non-null object pointers whose objects outlive `'a`.
    pub(crate) unsafe fn vec_from_raw<'a>(
        ptr: *const *const sys::sh_object,
        count: usize,
    ) -> Vec<&'a Object> {
        // &Object and *const sh_object have the same layout (repr(transparent)).
        crate::views::slice(ptr as *const &Object, count).to_vec()
    }
    /// "scheduling.x-k8s.io/v1alpha1", "v1".
    pub fn api_version(&self) -> &str {
        unsafe { text(self.0.api_version) }
    }
    /// "PodGroup".
    pub fn kind(&self) -> &str {
        unsafe { text(self.0.kind) }
    }
    /// "" for a cluster-scoped kind.
    pub fn namespace(&self) -> &str {
        unsafe { text(self.0.namespace_) }
    }
    pub fn name(&self) -> &str {
        unsafe { text(self.0.name) }
    }
    /// metadata.uid; "" when the object has none (a scenario may leave it out).
    pub fn uid(&self) -> &str {
        unsafe { text(self.0.uid) }
    }
    /// metadata.resourceVersion, as the API server wrote it.
    pub fn resource_version(&self) -> &str {
        unsafe { text(self.0.resource_version) }
    }
    /// metadata.labels, sorted by key id.
    pub fn labels(&self) -> Labels<'_> {
        unsafe { Labels::new(self.0.labels, self.0.label_count) }
    }
    /// metadata.creationTimestamp; 0 when unset.
    pub fn creation_unix_nanos(&self) -> i64 {
        self.0.creation_unix_nanos
    }
    /// metadata.deletionTimestamp is set.
    pub fn is_deleting(&self) -> bool {
        self.0.deleting != 0
    }
    /// This is a version the plugin assumed in memory (`Host::object_assume`).
    pub fn is_assumed(&self) -> bool {
        self.0.assumed != 0
    }
    /// The whole object as the host's read-only JSON tree: `root().path("spec.minMember")`.
    pub fn root(&self) -> Json<'_> {
        Json::with_table(self.0.root)
    }
    pub fn raw(&self) -> &sys::sh_object {
        &self.0
    }
}

/// A write through the host's client (`Host::object_write`): one per verb, on the kind at an
/// index of the plugin's `kinds`. Bodies are JSON text; the host checks them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObjectWrite<'a> {
    verb: Verb,
    kind: Kind,
    patch_type: Option<PatchType>,
    namespace: &'a str,
    name: &'a str,
    body: &'a str,
}

impl<'a> ObjectWrite<'a> {
    fn new(verb: Verb, kind: Kind, body: &'a str) -> ObjectWrite<'a> {
        ObjectWrite {
            verb,
            kind,
            patch_type: None,
            namespace: "",
            name: "",
            body,
        }
    }
    /// POST `object`; its namespace is its metadata's unless `in_namespace` says otherwise.
    pub fn create(kind: Kind, object: &'a str) -> ObjectWrite<'a> {
        ObjectWrite::new(Verb::Create, kind, object)
    }
    /// PUT `object` (namespace and name from its metadata); the API server checks its
    /// resourceVersion.
    pub fn update(kind: Kind, object: &'a str) -> ObjectWrite<'a> {
        ObjectWrite::new(Verb::Update, kind, object)
    }
    /// PATCH `ns`/`name` with `patch` of type `patch_type`.
    pub fn patch(
        kind: Kind,
        ns: &'a str,
        name: &'a str,
        patch_type: PatchType,
        patch: &'a str,
    ) -> ObjectWrite<'a> {
        ObjectWrite {
            patch_type: Some(patch_type),
            namespace: ns,
            name,
            ..ObjectWrite::new(Verb::Patch, kind, patch)
        }
    }
    /// PUT `object` to the status subresource (namespace and name from its metadata).
    pub fn update_status(kind: Kind, object: &'a str) -> ObjectWrite<'a> {
        ObjectWrite::new(Verb::UpdateStatus, kind, object)
    }
    /// PATCH the status subresource of `ns`/`name` (the verb is UpdateStatus, as upstream's
    /// RBAC sees it).
    pub fn patch_status(
        kind: Kind,
        ns: &'a str,
        name: &'a str,
        patch_type: PatchType,
        patch: &'a str,
    ) -> ObjectWrite<'a> {
        ObjectWrite {
            patch_type: Some(patch_type),
            namespace: ns,
            name,
            ..ObjectWrite::new(Verb::UpdateStatus, kind, patch)
        }
    }
    /// DELETE `ns`/`name`.
    pub fn delete(kind: Kind, ns: &'a str, name: &'a str) -> ObjectWrite<'a> {
        ObjectWrite {
            namespace: ns,
            name,
            ..ObjectWrite::new(Verb::Delete, kind, "")
        }
    }
    /// The namespace to write in, for a namespaced kind (a create may leave it to the body).
    pub fn in_namespace(self, ns: &'a str) -> ObjectWrite<'a> {
        ObjectWrite {
            namespace: ns,
            ..self
        }
    }

    pub fn verb(&self) -> Verb {
        self.verb
    }
    pub fn kind(&self) -> Kind {
        self.kind
    }
    pub fn patch_type(&self) -> Option<PatchType> {
        self.patch_type
    }
    pub fn namespace(&self) -> &'a str {
        self.namespace
    }
    pub fn name(&self) -> &'a str {
        self.name
    }
    pub fn body(&self) -> &'a str {
        self.body
    }

    /// The C request; its strings borrow from `self`.
    pub fn to_raw(&self) -> sys::sh_object_write {
        let s = |t: &str| sys::sh_str {
            ptr: t.as_ptr() as *const c_char,
            len: t.len(),
        };
        sys::sh_object_write {
            struct_size: std::mem::size_of::<sys::sh_object_write>() as u32,
            verb: self.verb.bit(),
            kind: self.kind.0,
            patch_type: self
                .patch_type
                .map_or(sys::SH_PATCH_NONE, PatchType::to_raw),
            namespace_: s(self.namespace),
            name: s(self.name),
            body: s(self.body),
        }
    }
}
