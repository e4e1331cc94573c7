//! Write schedhost scheduler plugins in Rust.
//!
//! A plugin is a `cdylib` exporting one C symbol, `schedhost_plugin_v1`, per the C ABI of
//! `schedhost/plugin.h` (declared for Rust in [`sys`]). This crate puts a safe layer over
//! it: a plugin type implements [`Plugin`] and one trait per extension point it serves
//! ([`Filter`], [`Score`], ...), reads pods and nodes through read-only views ([`Pod`],
//! [`Node`], [`NodeInfo`]), answers a [`Status`], and is exported with [`export_plugin!`]:
//!
//! ```ignore
//! use schedhost_sdk::{export_plugin, Args, Cycle, Filter, Host, NodeInfo, Plugin, Pod, Status};
//!
//! struct NoGpu;
//! impl Plugin for NoGpu {
//!     fn new(_host: Host, _args: Args<'_>) -> Result<Self, String> { Ok(NoGpu) }
//! }
//! impl Filter for NoGpu {
//!     fn filter(&self, _: &Cycle<'_>, _: &Pod, node: &NodeInfo) -> Status {
//!         if node.node().labels().contains_key("gpu") {
//!             return Status::unschedulable("node(s) had a GPU");
//!         }
//!         Status::success()
//!     }
//! }
//! export_plugin!(plugin: NoGpu, name: "NoGpu", version: "1.0.0", points: [Filter]);
//! ```
//!
//! A plugin that reads cluster objects beyond pods and nodes (a PodGroup, a
//! PersistentVolumeClaim, any custom resource) declares their kinds with [`object_kind!`] in
//! `export_plugin!`'s `kinds`, and reads them by index ([`Kind`]) with [`Host::object_get`]
//! and [`Host::object_list`]; an [`Object`] view gives its metadata and its JSON tree
//! ([`Json`]). Writes go through the host's client ([`Host::object_write`], [`ObjectWrite`]),
//! and [`Host::object_assume`] makes a change visible before the watch delivers it. These need
//! a host of ABI 1.2; on an older host reads answer nothing and writes an Error status.
//!
//! ABI 1.3 adds a pod's volumes ([`Pod::volumes`], [`Volume`]) and resource claims, a node's
//! declared features ([`Node::has_declared_feature`]), the manifest a pod or node was read from
//! as a [`Json`] tree ([`Host::pod_manifest`], [`Host::node_manifest`]) and whether a
//! PersistentVolumeClaim is in use in the cycle's snapshot ([`Snapshot::pvc_in_use`]). On an
//! older host these read as empty, null or false.
//!
//! A panic in plugin code never crosses into the host: it becomes an Error status carrying
//! the panic's message. Standard library only; builds with Rust 1.63.

pub mod sys;

/// The offset just past `field` of `T`: what a struct_size must cover before the field is read.
macro_rules! end_of {
    ($t:ty, $field:ident) => {{
        let value = ::std::mem::MaybeUninit::<$t>::uninit();
        let base = value.as_ptr();
        // addr_of! takes the field's address without reading the uninitialised value.
        let field = unsafe { ::std::ptr::addr_of!((*base).$field) };
        fn size_of_pointee<F>(_: *const F) -> usize {
            ::std::mem::size_of::<F>()
        }
        field as usize - base as usize + size_of_pointee(field)
    }};
}

mod binding_waits;
mod claims_and_manifests;
mod host;
mod json;
mod object;
mod object_services;
mod plugin;
mod status;
mod views;

#[doc(hidden)]
pub mod export;

pub use binding_waits::WaitEnd;
pub use host::{Args, ArgsType, Cycle, Host, LogLevel, PreFilterResult, Snapshot};
pub use json::{Json, JsonType};
#[doc(hidden)]
pub use object::declare as __declare_kind;
pub use object::{Kind, Object, ObjectKind, ObjectWrite, PatchType, Verb};
pub use plugin::{
    Bind, EnqueueExtensions, EventRegistration, Filter, NormalizeScore, Permit, Plugin, PostBind,
    PostFilter, PreBind, PreEnqueue, PreFilter, PreFilterExtensions, PreScore, QueueSort,
    QueueingHint, Reserve, Score,
};
pub use status::{Code, Status};
pub use views::{
    resource, EventObjects, Id, Label, Labels, Node, NodeInfo, NodeScore, Pod, QueuedPod,
    Resources, Volume, VolumeSource,
};

/// The crate's version, which is the schedhost version it ships with.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Exports `schedhost_plugin_v1` and the .shmeta record for a plugin type. Use once per
/// library.
///
/// ```ignore
/// export_plugin!(
///     plugin: MyPlugin,            // implements Plugin and the traits below
///     name: "MyPlugin",            // the name profiles use (at most 63 bytes)
///     version: "1.0.0",            // the plugin's own version (at most 31 bytes)
///     points: [PreFilter, Filter, Score],
///     default_args: r#"{"weight": 1}"#,   // optional: JSON the profile's args merge over
///     flags: schedhost_sdk::sys::SH_PLUGIN_SERIALIZE, // optional
///     kinds: [POD_GROUPS, CLAIMS],         // optional: ObjectKind constants (object_kind!)
/// );
/// ```
///
/// `points` lists the traits the type implements, among PreEnqueue, QueueSort, PreFilter,
/// PreFilterExtensions, Filter, PostFilter, PreScore, Score, NormalizeScore, Reserve (with
/// Unreserve), Permit, PreBind, Bind, PostBind and EnqueueExtensions. Naming a trait the type
/// does not implement is a compile error. PreFilterExtensions implies PreFilter and
/// NormalizeScore implies Score.
///
/// `kinds` lists the kinds of objects the plugin reads and writes, each an [`ObjectKind`]
/// (from [`object_kind!`]); a kind's position in the list is its [`Kind`] index. More than
/// `sys::SH_MAX_DECLARED_KINDS` (64) does not compile.
#[macro_export]
macro_rules! export_plugin {
    (
        plugin: $ty:ty,
        name: $name:expr,
        version: $version:expr,
        points: [$($point:ident),* $(,)?]
        $(, default_args: $args:literal)?
        $(, flags: $flags:expr)?
        $(, kinds: [$($kind:expr),* $(,)?])?
        $(,)?
    ) => {
        /// The schedhost plugin entry point (plugin.h, section 7).
        #[no_mangle]
        pub extern "C" fn schedhost_plugin_v1() -> *const $crate::sys::sh_plugin_descriptor {
            const POINTS: u32 = 0 $(| $crate::__point_bit!($point))*;
            const FLAGS: u32 = 0 $(| $flags)?;
            #[used]
            #[link_section = ".shmeta"]
            static METADATA: $crate::export::MetadataRecord =
                $crate::export::metadata($name, $version, POINTS, FLAGS);
            const KIND_COUNT: usize = 0 $($(+ $crate::__one!($kind))*)?;
            const _: () = assert!(
                KIND_COUNT <= $crate::sys::SH_MAX_DECLARED_KINDS as usize,
                "export_plugin!: more than SH_MAX_DECLARED_KINDS (64) kinds"
            );
            static KINDS: [$crate::ObjectKind; KIND_COUNT] = [$($($kind),*)?];
            static VTABLE: $crate::sys::sh_plugin_vtable = {
                #[allow(unused_mut)]
                let mut v = $crate::sys::sh_plugin_vtable::EMPTY;
                $($crate::__set_slots!(v, $ty, $point);)*
                v
            };
            static DESCRIPTOR: $crate::export::Descriptor =
                $crate::export::Descriptor($crate::sys::sh_plugin_descriptor {
                    struct_size: ::std::mem::size_of::<$crate::sys::sh_plugin_descriptor>() as u32,
                    abi_major: $crate::sys::SH_ABI_MAJOR,
                    abi_minor: $crate::sys::SH_ABI_MINOR,
                    // The record's NUL-terminated copies: one spelling of name and version.
                    name: &METADATA.0.name as *const _ as *const ::std::os::raw::c_char,
                    version: &METADATA.0.version as *const _ as *const ::std::os::raw::c_char,
                    default_args_json: $crate::__default_args!($($args)?),
                    flags: FLAGS,
                    reserved_: 0,
                    create: Some($crate::export::create::<$ty>),
                    destroy: Some($crate::export::destroy::<$ty>),
                    vtable: &VTABLE,
                    kinds: if KIND_COUNT == 0 {
                        ::std::ptr::null()
                    } else {
                        // ObjectKind is a repr(transparent) sh_object_kind.
                        &KINDS as *const _ as *const $crate::sys::sh_object_kind
                    },
                    kind_count: KIND_COUNT as u32,
                    reserved2_: 0,
                });
            &DESCRIPTOR.0
        }
    };
}

/// Declares a kind of object the plugin reads, as the API server serves it
/// (`/api/v1/<resource>` for the core group, `/apis/<group>/<version>/<resource>` otherwise):
/// an [`ObjectKind`] constant for `export_plugin!`'s `kinds`.
///
/// ```
/// use schedhost_sdk::{object_kind, Kind, ObjectKind};
///
/// const POD_GROUPS: ObjectKind = object_kind! {
///     group: "scheduling.x-k8s.io",   // "" for the core group
///     version: "v1alpha1",
///     resource: "podgroups",          // the plural the API serves
///     kind: "PodGroup",
///     namespaced: true,
///     verbs: [UpdateStatus],          // optional: the writes the plugin makes (Verb names)
///     label_selector: "team=batch",   // optional: narrows what the host watches
///     field_selector: "",             // optional, the same
/// };
/// // Its index, when POD_GROUPS is first in `kinds`.
/// const POD_GROUP: Kind = Kind(0);
/// assert_eq!(POD_GROUPS.resource(), "podgroups");
/// ```
///
/// The strings are literals; an empty version, resource or kind, an upper-case resource or a
/// NUL byte does not compile:
///
/// ```compile_fail
/// const BAD: schedhost_sdk::ObjectKind = schedhost_sdk::object_kind! {
///     group: "", version: "v1", resource: "PersistentVolumeClaims",
///     kind: "PersistentVolumeClaim", namespaced: true,
/// };
/// ```
#[macro_export]
macro_rules! object_kind {
    (
        group: $group:literal,
        version: $version:literal,
        resource: $resource:literal,
        kind: $kind:literal,
        namespaced: $namespaced:expr
        $(, verbs: [$($verb:ident),* $(,)?])?
        $(, label_selector: $label_selector:literal)?
        $(, field_selector: $field_selector:literal)?
        $(,)?
    ) => {{
        // A constant, so that the checks run at compile time wherever the macro is used.
        const KIND: $crate::ObjectKind = $crate::__declare_kind(
            concat!($group, "\0"),
            concat!($version, "\0"),
            concat!($resource, "\0"),
            concat!($kind, "\0"),
            $namespaced,
            0 $($(| $crate::Verb::$verb.bit())*)?,
            concat!($($label_selector,)? "\0"),
            concat!($($field_selector,)? "\0"),
        );
        KIND
    }};
}

#[doc(hidden)]
#[macro_export]
macro_rules! __one {
    ($x:expr) => {
        1usize
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __default_args {
    () => {
        ::std::ptr::null()
    };
    ($args:literal) => {
        concat!($args, "\0").as_ptr() as *const ::std::os::raw::c_char
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __point_bit {
    (PreEnqueue) => {
        $crate::sys::SH_POINT_PRE_ENQUEUE
    };
    (QueueSort) => {
        $crate::sys::SH_POINT_QUEUE_SORT
    };
    (PreFilter) => {
        $crate::sys::SH_POINT_PRE_FILTER
    };
    (PreFilterExtensions) => {
        $crate::sys::SH_POINT_PRE_FILTER
    };
    (Filter) => {
        $crate::sys::SH_POINT_FILTER
    };
    (PostFilter) => {
        $crate::sys::SH_POINT_POST_FILTER
    };
    (PreScore) => {
        $crate::sys::SH_POINT_PRE_SCORE
    };
    (Score) => {
        $crate::sys::SH_POINT_SCORE
    };
    (NormalizeScore) => {
        $crate::sys::SH_POINT_SCORE
    };
    (Reserve) => {
        $crate::sys::SH_POINT_RESERVE
    };
    (Permit) => {
        $crate::sys::SH_POINT_PERMIT
    };
    (PreBind) => {
        $crate::sys::SH_POINT_PRE_BIND
    };
    (Bind) => {
        $crate::sys::SH_POINT_BIND
    };
    (PostBind) => {
        $crate::sys::SH_POINT_POST_BIND
    };
    (EnqueueExtensions) => {
        0u32
    };
    ($other:ident) => {
        compile_error!(concat!(
            "export_plugin!: unknown extension point `",
            stringify!($other),
            "`"
        ))
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __set_slots {
    ($v:ident, $ty:ty, PreEnqueue) => {
        $v.pre_enqueue = Some($crate::export::pre_enqueue::<$ty>);
    };
    ($v:ident, $ty:ty, QueueSort) => {
        $v.queue_sort_less = Some($crate::export::queue_sort_less::<$ty>);
    };
    ($v:ident, $ty:ty, PreFilter) => {
        $v.pre_filter = Some($crate::export::pre_filter::<$ty>);
    };
    ($v:ident, $ty:ty, PreFilterExtensions) => {
        $v.pre_filter = Some($crate::export::pre_filter::<$ty>);
        $v.pre_filter_add_pod = Some($crate::export::pre_filter_add_pod::<$ty>);
        $v.pre_filter_remove_pod = Some($crate::export::pre_filter_remove_pod::<$ty>);
    };
    ($v:ident, $ty:ty, Filter) => {
        $v.filter = Some($crate::export::filter::<$ty>);
    };
    ($v:ident, $ty:ty, PostFilter) => {
        $v.post_filter = Some($crate::export::post_filter::<$ty>);
    };
    ($v:ident, $ty:ty, PreScore) => {
        $v.pre_score = Some($crate::export::pre_score::<$ty>);
    };
    ($v:ident, $ty:ty, Score) => {
        $v.score = Some($crate::export::score::<$ty>);
    };
    ($v:ident, $ty:ty, NormalizeScore) => {
        $v.score = Some($crate::export::score::<$ty>);
        $v.normalize_score = Some($crate::export::normalize_score::<$ty>);
    };
    ($v:ident, $ty:ty, Reserve) => {
        $v.reserve = Some($crate::export::reserve::<$ty>);
        $v.unreserve = Some($crate::export::unreserve::<$ty>);
    };
    ($v:ident, $ty:ty, Permit) => {
        $v.permit = Some($crate::export::permit::<$ty>);
    };
    ($v:ident, $ty:ty, PreBind) => {
        $v.pre_bind = Some($crate::export::pre_bind::<$ty>);
    };
    ($v:ident, $ty:ty, Bind) => {
        $v.bind = Some($crate::export::bind::<$ty>);
    };
    ($v:ident, $ty:ty, PostBind) => {
        $v.post_bind = Some($crate::export::post_bind::<$ty>);
    };
    ($v:ident, $ty:ty, EnqueueExtensions) => {
        $v.events_to_register = Some($crate::export::events_to_register::<$ty>);
        $v.queueing_hint = Some($crate::export::queueing_hint::<$ty>);
    };
    ($v:ident, $ty:ty, $other:ident) => {};
}
