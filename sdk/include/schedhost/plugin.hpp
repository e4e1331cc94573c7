// schedhost C++ SDK: a thin, header-only layer over plugin.h.
//
// A plugin author writes an ordinary class that derives from one tag per extension
// point it implements, and registers it with one macro:
//
//   class Fit : public schedhost::PreFilterPlugin, public schedhost::FilterPlugin {
//    public:
//     Fit(schedhost::Host& host, const schedhost::Args& args);
//     schedhost::Status preFilter(schedhost::Cycle& cycle, const sh_pod& pod,
//                                 schedhost::PreFilterResult& result);
//     schedhost::Status filter(schedhost::Cycle& cycle, const sh_pod& pod,
//                              const sh_node_info& node);
//   };
//   SCHEDHOST_PLUGIN(Fit, "NodeResourcesFit", "1.36.0")
//
// The tags are empty; the macro checks at compile time that each tagged method exists
// with the right signature and calls it directly (no virtual dispatch). Every
// trampoline is noexcept: an exception thrown by plugin code becomes an Error status
// carrying the exception's message and never unwinds into the host.
//
// This file holds what a plugin author writes against: Status, Args, the views of the pod and
// node fields added after 1.0 (volumes, resourceClaimCount, declaredFeatures), the wrappers of
// the host services (Host, Cycle, Snapshot, Sim, Preemption), the extension-point tags and
// SCHEDHOST_PLUGIN. Objects of declared kinds (ABI 1.2: Object, Json, ObjectList, ObjectWrite,
// ObjectEvent, objectKind) are in schedhost/objects.hpp, included here; a plugin declares its
// kinds with a static member kKinds (see there) and reads and writes them through Host. The
// machinery behind them (trampolines, vtable and metadata) is in schedhost/detail/, which is
// not part of the interface. Matching helpers with kube-scheduler's semantics are in
// schedhost/helpers.hpp.
//
// Services added after ABI 1.0 check the host's abi_minor (and its table's size) before they
// call it, and degrade on an older host: activatePod answers false, object reads are empty,
// object writes and assumes answer an Error status saying why, manifests are null Json and no
// claim is in use. Fields added after 1.0 are read only when the view's struct_size covers
// them: on an older host a pod has no volumes and a node no declared features.
//
// Requires C++17. The same source links statically into a host test when
// SCHEDHOST_PLUGIN_STATIC_ENTRY is defined to a function name: the entry point then
// gets that name instead of schedhost_plugin_v1 and is not exported.
#ifndef SCHEDHOST_PLUGIN_HPP
#define SCHEDHOST_PLUGIN_HPP

#include <schedhost/plugin.h>
#include <schedhost/detail/services.hpp>
#include <schedhost/objects.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace schedhost {

inline std::string_view view(sh_str s) noexcept {
  return s.len == 0 ? std::string_view() : std::string_view(s.ptr, s.len);
}

// ---------------------------------------------------------------------------
// Status: a code plus reasons. Reasons given as string literals are kept as views
// (no allocation on the Filter hot path); others are owned.
// ---------------------------------------------------------------------------
class Status {
 public:
  Status() noexcept = default;
  explicit Status(sh_code code) noexcept : code_(code) {}

  static Status success() noexcept { return Status(); }
  static Status skip() noexcept { return Status(SH_SKIP); }
  template <std::size_t N>
  static Status make(sh_code code, const char (&literal)[N]) {
    Status s(code);
    s.addReason(std::string_view(literal, N - 1));
    return s;
  }
  static Status make(sh_code code, std::string reason) {
    Status s(code);
    s.addReason(std::move(reason));
    return s;
  }
  template <typename R>
  static Status unschedulable(R&& reason) {
    return make(SH_UNSCHEDULABLE, std::forward<R>(reason));
  }
  template <typename R>
  static Status unresolvable(R&& reason) {
    return make(SH_UNSCHEDULABLE_AND_UNRESOLVABLE, std::forward<R>(reason));
  }
  template <typename R>
  static Status error(R&& reason) {
    return make(SH_ERROR, std::forward<R>(reason));
  }

  // A literal (static storage) reason: stored as a view.
  template <std::size_t N>
  void addReason(const char (&literal)[N]) {
    addReason(std::string_view(literal, N - 1));
  }
  void addReason(std::string_view staticReason) {
    if (viewCount_ < kInline) {
      views_[viewCount_++] = staticReason;
    } else {
      owned_.emplace_back(staticReason);
    }
  }
  void addReason(std::string reason) { owned_.push_back(std::move(reason)); }

  sh_code code() const noexcept { return code_; }
  void setCode(sh_code code) noexcept { code_ = code; }
  bool ok() const noexcept { return code_ == SH_SUCCESS; }
  bool rejected() const noexcept {
    return code_ == SH_UNSCHEDULABLE || code_ == SH_UNSCHEDULABLE_AND_UNRESOLVABLE ||
           code_ == SH_PENDING;
  }

  // The reasons, in the order they were added (views first, then owned ones, as the host
  // receives them).
  std::vector<std::string> reasons() const {
    std::vector<std::string> out;
    out.reserve(viewCount_ + owned_.size());
    for (std::size_t i = 0; i < viewCount_; ++i) {
      out.emplace_back(views_[i]);
    }
    for (const std::string& r : owned_) {
      out.push_back(r);
    }
    return out;
  }

  // Hands the reasons to the host (which copies them) and returns the code.
  sh_code deliver(const sh_host_api* api, sh_status* out) const noexcept {
    for (std::size_t i = 0; i < viewCount_; ++i) {
      api->status_add_reason(out, views_[i].data(), views_[i].size());
    }
    for (const std::string& r : owned_) {
      api->status_add_reason(out, r.data(), r.size());
    }
    return code_;
  }

 private:
  static constexpr std::size_t kInline = 4;
  sh_code code_ = SH_SUCCESS;
  std::size_t viewCount_ = 0;
  std::string_view views_[kInline];
  std::vector<std::string> owned_;
};

// ---------------------------------------------------------------------------
// Args: a read-only view of the plugin's args tree, valid during construction.
// ---------------------------------------------------------------------------
class Host;
class Cycle;

class Args {
 public:
  // `errors` counts the errors reported through this tree (shared by its children).
  Args(const sh_host_api* api, sh_host* host, const sh_args* node, int* errors) noexcept
      : api_(api), host_(host), node_(node), errors_(errors) {}

  bool present() const noexcept { return node_ != nullptr && type() != SH_ARGS_NULL; }
  sh_args_type type() const noexcept { return static_cast<sh_args_type>(api_->args_type(node_)); }
  bool isObject() const noexcept { return type() == SH_ARGS_OBJECT; }
  bool isArray() const noexcept { return type() == SH_ARGS_ARRAY; }
  bool isString() const noexcept { return type() == SH_ARGS_STRING; }
  bool isInt() const noexcept { return type() == SH_ARGS_INT; }
  bool isNumber() const noexcept { return type() == SH_ARGS_INT || type() == SH_ARGS_DOUBLE; }
  bool isBool() const noexcept { return type() == SH_ARGS_BOOL; }

  Args operator[](const char* key) const noexcept {
    return Args(api_, host_, node_ ? api_->args_get(node_, key) : nullptr, errors_);
  }
  std::size_t size() const noexcept { return node_ ? api_->args_size(node_) : 0; }
  Args at(std::size_t i) const noexcept {
    return Args(api_, host_, api_->args_at(node_, i), errors_);
  }
  std::string_view keyAt(std::size_t i) const noexcept { return view(api_->args_key_at(node_, i)); }

  int64_t asInt() const noexcept { return api_->args_int(node_); }
  double asDouble() const noexcept { return api_->args_double(node_); }
  bool asBool() const noexcept { return api_->args_bool(node_) != 0; }
  std::string_view asString() const noexcept { return view(api_->args_string(node_)); }

  // Reports a validation error at this node; the host adds the path and location.
  void error(std::string_view message) const noexcept {
    api_->args_error(host_, node_, message.data(), message.size());
    ++*errors_;
  }
  bool hadErrors() const noexcept { return *errors_ > 0; }

 private:
  const sh_host_api* api_;
  sh_host* host_;
  const sh_args* node_;
  int* errors_;
};

// ---------------------------------------------------------------------------
// Pod and node fields added after 1.0 (plugin.h, section 4). The fields of sh_pod and sh_node
// that 1.0 had are read directly; these are read through the functions below, which check the
// view's struct_size first, so that a plugin still runs on an older host (whose views end
// before them: they read as empty).
// ---------------------------------------------------------------------------

// A read-only array of the host's (a pointer and a count), indexed or iterated with a
// range-for; it copies nothing and lives as long as the view it came from. Strings reads an
// array of sh_str as string_views (a volume's monitors, a node's declared features); Volumes
// reads a pod's sh_volume array as Volume views.
template <typename Elem, typename View>
class ArrayView {
 public:
  class Iterator {
   public:
    // The standard iterator protocol's names.
    // NOLINTBEGIN(readability-identifier-naming)
    using iterator_category = std::forward_iterator_tag;
    using value_type = View;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = View;
    // NOLINTEND(readability-identifier-naming)

    explicit Iterator(const Elem* at) noexcept : at_(at) {}
    View operator*() const noexcept { return read(*at_); }
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
    const Elem* at_;
  };

  ArrayView() noexcept = default;
  ArrayView(const Elem* items, std::size_t count) noexcept
      : items_(count == 0 ? nullptr : items), count_(items_ == nullptr ? 0 : count) {}

  std::size_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }
  View operator[](std::size_t i) const noexcept { return read(items_[i]); }
  Iterator begin() const noexcept { return Iterator(items_); }
  Iterator end() const noexcept { return Iterator(items_ + count_); }

 private:
  static View read(const Elem& e) noexcept {
    if constexpr (std::is_same_v<View, std::string_view>) {
      return view(e);
    } else {
      return View(e);
    }
  }

  const Elem* items_ = nullptr;
  std::size_t count_ = 0;
};

using Strings = ArrayView<sh_str, std::string_view>;

// One of the pod's volumes (spec.volumes[i]; sh_volume, since 1.3). Which fields are set
// depends on the source, as plugin.h's table says: claim for PVC and EPHEMERAL, handle for the
// in-tree disks, driver for CSI, pool and monitors for RBD, lun for ISCSI. The others are
// empty. Any other field of the volume is in the pod's manifest (Host::podManifest).
class Volume {
 public:
  explicit Volume(const sh_volume& v) noexcept : v_(&v) {}

  // Where the data comes from; SH_VOLUME_OTHER for emptyDir, configMap, secret and any source
  // the scheduler has nothing to do with (a value this header does not know included).
  sh_volume_source source() const noexcept {
    return v_->source > SH_VOLUME_OTHER && v_->source <= SH_VOLUME_AZURE_FILE
               ? static_cast<sh_volume_source>(v_->source)
               : SH_VOLUME_OTHER;
  }
  // spec.volumes[].name.
  std::string_view name() const noexcept { return view(v_->name); }
  // PVC and EPHEMERAL: the PersistentVolumeClaim, in the pod's namespace (for EPHEMERAL the one
  // made for the pod, "<pod name>-<volume name>"); "" for other sources.
  std::string_view claim() const noexcept { return view(v_->claim); }
  bool usesClaim() const noexcept {
    return source() == SH_VOLUME_PVC || source() == SH_VOLUME_EPHEMERAL;
  }
  // The disk's identity: pdName (GCE_PD), volumeID (AWS_EBS, CINDER, PORTWORX), image (RBD),
  // iqn (ISCSI), diskURI (AZURE_DISK), volumePath (VSPHERE) or shareName (AZURE_FILE).
  std::string_view handle() const noexcept { return view(v_->handle); }
  // CSI: csi.driver.
  std::string_view driver() const noexcept { return view(v_->driver); }
  // RBD: rbd.pool ("rbd" when unset) and rbd.monitors.
  std::string_view pool() const noexcept { return view(v_->pool); }
  Strings monitors() const noexcept { return Strings(v_->monitors, v_->monitor_count); }
  // ISCSI: iscsi.lun.
  int32_t lun() const noexcept { return v_->lun; }
  // The source's readOnly (persistentVolumeClaim.readOnly for a PVC).
  bool readOnly() const noexcept { return v_->read_only != 0; }

  const sh_volume& raw() const noexcept { return *v_; }

 private:
  const sh_volume* v_;
};

using Volumes = ArrayView<sh_volume, Volume>;

// The pod's volumes (spec.volumes, in manifest order); empty on a host older than 1.3.
inline Volumes volumes(const sh_pod& pod) noexcept {
  constexpr std::size_t kFieldsEnd = offsetof(sh_pod, volume_count) + sizeof(uint32_t);
  return pod.struct_size < kFieldsEnd ? Volumes() : Volumes(pod.volumes, pod.volume_count);
}

// How many entries the pod's spec.resourceClaims has (DynamicResources' PreEnqueue and
// PreFilter skip a pod with none); 0 on a host older than 1.3.
inline uint32_t resourceClaimCount(const sh_pod& pod) noexcept {
  constexpr std::size_t kFieldEnd = offsetof(sh_pod, resource_claim_count) + sizeof(uint32_t);
  return pod.struct_size < kFieldEnd ? 0 : pod.resource_claim_count;
}

// The pod's SH_POD_FIELD_* flags: which fields its view does not carry are set in its manifest
// (read them through Host::podManifest); 0 on a host older than 1.3, which flags none.
inline uint32_t specFields(const sh_pod& pod) noexcept {
  constexpr std::size_t kFieldEnd = offsetof(sh_pod, spec_fields) + sizeof(uint32_t);
  return pod.struct_size < kFieldEnd ? 0 : pod.spec_fields;
}

// The node's status.declaredFeatures, sorted (byte order, as std::string_view compares); empty
// on a host older than 1.3.
inline Strings declaredFeatures(const sh_node& node) noexcept {
  constexpr std::size_t kFieldsEnd = offsetof(sh_node, declared_feature_count) + sizeof(uint32_t);
  return node.struct_size < kFieldsEnd
             ? Strings()
             : Strings(node.declared_features, node.declared_feature_count);
}

// Whether the node declares feature `name`: a binary search, the features being sorted.
inline bool hasDeclaredFeature(const sh_node& node, std::string_view name) noexcept {
  if (declaredFeatures(node).empty()) {
    return false;  // none, or an older host's view that ends before them
  }
  const sh_str* last = node.declared_features + node.declared_feature_count;
  const sh_str* at =
      std::lower_bound(node.declared_features, last, name,
                       [](const sh_str& feature, std::string_view n) { return view(feature) < n; });
  return at != last && view(*at) == name;
}

// ---------------------------------------------------------------------------
// Host: the host services of plugin.h (section 6) as methods.
// ---------------------------------------------------------------------------
namespace detail {

// The host's table has the services of ABI 1.3: node_manifest is the last slot.
inline bool servesClaimsAndManifests(const sh_host_api* api) noexcept {
  constexpr std::size_t kSlotEnd =
      offsetof(sh_host_api, node_manifest) + sizeof(sh_host_api::node_manifest);
  return hostHasSlot(api, kSlotEnd, 3);
}

// The host serves writes_planned and cycle_wait (ABI 1.3).
inline bool servesBindingWaits(const sh_host_api* api) noexcept {
  constexpr std::size_t kSlotEnd =
      offsetof(sh_host_api, cycle_wait) + sizeof(sh_host_api::cycle_wait);
  return hostHasSlot(api, kSlotEnd, 3) && api->writes_planned != nullptr &&
         api->cycle_wait != nullptr;
}

// The host serves object_kind_version (ABI 1.3).
inline bool servesKindVersions(const sh_host_api* api) noexcept {
  constexpr std::size_t kSlotEnd =
      offsetof(sh_host_api, object_kind_version) + sizeof(sh_host_api::object_kind_version);
  return hostHasSlot(api, kSlotEnd, 3) && api->object_kind_version != nullptr;
}

// The host serves preemption_running and preemption_extenders (ABI 1.4).
inline bool servesAsyncPreemption(const sh_host_api* api) noexcept {
  constexpr std::size_t kSlotEnd =
      offsetof(sh_host_api, preemption_extenders) + sizeof(sh_host_api::preemption_extenders);
  return hostHasSlot(api, kSlotEnd, 4) && api->preemption_running != nullptr &&
         api->preemption_extenders != nullptr;
}

}  // namespace detail

class Host {
 public:
  Host(const sh_host_api* api, sh_host* host) noexcept : api_(api), host_(host) {}

  const sh_host_api* api() const noexcept { return api_; }
  sh_host* handle() const noexcept { return host_; }

  void log(sh_log_level level, std::string_view msg) const noexcept {
    api_->log(host_, level, msg.data(), msg.size());
  }
  sh_id intern(std::string_view s) const noexcept {
    return api_->intern(host_, s.data(), s.size());
  }
  std::string_view str(sh_id id) const noexcept { return view(api_->id_str(host_, id)); }

  // Defined after Cycle, below.
  Status bindPod(const Cycle& cycle, const sh_pod& pod, std::string_view node) const;

  bool allowWaitingPod(std::string_view uid, std::string_view plugin) const noexcept {
    return api_->waiting_pod_allow(host_, uid.data(), uid.size(), plugin.data(), plugin.size()) !=
           0;
  }
  bool rejectWaitingPod(std::string_view uid, std::string_view plugin,
                        std::string_view msg) const noexcept {
    return api_->waiting_pod_reject(host_, uid.data(), uid.size(), plugin.data(), plugin.size(),
                                    msg.data(), msg.size()) != 0;
  }

  // -- Objects of declared kinds (ABI 1.2; plugin.h, section 6) ------------------------------
  // `kind` is the index in the plugin's kKinds. With the call's Cycle, reads see the cycle's
  // version of every kind, the same for every plugin; without one (PreEnqueue, queueing hints,
  // a thread of the plugin's own), the latest. On a host older than 1.2 reads are empty and
  // writes answer an Error status. Defined after Cycle, below.
  bool servesObjects() const noexcept { return detail::servesObjects(api_); }
  // The object ns/name (ns empty for a cluster-scoped kind), or a null Object.
  Object objectGet(const Cycle& cycle, uint32_t kind, std::string_view ns,
                   std::string_view name) const noexcept;
  Object objectGet(uint32_t kind, std::string_view ns, std::string_view name) const noexcept;
  // The objects of namespace `ns` (empty: all) whose labels match `selector` (kubectl's
  // syntax, "app=web,tier in (a,b)"; empty: all), ordered by namespace then name. A selector
  // that does not parse matches nothing and counts as a failure of the plugin.
  ObjectList objectList(const Cycle& cycle, uint32_t kind, std::string_view ns = {},
                        std::string_view selector = {}) const noexcept;
  ObjectList objectList(uint32_t kind, std::string_view ns = {},
                        std::string_view selector = {}) const noexcept;
  // The object's JSON text as the host holds it; "" for a null Object.
  std::string objectJson(const Object& object) const;
  // Writes through the host's client; only from PostFilter, Reserve, Permit, PreBind, Bind and
  // PostBind. Success, or Error with the API's (or the host's refusal's) message.
  Status objectWrite(const Cycle& cycle, const ObjectWrite& write) const;
  // Makes `json`, a changed version of a stored object of `kind`, what every read returns until
  // the watch delivers a newer resourceVersion or objectRestore drops it.
  Status objectAssume(uint32_t kind, std::string_view json) const;
  // Drops the assumed version of ns/name. False on a host older than 1.2.
  bool objectRestore(uint32_t kind, std::string_view ns, std::string_view name) const noexcept;

  // -- Claims in use and manifests (ABI 1.3; plugin.h, section 6) ----------------------------
  // Whether the host serves them. On an older host manifests are null Json and no claim is in
  // use (Snapshot::pvcInUse).
  bool servesClaimsAndManifests() const noexcept { return detail::servesClaimsAndManifests(api_); }
  // The manifest the pod or node was read from as a read-only JSON tree (a Json, as an object's
  // root), for the fields its view does not carry: security contexts, limits, annotations. The
  // host parses it on the first call for that pod or node and keeps it as long as the view.
  Json podManifest(const sh_pod& pod) const noexcept {
    return servesClaimsAndManifests() ? Json(api_, api_->pod_manifest(host_, &pod)) : Json();
  }
  Json nodeManifest(const sh_node& node) const noexcept {
    return servesClaimsAndManifests() ? Json(api_, api_->node_manifest(host_, &node)) : Json();
  }

  // -- Planned writes and waits in the binding cycle (ABI 1.3; plugin.h, section 6) -----------
  // True under `schedhost evaluate` and `test`: objectWrite only plans the write, and nothing
  // will ever act on it, so a plugin does not wait for a controller. False on a cluster, and on
  // a host older than 1.3.
  bool writesPlanned() const noexcept {
    return detail::servesBindingWaits(api_) && api_->writes_planned(host_) != 0;
  }
  // Waits up to `millis` in a binding cycle (PreBind, Bind, PostBind). Ends early when the
  // binding cycle is cancelled: WaitEnd::kStopping (the scheduler stops) or kPodDeleted. On a
  // host older than 1.3 it sleeps, and is never cancelled.
  enum class WaitEnd { kElapsed, kStopping, kPodDeleted };
  WaitEnd cycleWait(const Cycle& cycle, uint32_t millis) const;

  // -- Versions of a kind (ABI 1.3; plugin.h, section 6) ---------------------------------------
  // The number naming the objects of `kind` as `cycle` reads them: while it stays the same, so
  // do objectGet and objectList, and what a plugin derived from them may be kept. 0 (no
  // version: derive again every time) for an unknown kind and on a host older than 1.3.
  uint64_t objectKindVersion(const Cycle& cycle, uint32_t kind) const;
  // The same for the objects as they are now, outside any cycle.
  uint64_t objectKindVersion(uint32_t kind) const noexcept {
    return detail::servesKindVersions(api_) ? api_->object_kind_version(host_, nullptr, kind) : 0;
  }

  // -- Asynchronous preemption (ABI 1.4; plugin.h, section 6) ----------------------------------
  // True while the victims of a preemption made for `pod` are still being evicted: the pod is
  // not worth scheduling again yet (DefaultPreemption's PreEnqueue). False on a host older
  // than 1.4, which evicts within preempt_victims.
  bool preemptionRunning(const sh_pod& pod) const noexcept {
    return detail::servesAsyncPreemption(api_) && api_->preemption_running(host_, &pod) != 0;
  }

 private:
  Status olderHost(std::string_view service) const;
  const sh_host_api* api_;
  sh_host* host_;
};

// ---------------------------------------------------------------------------
// Snapshot and Cycle.
// ---------------------------------------------------------------------------
class Snapshot {
 public:
  Snapshot(const sh_host_api* api, const sh_snapshot* snap) noexcept : api_(api), snap_(snap) {}
  std::size_t size() const noexcept { return api_->snapshot_node_count(snap_); }
  const sh_node_info& at(std::size_t i) const noexcept { return *api_->snapshot_node_at(snap_, i); }
  const sh_node_info* find(std::string_view name) const noexcept {
    return api_->snapshot_node_by_name(snap_, name.data(), name.size());
  }
  std::pair<const sh_node_info* const*, std::size_t> nodesWithAffinityPods() const noexcept {
    const sh_node_info* const* out = nullptr;
    std::size_t n = api_->snapshot_nodes_with_affinity_pods(snap_, &out);
    return {out, n};
  }
  std::pair<const sh_node_info* const*, std::size_t> nodesWithRequiredAntiAffinityPods()
      const noexcept {
    const sh_node_info* const* out = nullptr;
    std::size_t n = api_->snapshot_nodes_with_required_anti_affinity_pods(snap_, &out);
    return {out, n};
  }
  // Whether a pod of the snapshot (bound, or assumed by this scheduler) uses the
  // PersistentVolumeClaim ns/name through a persistentVolumeClaim or ephemeral volume
  // (upstream's usedPVCSet; ABI 1.3). False on an older host (Host::servesClaimsAndManifests).
  bool pvcInUse(std::string_view ns, std::string_view name) const noexcept {
    return detail::servesClaimsAndManifests(api_) &&
           api_->snapshot_pvc_in_use(snap_, ns.data(), ns.size(), name.data(), name.size()) != 0;
  }

 private:
  const sh_host_api* api_;
  const sh_snapshot* snap_;
};

class Cycle {
 public:
  // `callStatus` is the status of the extension-point call this Cycle was made for; host
  // services that report into a status (bind_pod) write there.
  Cycle(const sh_host_api* api, sh_cycle* cycle, sh_status* callStatus = nullptr) noexcept
      : api_(api), cycle_(cycle), callStatus_(callStatus) {}

  // Stores a copyable value under `key`; the host clones it with T's copy constructor.
  template <typename T>
  void write(sh_id key, std::unique_ptr<T> value) noexcept {
    api_->cycle_write(cycle_, key, value.release(), detail::stateOps<T>());
  }
  // The value stored under `key`, or nullptr.
  template <typename T>
  T* read(sh_id key) const noexcept {
    return static_cast<T*>(api_->cycle_read(cycle_, key));
  }
  Snapshot snapshot() const noexcept { return Snapshot(api_, api_->cycle_snapshot(cycle_)); }
  sh_code nodeFilterCode(std::string_view node) const noexcept {
    return static_cast<sh_code>(api_->node_filter_code(cycle_, node.data(), node.size()));
  }
  void nominate(std::string_view node) const noexcept {
    api_->postfilter_nominate(cycle_, node.data(), node.size());
  }
  // Asks the host to activate the pending pod ns/name at the end of this scheduling cycle, or
  // of this binding cycle, when it succeeds (kube-scheduler's PodsToActivate; plugin.h:
  // cycle_activate_pod). False, and nothing asked, on a host older than ABI 1.1 or for an
  // empty namespace or name.
  bool activatePod(std::string_view ns, std::string_view name) const noexcept {
    constexpr std::size_t kSlotEnd =
        offsetof(sh_host_api, cycle_activate_pod) + sizeof(sh_host_api::cycle_activate_pod);
    if (ns.empty() || name.empty() || !detail::hostHasSlot(api_, kSlotEnd, 1) ||
        api_->cycle_activate_pod == nullptr) {
      return false;
    }
    api_->cycle_activate_pod(cycle_, ns.data(), ns.size(), name.data(), name.size());
    return true;
  }
  sh_cycle* handle() const noexcept { return cycle_; }
  const sh_host_api* api() const noexcept { return api_; }
  sh_status* callStatus() const noexcept { return callStatus_; }

 private:
  const sh_host_api* api_;
  sh_cycle* cycle_;
  sh_status* callStatus_;
};

// ---------------------------------------------------------------------------
// Preemption: dry runs on node copies (Sim) and the services around them.
// ---------------------------------------------------------------------------
// A dry run on one node: a copy of the node and of the cycle state. Move-only; ends the sim
// when destroyed. valid() is false when the node was not in the snapshot.
class Sim {
 public:
  Sim(const sh_host_api* api, sh_sim* sim) noexcept : api_(api), sim_(sim) {}
  Sim(Sim&& o) noexcept : api_(o.api_), sim_(o.sim_) { o.sim_ = nullptr; }
  Sim& operator=(Sim&& o) noexcept {
    std::swap(api_, o.api_);
    std::swap(sim_, o.sim_);
    return *this;
  }
  Sim(const Sim&) = delete;
  Sim& operator=(const Sim&) = delete;
  ~Sim() {
    if (sim_ != nullptr) {
      api_->sim_end(sim_);
    }
  }

  bool valid() const noexcept { return sim_ != nullptr; }
  const sh_node_info& nodeInfo() const noexcept { return *api_->sim_node_info(sim_); }
  Cycle cycle() const noexcept { return Cycle(api_, api_->sim_cycle(sim_)); }
  Status removePod(const sh_pod& other) const {
    return detail::collectStatus<Status>(
        api_, [&](sh_status* st) { return api_->sim_remove_pod(sim_, &other, st); });
  }
  Status addPod(const sh_pod& other) const {
    return detail::collectStatus<Status>(
        api_, [&](sh_status* st) { return api_->sim_add_pod(sim_, &other, st); });
  }
  // Filter with nominated pods on the copy, as a normal cycle would.
  Status filter() const {
    return detail::collectStatus<Status>(api_,
                                         [&](sh_status* st) { return api_->sim_filter(sim_, st); });
  }

 private:
  const sh_host_api* api_;
  sh_sim* sim_;
};

class Preemption {
 public:
  explicit Preemption(const Cycle& cycle) noexcept : api_(cycle.api()), cycle_(cycle.handle()) {}

  std::pair<const sh_pdb* const*, std::size_t> podDisruptionBudgets() const noexcept {
    const sh_pdb* const* out = nullptr;
    std::size_t n = api_->pod_disruption_budgets(cycle_, &out);
    return {out, n};
  }
  uint64_t random() const noexcept { return api_->cycle_random(cycle_); }
  // Runs fn(i) for i in [0, n) on the host's workers. fn must not throw.
  template <typename Fn>
  void parallelFor(std::size_t n, Fn&& fn) const {
    using F = std::remove_reference_t<Fn>;
    api_->parallel_for(
        cycle_, n, [](void* ctx, std::size_t i) { (*static_cast<F*>(ctx))(i); },
        const_cast<void*>(static_cast<const void*>(&fn)));
  }
  Sim beginSim(const sh_pod& pod, const sh_node_info& node) const noexcept {
    return Sim(api_, api_->sim_begin(cycle_, &pod, &node));
  }
  Status preemptVictims(const sh_pod& preemptor, std::string_view node,
                        const std::vector<const sh_pod*>& victims) const {
    return detail::collectStatus<Status>(api_, [&](sh_status* st) {
      return api_->preempt_victims(cycle_, &preemptor, node.data(), node.size(), victims.data(),
                                   victims.size(), st);
    });
  }
  // The candidates the scheduler's preempting extenders keep (preemption_extenders, ABI 1.4),
  // into `out`; an Error when an extender that is not ignorable failed. A host older than 1.4
  // has no extenders to ask: `out` is `candidates`.
  Status extenders(const sh_pod& preemptor, const std::vector<sh_preemption_candidate>& candidates,
                   std::vector<sh_preemption_candidate>& out) const {
    if (!detail::servesAsyncPreemption(api_)) {
      out = candidates;
      return Status::success();
    }
    const sh_preemption_candidate* kept = nullptr;
    std::size_t n = 0;
    Status s = detail::collectStatus<Status>(api_, [&](sh_status* st) {
      n = api_->preemption_extenders(cycle_, &preemptor, candidates.data(), candidates.size(), st,
                                     &kept);
      return SH_SUCCESS;
    });
    if (!s.reasons().empty()) {
      s.setCode(SH_ERROR);
      return s;
    }
    out.assign(kept, kept == nullptr ? kept : kept + n);
    return Status::success();
  }

 private:
  const sh_host_api* api_;
  sh_cycle* cycle_;
};

// Asks the cluster connector to bind `pod` to `node` (what DefaultBinder does). The host writes
// its reasons straight into the current call's status, so the returned Status carries only
// the code.
inline Status Host::bindPod(const Cycle& cycle, const sh_pod& pod, std::string_view node) const {
  return Status(api_->bind_pod(host_, &pod, node.data(), node.size(), cycle.callStatus()));
}

// -- Host: objects of declared kinds -------------------------------------------------------
inline Status Host::olderHost(std::string_view service) const {
  return Status::error(std::string(service) + ": the host's ABI is 1." +
                       std::to_string(api_ == nullptr ? 0 : api_->abi_minor) +
                       "; objects of declared kinds need 1.2");
}

inline Object Host::objectGet(const Cycle& cycle, uint32_t kind, std::string_view ns,
                              std::string_view name) const noexcept {
  if (!servesObjects()) {
    return Object();
  }
  return Object(api_, api_->object_get(host_, cycle.handle(), kind, ns.data(), ns.size(),
                                       name.data(), name.size()));
}

inline Object Host::objectGet(uint32_t kind, std::string_view ns,
                              std::string_view name) const noexcept {
  return objectGet(Cycle(api_, nullptr), kind, ns, name);
}

inline ObjectList Host::objectList(const Cycle& cycle, uint32_t kind, std::string_view ns,
                                   std::string_view selector) const noexcept {
  if (!servesObjects()) {
    return ObjectList();
  }
  const sh_object* const* out = nullptr;
  std::size_t n = api_->object_list(host_, cycle.handle(), kind, ns.data(), ns.size(),
                                    selector.data(), selector.size(), &out);
  return ObjectList(api_, out, n);
}

inline ObjectList Host::objectList(uint32_t kind, std::string_view ns,
                                   std::string_view selector) const noexcept {
  return objectList(Cycle(api_, nullptr), kind, ns, selector);
}

inline std::string Host::objectJson(const Object& object) const {
  if (!servesObjects() || !object.present()) {
    return std::string();
  }
  std::string text(api_->object_json(object.raw(), nullptr, 0), '\0');
  if (!text.empty()) {
    text.resize(api_->object_json(object.raw(), text.data(), text.size()));
  }
  return text;
}

inline Status Host::objectWrite(const Cycle& cycle, const ObjectWrite& write) const {
  if (!servesObjects()) {
    return olderHost("object_write");
  }
  return detail::collectStatus<Status>(api_, [&](sh_status* st) {
    return api_->object_write(host_, cycle.handle(), &write.raw(), st);
  });
}

inline uint64_t Host::objectKindVersion(const Cycle& cycle, uint32_t kind) const {
  return detail::servesKindVersions(api_) ? api_->object_kind_version(host_, cycle.handle(), kind)
                                          : 0;
}

inline Host::WaitEnd Host::cycleWait(const Cycle& cycle, uint32_t millis) const {
  if (!detail::servesBindingWaits(api_)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(millis));
    return WaitEnd::kElapsed;
  }
  switch (api_->cycle_wait(host_, cycle.handle(), millis)) {
    case SH_WAIT_ELAPSED:
      return WaitEnd::kElapsed;
    case SH_WAIT_POD_DELETED:
      return WaitEnd::kPodDeleted;
    default:
      return WaitEnd::kStopping;
  }
}

inline Status Host::objectAssume(uint32_t kind, std::string_view json) const {
  if (!servesObjects()) {
    return olderHost("object_assume");
  }
  return detail::collectStatus<Status>(api_, [&](sh_status* st) {
    return api_->object_assume(host_, kind, json.data(), json.size(), st);
  });
}

inline bool Host::objectRestore(uint32_t kind, std::string_view ns,
                                std::string_view name) const noexcept {
  if (!servesObjects()) {
    return false;
  }
  api_->object_restore(host_, kind, ns.data(), ns.size(), name.data(), name.size());
  return true;
}

class PreFilterResult {
 public:
  PreFilterResult(const sh_host_api* api, sh_prefilter_result* r) noexcept : api_(api), r_(r) {}
  void addNode(std::string_view name) noexcept {
    api_->prefilter_result_add_node(r_, name.data(), name.size());
  }

 private:
  const sh_host_api* api_;
  sh_prefilter_result* r_;
};

struct EventRegistration {
  static constexpr uint32_t kNoDeclaredKind = UINT32_MAX;

  sh_event_resource resource;  // ignored when declaredKind is set
  uint32_t actions;            // SH_ACTION_* bits
  bool hasHint;
  // Since 1.2: the registration is for the events of kind `declaredKind` of the plugin's kKinds
  // (SH_RESOURCE_DECLARED_KIND + declaredKind on the wire); made by onDeclaredKind. A separate
  // field because that wire value is no sh_event_resource enumerator.
  uint32_t declaredKind = kNoDeclaredKind;

  static EventRegistration onDeclaredKind(uint32_t kind, uint32_t actions, bool hasHint) noexcept {
    return EventRegistration{SH_RESOURCE_WILDCARD, actions, hasHint, kind};
  }
};

// ---------------------------------------------------------------------------
// Extension-point tags. Derive from each one you implement and provide the method
// named in its comment (public, non-virtual is fine).
// ---------------------------------------------------------------------------
// Status preEnqueue(const sh_pod& pod);
struct PreEnqueuePlugin {};
// bool less(const sh_queued_pod& a, const sh_queued_pod& b);
struct QueueSortPlugin {};
// Status preFilter(Cycle&, const sh_pod&, PreFilterResult&);
struct PreFilterPlugin {};
// Status addPod(Cycle&, const sh_pod& pod, const sh_pod& other, const sh_node_info&);
// Status removePod(Cycle&, const sh_pod& pod, const sh_pod& other, const sh_node_info&);
struct PreFilterExtensions {};
// Status filter(Cycle&, const sh_pod&, const sh_node_info&);
struct FilterPlugin {};
// Status postFilter(Cycle&, const sh_pod&);
struct PostFilterPlugin {};
// Status preScore(Cycle&, const sh_pod&, const sh_node_info* const* nodes, std::size_t n);
struct PreScorePlugin {};
// Status score(Cycle&, const sh_pod&, const sh_node_info&, int64_t& score);
struct ScorePlugin {};
// Status normalizeScore(Cycle&, const sh_pod&, sh_node_score* scores, std::size_t n);
struct ScoreExtensions {};
// Status reserve(Cycle&, const sh_pod&, std::string_view node);
// void unreserve(Cycle&, const sh_pod&, std::string_view node);
struct ReservePlugin {};
// Status permit(Cycle&, const sh_pod&, std::string_view node, int64_t& timeoutMs);
struct PermitPlugin {};
// Status preBind(Cycle&, const sh_pod&, std::string_view node);
struct PreBindPlugin {};
// Status bind(Cycle&, const sh_pod&, std::string_view node);
struct BindPlugin {};
// void postBind(Cycle&, const sh_pod&, std::string_view node);
struct PostBindPlugin {};
// std::vector<EventRegistration> eventsToRegister();
// sh_queueing_hint queueingHint(std::size_t index, const sh_pod&, const sh_event_objects&);
//   (queueingHint is required only when a registration sets hasHint; for an event on a
//   declared kind, ObjectEvent(host.api(), event) reads its objects)
struct EnqueueExtensions {};

}  // namespace schedhost

#include <schedhost/detail/metadata.hpp>
#include <schedhost/detail/trampolines.hpp>

// Registers `Class` as plugin `Name`. Use once, at the bottom of the plugin's file. `Name` and
// `Version` are string literals or `constexpr const char*` constants. The kinds of objects the
// plugin reads and writes (ABI 1.2) are its static member `kKinds`, when it has one (see
// schedhost/objects.hpp).
#define SCHEDHOST_PLUGIN(Class, Name, Version)                                                 \
  SH_META_ATTR constexpr sh_plugin_metadata kSchedhostPluginMetadata =                         \
      ::schedhost::detail::makeMetadata(Name, Version, ::schedhost::detail::pointsOf<Class>(), \
                                        ::schedhost::detail::Flags<Class>::kValue);            \
  SCHEDHOST_DETAIL_ENTRY_DECL;                                                                 \
  SCHEDHOST_DETAIL_ENTRY_DECL {                                                                \
    static const sh_plugin_vtable kVtable = ::schedhost::detail::makeVtable<Class>();          \
    static const sh_plugin_descriptor kDescriptor = {                                          \
        sizeof(sh_plugin_descriptor),                                                          \
        SH_ABI_MAJOR,                                                                          \
        SH_ABI_MINOR,                                                                          \
        Name,                                                                                  \
        Version,                                                                               \
        ::schedhost::detail::DefaultArgs<Class>::kValue,                                       \
        ::schedhost::detail::Flags<Class>::kValue,                                             \
        0u,                                                                                    \
        &::schedhost::detail::create<Class>,                                                   \
        &::schedhost::detail::destroy<Class>,                                                  \
        &kVtable,                                                                              \
        ::schedhost::detail::Kinds<Class>::data(),                                             \
        ::schedhost::detail::Kinds<Class>::kCount,                                             \
        0u};                                                                                   \
    return &kDescriptor;                                                                       \
  }

#endif  // SCHEDHOST_PLUGIN_HPP
