//! The read-only JSON tree of an object of a declared kind (plugin.h `sh_json`, since 1.2).
//!
//! The tree is the host's own parse of the object, never copied or parsed again per call. Its
//! accessors (`json_*`) take no host handle, and an `Object` view (from a list, or from an
//! event) carries none either. So, as `redismodule.h` keeps its API table in globals, the crate
//! keeps the host's table in one process-wide pointer, set when a host of ABI 1.2 or newer
//! creates the plugin; every table of that host serves the same tree.
use std::fmt::Write as _;
use std::marker::PhantomData;
use std::os::raw::c_char;
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::host::ArgsType;
use crate::sys;
use crate::views::text;

/// The type of a JSON node: the types of the args tree (`sh_args_type`).
pub type JsonType = ArgsType;

static TABLE: AtomicPtr<sys::sh_host_api> = AtomicPtr::new(std::ptr::null_mut());

/// Remembers `api` for the JSON accessors when it serves them (a host of ABI 1.2 or newer).
///
/// # Safety
/// `api` must be null or a host table valid for as long as object views of its host are read.
pub(crate) unsafe fn remember_table(api: *const sys::sh_host_api) {
    if let Some(table) = api.as_ref() {
        if crate::object_services::serves_objects(table) {
            TABLE.store(api as *mut sys::sh_host_api, Ordering::Release);
        }
    }
}

/// The table the accessors use; null until a host of ABI 1.2 or newer created the plugin.
pub(crate) fn table() -> *const sys::sh_host_api {
    TABLE.load(Ordering::Acquire)
}

/// A node of an object's JSON tree, valid as long as the object view it came from. An absent
/// node (a missing member, an index past the end, a host older than ABI 1.2) reads as null:
/// every accessor then answers None, 0 or "".
#[derive(Clone, Copy)]
pub struct Json<'a> {
    api: *const sys::sh_host_api,
    node: *const sys::sh_json,
    _object: PhantomData<&'a sys::sh_object>,
}

impl<'a> Json<'a> {
    /// # Safety
    /// `api` must be null or a valid host table (one older than ABI 1.2 reads as null), and
    /// `node` null or a node of that host's tree that outlives `'a`.
    pub unsafe fn from_raw(api: *const sys::sh_host_api, node: *const sys::sh_json) -> Json<'a> {
        Json {
            api,
            node,
            _object: PhantomData,
        }
    }
    /// The node with the process's table (see the module's comment).
    pub(crate) fn with_table(node: *const sys::sh_json) -> Json<'a> {
        unsafe { Json::from_raw(table(), node) }
    }
    fn at_node(&self, node: *const sys::sh_json) -> Json<'a> {
        Json { node, ..*self }
    }
    /// The table, when there is a node to ask about and the table serves JSON.
    fn api(&self) -> Option<&'a sys::sh_host_api> {
        if self.node.is_null() {
            return None;
        }
        unsafe { self.api.as_ref() }.filter(|a| crate::object_services::serves_objects(a))
    }
    pub fn raw(&self) -> *const sys::sh_json {
        self.node
    }

    pub fn kind(&self) -> JsonType {
        let raw = match self.api().and_then(|a| a.json_type) {
            Some(f) => unsafe { f(self.node) },
            None => sys::SH_ARGS_NULL,
        };
        match raw {
            sys::SH_ARGS_BOOL => JsonType::Bool,
            sys::SH_ARGS_INT => JsonType::Int,
            sys::SH_ARGS_DOUBLE => JsonType::Double,
            sys::SH_ARGS_STRING => JsonType::String,
            sys::SH_ARGS_ARRAY => JsonType::Array,
            sys::SH_ARGS_OBJECT => JsonType::Object,
            _ => JsonType::Null,
        }
    }
    /// Present and not null.
    pub fn is_present(&self) -> bool {
        self.kind() != JsonType::Null
    }
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Json<'a> {
        let child = match self.api().and_then(|a| a.json_get) {
            Some(f) => unsafe { f(self.node, key.as_ptr() as *const c_char, key.len()) },
            None => std::ptr::null(),
        };
        self.at_node(child)
    }
    /// Follows a dotted path of member names and array indexes: "spec.minMember",
    /// "status.conditions.0.type".
    pub fn path(&self, path: &str) -> Json<'a> {
        let child = match self.api().and_then(|a| a.json_path) {
            Some(f) => unsafe { f(self.node, path.as_ptr() as *const c_char, path.len()) },
            None => std::ptr::null(),
        };
        self.at_node(child)
    }
    /// The length of an array or object; 0 otherwise.
    pub fn len(&self) -> usize {
        match self.api().and_then(|a| a.json_size) {
            Some(f) => unsafe { f(self.node) },
            None => 0,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Element `index` of an array (or the value of member `index` of an object).
    pub fn at(&self, index: usize) -> Json<'a> {
        let child = match self.api().and_then(|a| a.json_at) {
            Some(f) if index < self.len() => unsafe { f(self.node, index) },
            _ => std::ptr::null(),
        };
        self.at_node(child)
    }
    /// The key of member `index` of an object; "" otherwise.
    pub fn key_at(&self, index: usize) -> &'a str {
        match self.api().and_then(|a| a.json_key_at) {
            Some(f) if index < self.len() => unsafe { text(f(self.node, index)) },
            _ => "",
        }
    }
    /// Integers, and doubles that are whole (as the host reads them: 2.0 is 2, 2.5 is None).
    pub fn as_i64(&self) -> Option<i64> {
        let whole = match self.kind() {
            JsonType::Int => true,
            JsonType::Double => {
                let d = self.as_f64().unwrap_or(0.5);
                d.fract() == 0.0 && d > -9.2e18 && d < 9.2e18
            }
            _ => false,
        };
        match self.api().and_then(|a| a.json_int) {
            Some(f) if whole => Some(unsafe { f(self.node) }),
            _ => None,
        }
    }
    /// Doubles; integers convert.
    pub fn as_f64(&self) -> Option<f64> {
        match (self.kind(), self.api().and_then(|a| a.json_double)) {
            (JsonType::Int | JsonType::Double, Some(f)) => Some(unsafe { f(self.node) }),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match (self.kind(), self.api().and_then(|a| a.json_bool)) {
            (JsonType::Bool, Some(f)) => Some(unsafe { f(self.node) } != 0),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&'a str> {
        match (self.kind(), self.api().and_then(|a| a.json_string)) {
            (JsonType::String, Some(f)) => Some(unsafe { text(f(self.node)) }),
            _ => None,
        }
    }
    /// The elements of an array, or the values of an object's members, in order.
    pub fn iter(&self) -> impl Iterator<Item = Json<'a>> + '_ {
        (0..self.len()).map(move |i| self.at(i))
    }
    /// The members of an object, as (key, value), in order; nothing for another type.
    pub fn members(&self) -> impl Iterator<Item = (&'a str, Json<'a>)> + '_ {
        let n = if self.kind() == JsonType::Object {
            self.len()
        } else {
            0
        };
        (0..n).map(move |i| (self.key_at(i), self.at(i)))
    }

    /// This node as JSON text (the whole object's text is `Host::object_json`).
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        write_json(self, &mut out);
        out
    }
}

impl<'a> Tree for Json<'a> {
    fn kind(&self) -> ArgsType {
        Json::kind(self)
    }
    fn len(&self) -> usize {
        Json::len(self)
    }
    fn at(&self, index: usize) -> Self {
        Json::at(self, index)
    }
    fn key_at(&self, index: usize) -> &str {
        Json::key_at(self, index)
    }
    fn as_bool(&self) -> Option<bool> {
        Json::as_bool(self)
    }
    fn as_i64(&self) -> Option<i64> {
        Json::as_i64(self)
    }
    fn as_f64(&self) -> Option<f64> {
        Json::as_f64(self)
    }
    fn as_str(&self) -> Option<&str> {
        Json::as_str(self)
    }
}

/// A read-only JSON tree of the host: the args tree and the trees of objects.
pub(crate) trait Tree: Sized {
    fn kind(&self) -> ArgsType;
    fn len(&self) -> usize;
    fn at(&self, index: usize) -> Self;
    fn key_at(&self, index: usize) -> &str;
    fn as_bool(&self) -> Option<bool>;
    fn as_i64(&self) -> Option<i64>;
    fn as_f64(&self) -> Option<f64>;
    fn as_str(&self) -> Option<&str>;
}

/// Appends `node` as JSON text.
pub(crate) fn write_json<T: Tree>(node: &T, out: &mut String) {
    match node.kind() {
        ArgsType::Null => out.push_str("null"),
        ArgsType::Bool => out.push_str(if node.as_bool() == Some(true) {
            "true"
        } else {
            "false"
        }),
        ArgsType::Int => {
            let _ = write!(out, "{}", node.as_i64().unwrap_or(0));
        }
        ArgsType::Double => {
            let v = node.as_f64().unwrap_or(0.0);
            if v.is_finite() {
                let _ = write!(out, "{:?}", v);
            } else {
                out.push_str("null");
            }
        }
        ArgsType::String => json_string(out, node.as_str().unwrap_or("")),
        ArgsType::Array => {
            out.push('[');
            for i in 0..node.len() {
                if i > 0 {
                    out.push(',');
                }
                write_json(&node.at(i), out);
            }
            out.push(']');
        }
        ArgsType::Object => {
            out.push('{');
            for i in 0..node.len() {
                if i > 0 {
                    out.push(',');
                }
                json_string(out, node.key_at(i));
                out.push(':');
                write_json(&node.at(i), out);
            }
            out.push('}');
        }
    }
}

/// Appends `s` as a JSON string literal.
pub(crate) fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::json_string;

    #[test]
    fn json_strings_are_escaped() {
        let mut out = String::new();
        json_string(&mut out, "a\"b\\c\nd\u{1}é");
        assert_eq!(out, "\"a\\\"b\\\\c\\nd\\u0001é\"");
    }
}
