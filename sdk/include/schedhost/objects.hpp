// schedhost C++ SDK: objects of the kinds a plugin declares (ABI 1.2; plugin.h, "Objects of any
// kind"). plugin.hpp includes this header; the services that hand these views out are methods of
// schedhost::Host there (objectGet, objectList, objectJson, objectWrite, objectAssume,
// objectRestore).
//
// A plugin declares its kinds as a static member of its class, which SCHEDHOST_PLUGIN puts in
// the descriptor; a kind is then named by its index in that array:
//
//   class Gang : public schedhost::PreFilterPlugin {
//    public:
//     static constexpr uint32_t kPodGroups = 0;
//     static constexpr sh_object_kind kKinds[] = {
//         schedhost::objectKind("scheduling.x-k8s.io", "v1alpha1", "podgroups", "PodGroup",
//                               schedhost::kNamespaced, SH_VERB_UPDATE_STATUS)};
//     ...
//   };
//
// Views (Object, Json, ObjectList) are the host's memory, valid as plugin.h says: for the cycle
// they were read in, or until the calling function returns when read without one (a manifest's
// Json: as long as its pod or node). They copy nothing and never allocate; a missing object or
// member is a null view whose accessors answer "", 0, false or another null view, so a path of
// lookups needs no check at each step.
#ifndef SCHEDHOST_OBJECTS_HPP
#define SCHEDHOST_OBJECTS_HPP

#include <schedhost/plugin.h>
#include <schedhost/detail/services.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

namespace schedhost {

// Whether a declared kind's objects live in namespaces (objectKind's `namespaced`).
inline constexpr bool kNamespaced = true;
inline constexpr bool kClusterScoped = false;

// One entry of a plugin's kKinds: the kind as the API server serves it (see sh_object_kind).
// `verbs` are the SH_VERB_* writes the plugin makes (0: it only reads); the selectors, in the
// API's syntax, narrow what the host watches (nullptr: none).
constexpr sh_object_kind objectKind(const char* group, const char* version, const char* resource,
                                    const char* kind, bool namespaced, uint32_t verbs = 0,
                                    const char* labelSelector = nullptr,
                                    const char* fieldSelector = nullptr) noexcept {
  return sh_object_kind{sizeof(sh_object_kind), verbs, group,         version,      resource, kind,
                        namespaced ? 1 : 0,     0,     labelSelector, fieldSelector};
}

namespace detail {

inline std::string_view objectText(sh_str s) noexcept {
  return s.len == 0 ? std::string_view() : std::string_view(s.ptr, s.len);
}

// The host's table has the object and JSON services (ABI 1.2): object_restore is the last slot.
inline bool servesObjects(const sh_host_api* api) noexcept {
  constexpr std::size_t kSlotEnd =
      offsetof(sh_host_api, object_restore) + sizeof(sh_host_api::object_restore);
  return hostHasSlot(api, kSlotEnd, 2);
}

}  // namespace detail

// ---------------------------------------------------------------------------
// Json: a read-only node of an object's JSON tree (plugin.h: json_* services), or of a pod's or
// node's manifest (Host::podManifest and Host::nodeManifest, since 1.3).
// ---------------------------------------------------------------------------
class Json {
 public:
  // The null node: what a missing member, index or path reads as.
  Json() noexcept = default;
  Json(const sh_host_api* api, const sh_json* node) noexcept : api_(api), node_(node) {}

  // False for a missing node; true for any member that exists, a JSON null included.
  bool present() const noexcept { return node_ != nullptr; }
  explicit operator bool() const noexcept { return present(); }
  sh_args_type type() const noexcept {
    return node_ == nullptr ? SH_ARGS_NULL : static_cast<sh_args_type>(api_->json_type(node_));
  }
  bool isNull() const noexcept { return type() == SH_ARGS_NULL; }
  bool isObject() const noexcept { return type() == SH_ARGS_OBJECT; }
  bool isArray() const noexcept { return type() == SH_ARGS_ARRAY; }
  bool isString() const noexcept { return type() == SH_ARGS_STRING; }
  bool isInt() const noexcept { return type() == SH_ARGS_INT; }
  bool isNumber() const noexcept { return type() == SH_ARGS_INT || type() == SH_ARGS_DOUBLE; }
  bool isBool() const noexcept { return type() == SH_ARGS_BOOL; }

  // The member `key` of an object node.
  Json get(std::string_view key) const noexcept {
    return node_ == nullptr ? Json() : Json(api_, api_->json_get(node_, key.data(), key.size()));
  }
  Json operator[](std::string_view key) const noexcept { return get(key); }
  // A dotted path of member names and array indexes: "spec.minMember", "status.conditions.0".
  Json path(std::string_view dotted) const noexcept {
    return node_ == nullptr ? Json()
                            : Json(api_, api_->json_path(node_, dotted.data(), dotted.size()));
  }
  // The length of an array or object; 0 for anything else.
  std::size_t size() const noexcept { return node_ == nullptr ? 0 : api_->json_size(node_); }
  // Element `i` of an array, or the value of member `i` of an object.
  Json at(std::size_t i) const noexcept {
    return node_ == nullptr ? Json() : Json(api_, api_->json_at(node_, i));
  }
  // The name of member `i` of an object.
  std::string_view keyAt(std::size_t i) const noexcept {
    return node_ == nullptr ? std::string_view() : detail::objectText(api_->json_key_at(node_, i));
  }

  // Integers, and doubles that are whole; 0 otherwise.
  int64_t asInt() const noexcept { return node_ == nullptr ? 0 : api_->json_int(node_); }
  // Doubles, and integers converted; 0.0 otherwise.
  double asDouble() const noexcept { return node_ == nullptr ? 0.0 : api_->json_double(node_); }
  bool asBool() const noexcept { return node_ != nullptr && api_->json_bool(node_) != 0; }
  std::string_view asString() const noexcept {
    return node_ == nullptr ? std::string_view() : detail::objectText(api_->json_string(node_));
  }

  const sh_json* raw() const noexcept { return node_; }

 private:
  const sh_host_api* api_ = nullptr;
  const sh_json* node_ = nullptr;
};

// ---------------------------------------------------------------------------
// Object: one object of a declared kind (sh_object).
// ---------------------------------------------------------------------------
class Object {
 public:
  // The null object: what objectGet answers when there is none.
  Object() noexcept = default;
  Object(const sh_host_api* api, const sh_object* object) noexcept : api_(api), o_(object) {}

  bool present() const noexcept { return o_ != nullptr; }
  explicit operator bool() const noexcept { return present(); }

  std::string_view apiVersion() const noexcept { return text(&sh_object::api_version); }
  std::string_view kind() const noexcept { return text(&sh_object::kind); }
  // Empty for a cluster-scoped kind.
  std::string_view ns() const noexcept { return text(&sh_object::namespace_); }
  std::string_view name() const noexcept { return text(&sh_object::name); }
  std::string_view uid() const noexcept { return text(&sh_object::uid); }
  std::string_view resourceVersion() const noexcept { return text(&sh_object::resource_version); }
  // metadata.creationTimestamp in nanoseconds since the epoch; 0 when unset.
  int64_t creationUnixNanos() const noexcept { return o_ == nullptr ? 0 : o_->creation_unix_nanos; }
  bool deleting() const noexcept { return o_ != nullptr && o_->deleting != 0; }
  // A version the plugin assumed in memory (Host::objectAssume), not yet seen from the watch.
  bool assumed() const noexcept { return o_ != nullptr && o_->assumed != 0; }

  // metadata.labels, sorted by key id.
  const sh_label* labels() const noexcept { return o_ == nullptr ? nullptr : o_->labels; }
  uint32_t labelCount() const noexcept { return o_ == nullptr ? 0 : o_->label_count; }
  // The value of label `key` ("" when absent; `found` tells an empty value from none).
  std::string_view label(std::string_view key, bool* found = nullptr) const noexcept {
    for (uint32_t i = 0; i < labelCount(); ++i) {
      if (detail::objectText(o_->labels[i].key_str) == key) {
        if (found != nullptr) {
          *found = true;
        }
        return detail::objectText(o_->labels[i].value_str);
      }
    }
    if (found != nullptr) {
      *found = false;
    }
    return {};
  }

  // The whole object as a JSON tree.
  Json root() const noexcept { return o_ == nullptr ? Json() : Json(api_, o_->root); }
  // Shorthand for root().path(dotted).
  Json path(std::string_view dotted) const noexcept { return root().path(dotted); }

  const sh_object* raw() const noexcept { return o_; }
  const sh_host_api* api() const noexcept { return api_; }

 private:
  std::string_view text(sh_str sh_object::*field) const noexcept {
    return o_ == nullptr ? std::string_view() : detail::objectText(o_->*field);
  }

  const sh_host_api* api_ = nullptr;
  const sh_object* o_ = nullptr;
};

// ---------------------------------------------------------------------------
// ObjectList: the objects Host::objectList found, a view of the host's array. The array (not
// the objects) is valid only until the same thread lists again: iterate it, or keep the
// Objects, before the next objectList.
// ---------------------------------------------------------------------------
class ObjectList {
 public:
  class Iterator {
   public:
    // The standard iterator protocol's names.
    // NOLINTBEGIN(readability-identifier-naming)
    using iterator_category = std::forward_iterator_tag;
    using value_type = Object;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Object;
    // NOLINTEND(readability-identifier-naming)

    Iterator(const sh_host_api* api, const sh_object* const* at) noexcept : api_(api), at_(at) {}
    Object operator*() const noexcept { return Object(api_, *at_); }
    Iterator& operator++() noexcept {
      ++at_;
      return *this;
    }
    Iterator operator++(int) noexcept {
      Iterator before = *this;
      ++at_;
      return before;
    }
    bool operator==(const Iterator& o) const noexcept { return at_ == o.at_; }
    bool operator!=(const Iterator& o) const noexcept { return at_ != o.at_; }

   private:
    const sh_host_api* api_;
    const sh_object* const* at_;
  };

  ObjectList() noexcept = default;
  ObjectList(const sh_host_api* api, const sh_object* const* objects, std::size_t count) noexcept
      : api_(api), objects_(count == 0 ? nullptr : objects), count_(objects_ ? count : 0) {}

  std::size_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }
  Object operator[](std::size_t i) const noexcept { return Object(api_, objects_[i]); }
  Iterator begin() const noexcept { return Iterator(api_, objects_); }
  Iterator end() const noexcept { return Iterator(api_, objects_ + count_); }

 private:
  const sh_host_api* api_ = nullptr;
  const sh_object* const* objects_ = nullptr;
  std::size_t count_ = 0;
};

// ---------------------------------------------------------------------------
// ObjectWrite: one write through the host's client (sh_object_write), made with one of the
// factories below and passed to Host::objectWrite. It borrows its strings: they must outlive
// that call.
// ---------------------------------------------------------------------------
class ObjectWrite {
 public:
  // POST `object` (JSON; its namespace from metadata.namespace, or inNamespace()).
  static ObjectWrite create(uint32_t kind, std::string_view object) noexcept {
    return ObjectWrite(SH_VERB_CREATE, kind, SH_PATCH_NONE, {}, {}, object);
  }
  // PUT `object`; the API server checks its metadata.resourceVersion.
  static ObjectWrite update(uint32_t kind, std::string_view object) noexcept {
    return ObjectWrite(SH_VERB_UPDATE, kind, SH_PATCH_NONE, {}, {}, object);
  }
  // PATCH ns/name with `patch` of `type` (merge, strategic merge on built-in kinds, JSON patch).
  static ObjectWrite patch(uint32_t kind, std::string_view ns, std::string_view name,
                           sh_patch_type type, std::string_view patch) noexcept {
    return ObjectWrite(SH_VERB_PATCH, kind, type, ns, name, patch);
  }
  // PUT `object` to the status subresource.
  static ObjectWrite updateStatus(uint32_t kind, std::string_view object) noexcept {
    return ObjectWrite(SH_VERB_UPDATE_STATUS, kind, SH_PATCH_NONE, {}, {}, object);
  }
  // PATCH the status subresource of ns/name (the verb declared is SH_VERB_UPDATE_STATUS).
  static ObjectWrite patchStatus(uint32_t kind, std::string_view ns, std::string_view name,
                                 sh_patch_type type, std::string_view patch) noexcept {
    return ObjectWrite(SH_VERB_UPDATE_STATUS, kind, type, ns, name, patch);
  }
  // DELETE ns/name.
  static ObjectWrite deleteObject(uint32_t kind, std::string_view ns,
                                  std::string_view name) noexcept {
    return ObjectWrite(SH_VERB_DELETE, kind, SH_PATCH_NONE, ns, name, {});
  }

  // The namespace of a create (or of any write), when the body does not carry it.
  ObjectWrite& inNamespace(std::string_view ns) noexcept {
    w_.namespace_ = str(ns);
    return *this;
  }

  uint32_t verb() const noexcept { return w_.verb; }
  uint32_t kind() const noexcept { return w_.kind; }
  sh_patch_type patchType() const noexcept { return static_cast<sh_patch_type>(w_.patch_type); }
  std::string_view ns() const noexcept { return detail::objectText(w_.namespace_); }
  std::string_view name() const noexcept { return detail::objectText(w_.name); }
  std::string_view body() const noexcept { return detail::objectText(w_.body); }
  const sh_object_write& raw() const noexcept { return w_; }

 private:
  ObjectWrite(uint32_t verb, uint32_t kind, sh_patch_type type, std::string_view ns,
              std::string_view name, std::string_view body) noexcept {
    w_.struct_size = sizeof(sh_object_write);
    w_.verb = verb;
    w_.kind = kind;
    w_.patch_type = type;
    w_.namespace_ = str(ns);
    w_.name = str(name);
    w_.body = str(body);
  }
  static sh_str str(std::string_view s) noexcept { return sh_str{s.data(), s.size()}; }

  sh_object_write w_{};
};

// ---------------------------------------------------------------------------
// ObjectEvent: what a queueing hint learns about an event on a declared kind
// (sh_event_objects.old_object, new_object and kind; since 1.2). On a host older than 1.2, or
// for an event on pods or nodes, isObject() is false and both objects are null.
// ---------------------------------------------------------------------------
class ObjectEvent {
 public:
  ObjectEvent(const sh_host_api* api, const sh_event_objects& event) noexcept : api_(api) {
    constexpr std::size_t kFieldsEnd = offsetof(sh_event_objects, kind) + sizeof(uint32_t);
    if (event.struct_size >= kFieldsEnd &&
        (event.old_object != nullptr || event.new_object != nullptr)) {
      old_ = event.old_object;
      new_ = event.new_object;
      kind_ = event.kind;
    }
  }

  bool isObject() const noexcept { return old_ != nullptr || new_ != nullptr; }
  // The index of the kind in the plugin's kKinds; meaningful when isObject().
  uint32_t kind() const noexcept { return kind_; }
  // The object before the change: null for an Add.
  Object oldObject() const noexcept { return old_ == nullptr ? Object() : Object(api_, old_); }
  // The object after the change: null for a Delete.
  Object newObject() const noexcept { return new_ == nullptr ? Object() : Object(api_, new_); }

 private:
  const sh_host_api* api_;
  const sh_object* old_ = nullptr;
  const sh_object* new_ = nullptr;
  uint32_t kind_ = 0;
};

}  // namespace schedhost

#endif  // SCHEDHOST_OBJECTS_HPP
