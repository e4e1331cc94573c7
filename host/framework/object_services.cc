// The object services of the ABI (plugin.h §6, since 1.2): reads of the declared kinds from the
// cycle's ObjectSnapshot (or the store's latest version), the read-only JSON tree, writes
// through HostServices::writeObject, and the assume cache.
#include "host/framework/object_services.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <spdlog/spdlog.h>
#include <boost/json.hpp>

#include "host/common/quoted.h"
#include "host/connectors/label_selector_text.h"
#include "host/connectors/object_file.h"
#include "host/connectors/object_store.h"
#include "host/connectors/object_write.h"
#include "host/framework/cycle_state.h"
#include "host/framework/plugin_call.h"
#include "host/framework/plugin_instance.h"
#include "host/framework/service_args.h"

namespace sh::object_services {
namespace {

using connectors::KindVersion;
using connectors::ObjectStore;
using service::addReason;
using service::misuse;
using service::present;
using service::text;

constexpr std::size_t kNoKind = std::numeric_limits<std::size_t>::max();

struct Resolved {
  ObjectStore* store = nullptr;
  std::size_t id = kNoKind;
};

// The store and kind id of the plugin's kind `kind`. nullopt (counted) for an index the plugin
// did not declare; a Resolved without store when the host keeps no objects (reads are empty).
std::optional<Resolved> resolve(const char* svc, sh_host* h, uint32_t kind) {
  if (h == nullptr) {
    misuse(svc, "host NULL");
    return std::nullopt;
  }
  if (kind >= h->kindIds.size()) {
    misuse(svc, "kind " + std::to_string(kind) + " (the plugin declares " +
                    std::to_string(h->kindIds.size()) + ")");
    return std::nullopt;
  }
  Resolved r;
  r.store = h->services != nullptr ? h->services->objectStore() : nullptr;
  r.id = h->kindIds[kind];
  if (r.id == kNoKind) {
    r.store = nullptr;
  }
  return r;
}

// What a read hands out from outside the cycle's snapshot stays alive with the cycle, or, for a
// read without a cycle, for the calling thread's next kPinsPerThread such reads: far beyond
// "until the calling function returns", which is what the ABI promises.
constexpr std::size_t kPinsPerThread = 1024;

void pin(sh_cycle* c, std::shared_ptr<const void> owner) {
  if (c != nullptr) {
    c->pin(std::move(owner));
    return;
  }
  thread_local std::deque<std::shared_ptr<const void>> pins;
  pins.push_back(std::move(owner));
  if (pins.size() > kPinsPerThread) {
    pins.pop_front();
  }
}

// The version of kind `id` a read in cycle `c` sees.
const KindVersion* versionFor(const Resolved& r, sh_cycle* c) {
  if (c != nullptr && c->objects != nullptr && r.id < c->objects->kinds.size() &&
      c->objects->kinds[r.id] != nullptr) {
    return c->objects->kinds[r.id].get();
  }
  connectors::KindVersionPtr v = r.store->version(r.id);
  const KindVersion* out = v.get();
  if (v != nullptr) {
    pin(c, std::move(v));
  }
  return out;
}

std::string keyOf(std::string_view ns, std::string_view name) {
  std::string key;
  if (!ns.empty()) {
    key.reserve(ns.size() + 1 + name.size());
    key.append(ns).append(1, '/');
  }
  key.append(name);
  return key;
}

std::string_view sv(sh_str s) {
  return s.len == 0 ? std::string_view() : std::string_view(s.ptr, s.len);
}

const boost::json::value* node(const sh_json* j) {
  return reinterpret_cast<const boost::json::value*>(j);
}
const sh_json* handle(const boost::json::value* v) { return reinterpret_cast<const sh_json*>(v); }

// A parsed label selector of object_list, cached per thread by its text.
const connectors::LabelSelectorText* selectorFor(std::string_view text, std::string& error) {
  thread_local std::unordered_map<std::string, std::optional<connectors::LabelSelectorText>> cache;
  thread_local std::unordered_map<std::string, std::string> errors;
  std::string key(text);
  auto it = cache.find(key);
  if (it == cache.end()) {
    if (cache.size() >= 256) {
      cache.clear();
      errors.clear();
    }
    std::string why;
    auto parsed = connectors::LabelSelectorText::parse(text, why);
    if (!parsed) {
      errors[key] = why;
    }
    it = cache.emplace(std::move(key), std::move(parsed)).first;
  }
  if (!it->second) {
    error = errors[it->first];
    return nullptr;
  }
  return &*it->second;
}

const char* verbName(uint32_t verb) {
  switch (verb) {
    case SH_VERB_CREATE:
      return "create";
    case SH_VERB_UPDATE:
      return "update";
    case SH_VERB_PATCH:
      return "patch";
    case SH_VERB_UPDATE_STATUS:
      return "update status";
    case SH_VERB_DELETE:
      return "delete";
    default:
      return "?";
  }
}

std::string verbList(uint32_t verbs) {
  std::string out;
  for (uint32_t bit = 1; bit <= SH_VERB_DELETE; bit <<= 1) {
    if ((verbs & bit) != 0) {
      out += out.empty() ? "" : ", ";
      out += verbName(bit);
    }
  }
  return out.empty() ? "none" : out;
}

bool writablePoint(std::string_view point) {
  return point == call_point::kPostFilter || point == call_point::kReserve ||
         point == call_point::kPermit || point == call_point::kPreBind ||
         point == call_point::kBind || point == call_point::kPostBind;
}

// A refused write: an Error with `why`, counted on the plugin.
sh_code refuseWrite(sh_host* h, sh_status* st, const std::string& why) {
  misuse("object_write", why);
  addReason(st, "plugin " + quoted(h != nullptr ? h->pluginName : std::string()) + ": " + why);
  return SH_ERROR;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Reads

const sh_object* get(sh_host* h, sh_cycle* c, uint32_t kind, const char* ns, size_t nsLen,
                     const char* name, size_t nameLen) {
  auto r = resolve("object_get", h, kind);
  auto nsText = text("object_get", "ns", ns, nsLen);
  auto nameText = text("object_get", "name", name, nameLen);
  if (!r || !nsText || !nameText || r->store == nullptr || nameText->empty()) {
    return nullptr;
  }
  try {
    if (r->store->hasAssumed(r->id)) {
      if (connectors::ObjectPtr a = r->store->assumed(r->id, keyOf(*nsText, *nameText))) {
        const sh_object* view = &a->view();
        pin(c, std::move(a));
        return view;
      }
    }
    const KindVersion* v = versionFor(*r, c);
    const connectors::StoredObject* o = v != nullptr ? v->find(*nsText, *nameText) : nullptr;
    return o != nullptr ? &o->view() : nullptr;
  } catch (const std::exception& e) {
    spdlog::error("object_get: {}", e.what());
    return nullptr;
  }
}

size_t list(sh_host* h, sh_cycle* c, uint32_t kind, const char* ns, size_t nsLen,
            const char* selector, size_t selectorLen, const sh_object* const** out) {
  if (!present("object_list", "out", out)) {
    return 0;
  }
  *out = nullptr;
  auto r = resolve("object_list", h, kind);
  auto nsText = text("object_list", "ns", ns, nsLen);
  auto selText = text("object_list", "selector", selector, selectorLen);
  if (!r || !nsText || !selText || r->store == nullptr) {
    return 0;
  }
  try {
    const connectors::LabelSelectorText* sel = nullptr;
    if (!selText->empty()) {
      std::string error;
      sel = selectorFor(*selText, error);
      if (sel == nullptr) {
        misuse("object_list", "selector " + quoted(std::string(*selText)) + ": " + error);
        return 0;
      }
    }
    const KindVersion* v = versionFor(*r, c);
    if (v == nullptr) {
      return 0;
    }
    std::size_t n = 0;
    const sh_object* const* slice = nsText->empty() ? v->all(n) : v->inNamespace(*nsText, n);
    const bool anyAssumed = r->store->hasAssumed(r->id);
    if (sel == nullptr && !anyAssumed) {
      *out = slice;  // a slice of the version: nothing copied
      return n;
    }
    thread_local std::vector<const sh_object*> buffer;
    buffer.clear();
    std::map<std::string, connectors::ObjectPtr, std::less<>> assumed;
    if (anyAssumed) {
      assumed = r->store->assumedOf(r->id);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const sh_object* o = slice[i];
      if (!assumed.empty()) {
        if (auto it = assumed.find(keyOf(sv(o->namespace_), sv(o->name))); it != assumed.end()) {
          o = &it->second->view();
          pin(c, it->second);
        }
      }
      if (sel == nullptr || sel->matches(o->labels, o->label_count)) {
        buffer.push_back(o);
      }
    }
    *out = buffer.data();
    return buffer.size();
  } catch (const std::exception& e) {
    spdlog::error("object_list: {}", e.what());
    return 0;
  }
}

uint64_t kindVersion(sh_host* h, sh_cycle* c, uint32_t kind) {
  auto r = resolve("object_kind_version", h, kind);
  if (!r || r->store == nullptr) {
    return 0;
  }
  try {
    const KindVersion* v = nullptr;
    if (c != nullptr && c->objects != nullptr && r->id < c->objects->kinds.size()) {
      v = c->objects->kinds[r->id].get();
    }
    return r->store->readVersion(r->id, v);
  } catch (const std::exception& e) {
    spdlog::error("object_kind_version: {}", e.what());
    return 0;
  }
}

size_t objectJson(const sh_object* object, char* buf, size_t capacity) {
  if (object == nullptr || object->root == nullptr) {
    return 0;
  }
  try {
    const std::string textOut = boost::json::serialize(*node(object->root));
    if (buf != nullptr && capacity > 0) {
      std::memcpy(buf, textOut.data(), std::min(capacity, textOut.size()));
    }
    return textOut.size();
  } catch (const std::exception& e) {
    spdlog::error("object_json: {}", e.what());
    return 0;
  }
}

// ---------------------------------------------------------------------------------------
// The JSON tree

int jsonType(const sh_json* j) {
  const boost::json::value* v = node(j);
  if (v == nullptr) {
    return SH_ARGS_NULL;
  }
  switch (v->kind()) {
    case boost::json::kind::bool_:
      return SH_ARGS_BOOL;
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
      return SH_ARGS_INT;
    case boost::json::kind::double_:
      return SH_ARGS_DOUBLE;
    case boost::json::kind::string:
      return SH_ARGS_STRING;
    case boost::json::kind::array:
      return SH_ARGS_ARRAY;
    case boost::json::kind::object:
      return SH_ARGS_OBJECT;
    default:
      return SH_ARGS_NULL;
  }
}

const sh_json* jsonGet(const sh_json* j, const char* key, size_t len) {
  const boost::json::value* v = node(j);
  auto k = text("json_get", "key", key, len);
  if (v == nullptr || !k || !v->is_object()) {
    return nullptr;
  }
  const boost::json::value* m = v->as_object().if_contains(*k);
  return handle(m);
}

const sh_json* jsonPath(const sh_json* j, const char* path, size_t len) {
  const boost::json::value* v = node(j);
  auto p = text("json_path", "path", path, len);
  if (v == nullptr || !p) {
    return nullptr;
  }
  std::string_view rest = *p;
  while (!rest.empty() && v != nullptr) {
    const std::size_t dot = rest.find('.');
    const std::string_view step = rest.substr(0, dot);
    rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
    if (v->is_object()) {
      v = v->as_object().if_contains(step);
    } else if (v->is_array()) {
      std::size_t index = 0;
      if (step.empty() || step.size() > 18 ||
          !std::all_of(step.begin(), step.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
        return nullptr;
      }
      for (char ch : step) {
        index = index * 10 + static_cast<std::size_t>(ch - '0');
      }
      v = index < v->as_array().size() ? &v->as_array()[index] : nullptr;
    } else {
      return nullptr;
    }
  }
  return handle(v);
}

size_t jsonSize(const sh_json* j) {
  const boost::json::value* v = node(j);
  if (v == nullptr) {
    return 0;
  }
  if (v->is_array()) {
    return v->as_array().size();
  }
  if (v->is_object()) {
    return v->as_object().size();
  }
  return 0;
}

const sh_json* jsonAt(const sh_json* j, size_t index) {
  const boost::json::value* v = node(j);
  if (v == nullptr) {
    return nullptr;
  }
  if (v->is_array()) {
    return index < v->as_array().size() ? handle(&v->as_array()[index]) : nullptr;
  }
  if (v->is_object()) {
    const auto& o = v->as_object();
    return index < o.size() ? handle(&(o.begin() + static_cast<std::ptrdiff_t>(index))->value())
                            : nullptr;
  }
  return nullptr;
}

sh_str jsonKeyAt(const sh_json* j, size_t index) {
  const boost::json::value* v = node(j);
  if (v == nullptr || !v->is_object() || index >= v->as_object().size()) {
    return sh_str{"", 0};
  }
  const auto& entry = *(v->as_object().begin() + static_cast<std::ptrdiff_t>(index));
  return sh_str{entry.key().data(), entry.key().size()};
}

int64_t jsonInt(const sh_json* j) {
  const boost::json::value* v = node(j);
  if (v == nullptr) {
    return 0;
  }
  if (v->is_int64()) {
    return v->as_int64();
  }
  if (v->is_uint64()) {
    return v->as_uint64() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
               ? std::numeric_limits<int64_t>::max()
               : static_cast<int64_t>(v->as_uint64());
  }
  if (v->is_double()) {
    const double d = v->as_double();
    // Whole doubles in range only: 2.5 and 1e300 are not integers.
    if (d == static_cast<double>(static_cast<int64_t>(d)) && d > -9.2e18 && d < 9.2e18) {
      return static_cast<int64_t>(d);
    }
  }
  return 0;
}

double jsonDouble(const sh_json* j) {
  const boost::json::value* v = node(j);
  if (v == nullptr) {
    return 0.0;
  }
  if (v->is_double()) {
    return v->as_double();
  }
  if (v->is_int64()) {
    return static_cast<double>(v->as_int64());
  }
  if (v->is_uint64()) {
    return static_cast<double>(v->as_uint64());
  }
  return 0.0;
}

int jsonBool(const sh_json* j) {
  const boost::json::value* v = node(j);
  return v != nullptr && v->is_bool() && v->as_bool() ? 1 : 0;
}

sh_str jsonString(const sh_json* j) {
  const boost::json::value* v = node(j);
  if (v == nullptr || !v->is_string()) {
    return sh_str{"", 0};
  }
  return sh_str{v->as_string().data(), v->as_string().size()};
}

// ---------------------------------------------------------------------------------------
// Writes

sh_code write(sh_host* h, sh_cycle* c, const sh_object_write* w, sh_status* st) {
  (void)c;
  if (w == nullptr || w->struct_size < sizeof(sh_object_write)) {
    return refuseWrite(h, st,
                       w == nullptr
                           ? "object_write: write NULL"
                           : "object_write: struct_size " + std::to_string(w->struct_size) +
                                 " below " + std::to_string(sizeof(sh_object_write)));
  }
  auto r = resolve("object_write", h, w->kind);
  if (!r) {
    addReason(st, "object_write: kind " + std::to_string(w->kind) + " is not declared by plugin " +
                      quoted(h != nullptr ? h->pluginName : std::string()));
    return SH_ERROR;
  }
  if (r->store == nullptr) {
    addReason(st, "object_write: this host keeps no objects");
    return SH_ERROR;
  }
  try {
    const connectors::ObjectKind spec = r->store->kind(r->id).value();
    const std::string what = spec.describe();
    if (w->verb == 0 || (w->verb & (w->verb - 1)) != 0 || (w->verb & ~SH_VERB_ALL) != 0) {
      return refuseWrite(h, st,
                         "object_write to " + what + ": verb " + std::to_string(w->verb) +
                             " is not one SH_VERB_* bit");
    }
    if ((h->kindVerbs[w->kind] & w->verb) == 0) {
      return refuseWrite(h, st,
                         "object_write to " + what + ": the plugin did not declare the verb " +
                             quoted(std::string(verbName(w->verb))) +
                             " on the kind (declared: " + verbList(h->kindVerbs[w->kind]) + ")");
    }
    const char* point = currentPluginPoint();
    if (point == nullptr || !writablePoint(point)) {
      return refuseWrite(h, st,
                         "object_write to " + what + " from " +
                             (point != nullptr ? std::string(point) : "outside a plugin call") +
                             ": writes are made from PostFilter, Reserve, Permit, PreBind, "
                             "Bind and PostBind only");
    }
    auto nsText = text("object_write", "namespace", w->namespace_.ptr, w->namespace_.len);
    auto nameText = text("object_write", "name", w->name.ptr, w->name.len);
    if (!nsText || !nameText) {
      addReason(st, "object_write to " + what + ": a malformed namespace or name");
      return SH_ERROR;
    }
    if (w->body.len > connectors::kMaxObjectBytes) {
      return refuseWrite(h, st,
                         "object_write to " + what + ": a body of " + std::to_string(w->body.len) +
                             " bytes (at most " + std::to_string(connectors::kMaxObjectBytes) +
                             ")");
    }
    auto bodyText = w->body.len == 0 ? std::optional<std::string_view>(std::string_view())
                                     : text("object_write", "body", w->body.ptr, w->body.len);
    if (!bodyText) {
      addReason(st, "object_write to " + what + ": a malformed body");
      return SH_ERROR;
    }
    // Checked before the cast: a value outside the enum is not an sh_patch_type.
    if (w->patch_type < SH_PATCH_NONE || w->patch_type > SH_PATCH_JSON) {
      return refuseWrite(
          h, st,
          "object_write to " + what + ": unknown patch_type " + std::to_string(w->patch_type));
    }
    connectors::ObjectWrite out;
    out.verb = w->verb;
    out.patchType = static_cast<sh_patch_type>(w->patch_type);
    out.ns = std::string(*nsText);
    out.name = std::string(*nameText);
    out.body = std::string(*bodyText);
    const bool patch = w->verb == SH_VERB_PATCH ||
                       (w->verb == SH_VERB_UPDATE_STATUS && out.patchType != SH_PATCH_NONE);
    if (w->verb == SH_VERB_PATCH && out.patchType == SH_PATCH_NONE) {
      return refuseWrite(h, st, "object_write to " + what + ": a patch needs a patch_type");
    }
    if (w->verb != SH_VERB_DELETE) {
      boost::system::error_code ec;
      boost::json::value body =
          boost::json::parse(out.body, ec, {}, connectors::jsonParseOptions());
      if (ec) {
        return refuseWrite(
            h, st, "object_write to " + what + ": the body is not JSON (" + ec.message() + ")");
      }
      if (patch && out.patchType == SH_PATCH_JSON ? !body.is_array() : !body.is_object()) {
        return refuseWrite(h, st,
                           "object_write to " + what + ": the body must be a JSON " +
                               (patch && out.patchType == SH_PATCH_JSON ? "array" : "object"));
      }
      if (!patch) {
        // The object names itself: take namespace and name from its metadata when not given.
        const auto* meta = body.as_object().if_contains("metadata");
        const boost::json::object* m =
            meta != nullptr && meta->is_object() ? &meta->as_object() : nullptr;
        auto field = [&](const char* key) -> std::string {
          const boost::json::value* f = m != nullptr ? m->if_contains(key) : nullptr;
          return f != nullptr && f->is_string() ? std::string(f->as_string()) : std::string();
        };
        if (out.name.empty()) {
          out.name = field("name");
        }
        if (out.ns.empty()) {
          out.ns = field("namespace");
        }
      }
    }
    if (out.name.empty() && !(w->verb == SH_VERB_CREATE)) {
      return refuseWrite(h, st, "object_write to " + what + ": no name");
    }
    if (spec.namespaced && out.ns.empty()) {
      return refuseWrite(h, st, "object_write to " + what + ": no namespace for a namespaced kind");
    }
    if (!spec.namespaced && !out.ns.empty()) {
      return refuseWrite(h, st,
                         "object_write to " + what + ": a namespace for a cluster-scoped kind");
    }
    return service::reportStatus(h->services->writeObject(spec, out, h->pluginName, point), st);
  } catch (const std::exception& e) {
    addReason(st, std::string("object_write: ") + e.what());
    return SH_ERROR;
  }
}

sh_code assume(sh_host* h, uint32_t kind, const char* json, size_t len, sh_status* st) {
  auto r = resolve("object_assume", h, kind);
  auto body = text("object_assume", "json", json, len);
  if (!r || !body) {
    addReason(st, "object_assume: refused (an undeclared kind or a malformed string)");
    return SH_ERROR;
  }
  if (r->store == nullptr) {
    addReason(st, "object_assume: this host keeps no objects");
    return SH_ERROR;
  }
  try {
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(*body, ec, {}, connectors::jsonParseOptions());
    if (ec) {
      addReason(st, "object_assume: not JSON (" + ec.message() + ")");
      return SH_ERROR;
    }
    std::string error;
    connectors::ObjectPtr o = connectors::StoredObject::parse(std::move(v), error, body->size());
    if (o == nullptr) {
      addReason(st, "object_assume: " + error);
      return SH_ERROR;
    }
    return service::reportStatus(r->store->assume(r->id, o), st);
  } catch (const std::exception& e) {
    addReason(st, std::string("object_assume: ") + e.what());
    return SH_ERROR;
  }
}

void restore(sh_host* h, uint32_t kind, const char* ns, size_t nsLen, const char* name,
             size_t nameLen) {
  auto r = resolve("object_restore", h, kind);
  auto nsText = text("object_restore", "ns", ns, nsLen);
  auto nameText = text("object_restore", "name", name, nameLen);
  if (!r || !nsText || !nameText || r->store == nullptr) {
    return;
  }
  try {
    r->store->restore(r->id, keyOf(*nsText, *nameText));
  } catch (const std::exception& e) {
    spdlog::error("object_restore: {}", e.what());
  }
}

}  // namespace sh::object_services
