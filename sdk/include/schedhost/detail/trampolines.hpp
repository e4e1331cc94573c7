// The adapter between a plugin class and the C vtable of plugin.h: one noexcept trampoline per
// extension point, the vtable and descriptor parts SCHEDHOST_PLUGIN builds, and create/destroy.
// Internal to the SDK (plugin.hpp includes it); may change in any release.
//
// Every trampoline turns an exception thrown by plugin code into an Error status carrying the
// exception's message, so that nothing unwinds into the host.
#ifndef SCHEDHOST_DETAIL_TRAMPOLINES_HPP
#define SCHEDHOST_DETAIL_TRAMPOLINES_HPP

#include <schedhost/plugin.h>
#include <schedhost/plugin.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace schedhost::detail {

// Per-instance wrapper: the plugin object plus what the trampolines need.
template <typename T>
struct Instance {
  Host host;
  T plugin;
  std::vector<EventRegistration> events;
  Instance(const sh_host_api* api, sh_host* h, const Args& args)
      : host(api, h), plugin(makePlugin(host, args)) {}

 private:
  static T makePlugin(Host& h, const Args& args) {
    if constexpr (std::is_constructible_v<T, Host&, const Args&>) {
      return T(h, args);
    } else {
      static_assert(std::is_default_constructible_v<T>,
                    "a plugin needs a constructor T(schedhost::Host&, const schedhost::Args&) "
                    "or a default constructor");
      return T();
    }
  }
};

template <typename T>
Instance<T>* self(void* p) noexcept {
  return static_cast<Instance<T>*>(p);
}

inline sh_code fromException(const sh_host_api* api, sh_status* st, const char* what) noexcept {
  api->status_add_reason(st, what, std::strlen(what));
  return SH_ERROR;
}

// Runs fn() and converts exceptions into an Error status.
template <typename Fn>
sh_code guard(const sh_host_api* api, sh_status* st, Fn&& fn) noexcept {
  try {
    return fn();
  } catch (const std::exception& e) {
    return fromException(api, st, e.what());
  } catch (...) {
    return fromException(api, st, "plugin threw a non-standard exception");
  }
}

template <typename T>
sh_code preEnqueue(void* s, const sh_pod* pod, sh_status* st) noexcept {
  auto* in = self<T>(s);
  return guard(in->host.api(), st,
               [&] { return in->plugin.preEnqueue(*pod).deliver(in->host.api(), st); });
}
template <typename T>
int less(void* s, const sh_queued_pod* a, const sh_queued_pod* b) noexcept {
  try {
    return self<T>(s)->plugin.less(*a, *b) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}
template <typename T>
sh_code preFilter(void* s, sh_cycle* c, const sh_pod* pod, sh_prefilter_result* r,
                  sh_status* st) noexcept {
  auto* in = self<T>(s);
  const sh_host_api* api = in->host.api();
  return guard(api, st, [&] {
    Cycle cycle(api, c, st);
    PreFilterResult result(api, r);
    return in->plugin.preFilter(cycle, *pod, result).deliver(api, st);
  });
}
template <typename T>
sh_code addPod(void* s, sh_cycle* c, const sh_pod* pod, const sh_pod* other, const sh_node_info* ni,
               sh_status* st) noexcept {
  auto* in = self<T>(s);
  const sh_host_api* api = in->host.api();
  return guard(api, st, [&] {
    Cycle cycle(api, c, st);
    return in->plugin.addPod(cycle, *pod, *other, *ni).deliver(api, st);
  });
}
template <typename T>
sh_code removePod(void* s, sh_cycle* c, const sh_pod* pod, const sh_pod* other,
                  const sh_node_info* ni, sh_status* st) noexcept {
  auto* in = self<T>(s);
  const sh_host_api* api = in->host.api();
  return guard(api, st, [&] {
    Cycle cycle(api, c, st);
    return in->plugin.removePod(cycle, *pod, *other, *ni).deliver(api, st);
  });
}
template <typename T>
sh_code filter(void* s, sh_cycle* c, const sh_pod* pod, const sh_node_info* ni,
               sh_status* st) noexcept {
  auto* in = self<T>(s);
  const sh_host_api* api = in->host.api();
  return guard(api, st, [&] {
    Cycle cycle(api, c, st);
    return in->plugin.filter(cycle, *pod, *ni).deliver(api, st);
  });
}
template <typename T>
sh_code postFilter(void* s, sh_cycle* c, const sh_pod* pod, sh_status* st) noexcept {
  auto* in = self<T>(s);
  const sh_host_api* api = in->host.api();
  return guard(api, st, [&] {
    Cycle cycle(api, c, st);
    return in->plugin.postFilter(cycle, *pod).deliver(api, st);
  });
}
template <typename T>
sh_code preScore(void* s, sh_cycle* c, const sh_pod* pod, const sh_node_info* const* nodes,
                 size_t n, sh_status* st) noexcept {
  auto* in = self<T>(s);
  const sh_host_api* api = in->host.api();
  return guard(api, st, [&] {
    Cycle cycle(api, c, st);
    return in->plugin.preScore(cycle, *pod, nodes, n).deliver(api, st);
  });
}
template <typename T>
sh_code score(void* s, sh_cycle* c, const sh_pod* pod, const sh_node_info* ni, int64_t* out,
              sh_status* st) noexcept {
  auto* in = self<T>(s);
  const sh_host_api* api = in->host.api();
  return guard(api, st, [&] {
    Cycle cycle(api, c, st);
    return in->plugin.score(cycle, *pod, *ni, *out).deliver(api, st);
  });
}
template <typename T>
sh_code normalizeScore(void* s, sh_cycle* c, const sh_pod* pod, sh_node_score* scores, size_t n,
                       sh_status* st) noexcept {
  auto* in = self<T>(s);
  const sh_host_api* api = in->host.api();
  return guard(api, st, [&] {
    Cycle cycle(api, c, st);
    return in->plugin.normalizeScore(cycle, *pod, scores, n).deliver(api, st);
  });
}
template <typename T>
sh_code reserve(void* s, sh_cycle* c, const sh_pod* pod, sh_str node, sh_status* st) noexcept {
  auto* in = self<T>(s);
  const sh_host_api* api = in->host.api();
  return guard(api, st, [&] {
    Cycle cycle(api, c, st);
    return in->plugin.reserve(cycle, *pod, view(node)).deliver(api, st);
  });
}
template <typename T>
void unreserve(void* s, sh_cycle* c, const sh_pod* pod, sh_str node) noexcept {
  auto* in = self<T>(s);
  try {
    Cycle cycle(in->host.api(), c);
    in->plugin.unreserve(cycle, *pod, view(node));
  } catch (...) {
    in->host.log(SH_LOG_ERROR, "unreserve threw an exception");
  }
}
template <typename T>
sh_code permit(void* s, sh_cycle* c, const sh_pod* pod, sh_str node, int64_t* timeoutMs,
               sh_status* st) noexcept {
  auto* in = self<T>(s);
  const sh_host_api* api = in->host.api();
  return guard(api, st, [&] {
    Cycle cycle(api, c, st);
    return in->plugin.permit(cycle, *pod, view(node), *timeoutMs).deliver(api, st);
  });
}
template <typename T>
sh_code preBind(void* s, sh_cycle* c, const sh_pod* pod, sh_str node, sh_status* st) noexcept {
  auto* in = self<T>(s);
  const sh_host_api* api = in->host.api();
  return guard(api, st, [&] {
    Cycle cycle(api, c, st);
    return in->plugin.preBind(cycle, *pod, view(node)).deliver(api, st);
  });
}
template <typename T>
sh_code bind(void* s, sh_cycle* c, const sh_pod* pod, sh_str node, sh_status* st) noexcept {
  auto* in = self<T>(s);
  const sh_host_api* api = in->host.api();
  return guard(api, st, [&] {
    Cycle cycle(api, c, st);
    return in->plugin.bind(cycle, *pod, view(node)).deliver(api, st);
  });
}
template <typename T>
void postBind(void* s, sh_cycle* c, const sh_pod* pod, sh_str node) noexcept {
  auto* in = self<T>(s);
  try {
    Cycle cycle(in->host.api(), c);
    in->plugin.postBind(cycle, *pod, view(node));
  } catch (...) {
    in->host.log(SH_LOG_ERROR, "postBind threw an exception");
  }
}
template <typename T>
size_t eventsToRegister(void* s, sh_event_registration* out, size_t capacity) noexcept {
  auto* in = self<T>(s);
  for (size_t i = 0; i < in->events.size() && i < capacity; ++i) {
    const EventRegistration& e = in->events[i];
    out[i].resource = e.declaredKind == EventRegistration::kNoDeclaredKind
                          ? static_cast<int32_t>(e.resource)
                          : static_cast<int32_t>(SH_RESOURCE_DECLARED_KIND + e.declaredKind);
    out[i].actions = e.actions;
    out[i].has_hint = e.hasHint ? 1 : 0;
    out[i].reserved_ = 0;
  }
  return in->events.size();
}
template <typename T, typename = void>
struct HasQueueingHint : std::false_type {};
template <typename T>
struct HasQueueingHint<
    T, std::void_t<decltype(std::declval<T&>().queueingHint(
           std::size_t{}, std::declval<const sh_pod&>(), std::declval<const sh_event_objects&>()))>>
    : std::true_type {};

template <typename T>
sh_queueing_hint queueingHint(void* s, size_t index, const sh_pod* pod,
                              const sh_event_objects* ev) noexcept {
  if constexpr (HasQueueingHint<T>::value) {
    try {
      return self<T>(s)->plugin.queueingHint(index, *pod, *ev);
    } catch (...) {
      return SH_QUEUE;  // an error in a hint is treated as Queue, as upstream
    }
  } else {
    // No registration of this plugin sets hasHint: the host never asks, but answer Queue.
    (void)s;
    (void)index;
    (void)pod;
    (void)ev;
    return SH_QUEUE;
  }
}

template <typename T>
constexpr uint32_t pointsOf() {
  uint32_t p = 0;
  if (std::is_base_of_v<PreEnqueuePlugin, T>) p |= SH_POINT_PRE_ENQUEUE;
  if (std::is_base_of_v<QueueSortPlugin, T>) p |= SH_POINT_QUEUE_SORT;
  if (std::is_base_of_v<PreFilterPlugin, T>) p |= SH_POINT_PRE_FILTER;
  if (std::is_base_of_v<FilterPlugin, T>) p |= SH_POINT_FILTER;
  if (std::is_base_of_v<PostFilterPlugin, T>) p |= SH_POINT_POST_FILTER;
  if (std::is_base_of_v<PreScorePlugin, T>) p |= SH_POINT_PRE_SCORE;
  if (std::is_base_of_v<ScorePlugin, T>) p |= SH_POINT_SCORE;
  if (std::is_base_of_v<ReservePlugin, T>) p |= SH_POINT_RESERVE;
  if (std::is_base_of_v<PermitPlugin, T>) p |= SH_POINT_PERMIT;
  if (std::is_base_of_v<PreBindPlugin, T>) p |= SH_POINT_PRE_BIND;
  if (std::is_base_of_v<BindPlugin, T>) p |= SH_POINT_BIND;
  if (std::is_base_of_v<PostBindPlugin, T>) p |= SH_POINT_POST_BIND;
  return p;
}

template <typename T>
sh_plugin_vtable makeVtable() {
  sh_plugin_vtable v{};
  v.struct_size = sizeof(sh_plugin_vtable);
  if constexpr (std::is_base_of_v<PreEnqueuePlugin, T>) v.pre_enqueue = &preEnqueue<T>;
  if constexpr (std::is_base_of_v<QueueSortPlugin, T>) v.queue_sort_less = &less<T>;
  if constexpr (std::is_base_of_v<PreFilterPlugin, T>) v.pre_filter = &preFilter<T>;
  if constexpr (std::is_base_of_v<PreFilterExtensions, T>) {
    static_assert(std::is_base_of_v<PreFilterPlugin, T>,
                  "PreFilterExtensions needs PreFilterPlugin");
    v.pre_filter_add_pod = &addPod<T>;
    v.pre_filter_remove_pod = &removePod<T>;
  }
  if constexpr (std::is_base_of_v<FilterPlugin, T>) v.filter = &filter<T>;
  if constexpr (std::is_base_of_v<PostFilterPlugin, T>) v.post_filter = &postFilter<T>;
  if constexpr (std::is_base_of_v<PreScorePlugin, T>) v.pre_score = &preScore<T>;
  if constexpr (std::is_base_of_v<ScorePlugin, T>) v.score = &score<T>;
  if constexpr (std::is_base_of_v<ScoreExtensions, T>) {
    static_assert(std::is_base_of_v<ScorePlugin, T>, "ScoreExtensions needs ScorePlugin");
    v.normalize_score = &normalizeScore<T>;
  }
  if constexpr (std::is_base_of_v<ReservePlugin, T>) {
    v.reserve = &reserve<T>;
    v.unreserve = &unreserve<T>;
  }
  if constexpr (std::is_base_of_v<PermitPlugin, T>) v.permit = &permit<T>;
  if constexpr (std::is_base_of_v<PreBindPlugin, T>) v.pre_bind = &preBind<T>;
  if constexpr (std::is_base_of_v<BindPlugin, T>) v.bind = &bind<T>;
  if constexpr (std::is_base_of_v<PostBindPlugin, T>) v.post_bind = &postBind<T>;
  if constexpr (std::is_base_of_v<EnqueueExtensions, T>) {
    v.events_to_register = &eventsToRegister<T>;
    v.queueing_hint = &queueingHint<T>;
  }
  return v;
}

template <typename T, typename = void>
struct DefaultArgs {
  static constexpr const char* kValue = nullptr;
};
template <typename T>
struct DefaultArgs<T, std::void_t<decltype(T::kDefaultArgsJson)>> {
  static constexpr const char* kValue = T::kDefaultArgsJson;
};

template <typename T, typename = void>
struct Flags {
  static constexpr uint32_t kValue = 0;
};
template <typename T>
struct Flags<T, std::void_t<decltype(T::kFlags)>> {
  static constexpr uint32_t kValue = T::kFlags;
};

// The kinds of objects a plugin declares: its static member array kKinds, when it has one.
template <typename T, typename = void>
struct Kinds {
  static constexpr const sh_object_kind* data() noexcept { return nullptr; }
  static constexpr uint32_t kCount = 0;
};
template <typename T>
struct Kinds<T, std::void_t<decltype(T::kKinds)>> {
  static_assert(std::is_array_v<decltype(T::kKinds)> &&
                    std::is_same_v<std::remove_cv_t<std::remove_extent_t<decltype(T::kKinds)>>,
                                   sh_object_kind>,
                "kKinds must be an array of sh_object_kind (schedhost::objectKind)");
  static_assert(std::extent_v<decltype(T::kKinds)> <= SH_MAX_DECLARED_KINDS,
                "a plugin declares at most SH_MAX_DECLARED_KINDS kinds");
  static constexpr const sh_object_kind* data() noexcept { return T::kKinds; }
  static constexpr uint32_t kCount = static_cast<uint32_t>(std::extent_v<decltype(T::kKinds)>);
};

template <typename T>
void* create(const sh_host_api* api, sh_host* host, const sh_args* args) noexcept {
  int errors = 0;
  Args a(api, host, args, &errors);
  try {
    auto in = std::make_unique<Instance<T>>(api, host, a);
    if (a.hadErrors()) {
      return nullptr;
    }
    if constexpr (std::is_base_of_v<EnqueueExtensions, T>) {
      in->events = in->plugin.eventsToRegister();
    }
    return in.release();
  } catch (const std::exception& e) {
    std::string msg = std::string("create failed: ") + e.what();
    api->args_error(host, args, msg.data(), msg.size());
  } catch (...) {
    const char msg[] = "create failed: non-standard exception";
    api->args_error(host, args, msg, sizeof(msg) - 1);
  }
  return nullptr;
}

template <typename T>
void destroy(void* s) noexcept {
  delete self<T>(s);
}

}  // namespace schedhost::detail

#endif  // SCHEDHOST_DETAIL_TRAMPOLINES_HPP
