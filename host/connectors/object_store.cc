#include "host/connectors/object_store.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <utility>

#include <spdlog/spdlog.h>

#include "host/common/quoted.h"
#include "host/model/field_parsers.h"
#include "host/model/json_cursor.h"
#include "host/model/rfc3339.h"

namespace sh::connectors {
namespace {

sh_str toStr(const std::string& s) { return sh_str{s.data(), s.size()}; }

// RFC 1123 label: lower-case alphanumerics and '-', starting and ending alphanumeric.
bool dnsLabel(std::string_view s, std::size_t maxLen) {
  if (s.empty() || s.size() > maxLen) {
    return false;
  }
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(s.front()) || !alnum(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [&](char c) { return alnum(c) || c == '-'; });
}

// RFC 1123 subdomain: dot-separated labels, at most 253 bytes.
bool dnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) {
    return false;
  }
  std::size_t start = 0;
  while (true) {
    std::size_t dot = s.find('.', start);
    if (!dnsLabel(s.substr(start, dot == std::string_view::npos ? s.npos : dot - start), 63)) {
      return false;
    }
    if (dot == std::string_view::npos) {
      return true;
    }
    start = dot + 1;
  }
}

// A Kind: an upper-case letter, then letters and digits.
bool kindName(std::string_view s) {
  if (s.empty() || s.size() > 63 || !(s.front() >= 'A' && s.front() <= 'Z')) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  });
}

bool keyLess(const ObjectPtr& a, const ObjectPtr& b) {
  if (a->ns() != b->ns()) {
    return a->ns() < b->ns();
  }
  return a->name() < b->name();
}

}  // namespace

// ---------------------------------------------------------------------------------------
// ObjectKind

std::string ObjectKind::apiVersion() const {
  return group.empty() ? version : group + "/" + version;
}

std::string ObjectKind::resourceName() const {
  return group.empty() ? resource : resource + "." + version + "." + group;
}

std::string ObjectKind::path(std::string_view ns) const {
  std::string out = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (!ns.empty()) {
    out += "/namespaces/";
    out += ns;
  }
  out += "/" + resource;
  return out;
}

std::string ObjectKind::watchKey() const {
  return resource + "." + version + "." + group + "?" + labelSelector + "&" + fieldSelector;
}

std::string ObjectKind::describe() const {
  std::string out =
      kind + " (" + resource + "." + version + (group.empty() ? "" : "." + group) + ")";
  if (!labelSelector.empty()) {
    out += " labelSelector " + quoted(labelSelector);
  }
  if (!fieldSelector.empty()) {
    out += " fieldSelector " + quoted(fieldSelector);
  }
  return out;
}

int32_t eventResourceOf(const ObjectKind& kind, std::size_t id) {
  struct Named {
    const char* group;
    const char* resource;
    sh_event_resource value;
  };
  static constexpr Named kNamed[] = {
      {"", "persistentvolumes", SH_RESOURCE_PERSISTENT_VOLUME},
      {"", "persistentvolumeclaims", SH_RESOURCE_PERSISTENT_VOLUME_CLAIM},
      {"storage.k8s.io", "csinodes", SH_RESOURCE_CSI_NODE},
      {"storage.k8s.io", "csidrivers", SH_RESOURCE_CSI_DRIVER},
      {"storage.k8s.io", "volumeattachments", SH_RESOURCE_VOLUME_ATTACHMENT},
      {"storage.k8s.io", "csistoragecapacities", SH_RESOURCE_CSI_STORAGE_CAPACITY},
      {"storage.k8s.io", "storageclasses", SH_RESOURCE_STORAGE_CLASS},
      {"resource.k8s.io", "resourceclaims", SH_RESOURCE_RESOURCE_CLAIM},
      {"resource.k8s.io", "resourceslices", SH_RESOURCE_RESOURCE_SLICE},
      {"resource.k8s.io", "deviceclasses", SH_RESOURCE_DEVICE_CLASS},
  };
  for (const Named& n : kNamed) {
    if (kind.group == n.group && kind.resource == n.resource) {
      return n.value;
    }
  }
  return kObjectEventResourceBase + static_cast<int32_t>(id);
}

std::string checkKind(const ObjectKind& k) {
  if (!k.group.empty() && !dnsSubdomain(k.group)) {
    return "group " + quoted(k.group) + ": not a DNS subdomain (lower-case, dot-separated)";
  }
  if (!dnsLabel(k.version, 63)) {
    return "version " + quoted(k.version) + ": not a DNS label (\"v1\", \"v1alpha1\")";
  }
  if (!dnsLabel(k.resource, 63)) {
    return "resource " + quoted(k.resource) + ": not a lower-case plural (\"podgroups\")";
  }
  if (!kindName(k.kind)) {
    return "kind " + quoted(k.kind) + ": not a Kind name (\"PodGroup\")";
  }
  std::string error;
  if (!LabelSelectorText::parse(k.labelSelector, error)) {
    return "labelSelector " + quoted(k.labelSelector) + ": " + error;
  }
  if (!FieldSelectorText::parse(k.fieldSelector, error)) {
    return "fieldSelector " + quoted(k.fieldSelector) + ": " + error;
  }
  return {};
}

// ---------------------------------------------------------------------------------------
// StoredObject

std::shared_ptr<const StoredObject> StoredObject::parse(boost::json::value object,
                                                        std::string& error, std::size_t bytes) {
  if (bytes > kMaxObjectBytes) {
    error = "object of " + std::to_string(bytes) + " bytes (at most " +
            std::to_string(kMaxObjectBytes) + ")";
    return nullptr;
  }
  if (!object.is_object()) {
    error = "not a JSON object";
    return nullptr;
  }
  std::shared_ptr<StoredObject> out(new StoredObject());
  out->json_ = std::move(object);
  model::ParseContext ctx;
  model::Cursor root(ctx, &out->json_);
  out->apiVersion_ = std::string(root["apiVersion"].stringOr(""));
  out->kind_ = std::string(root["kind"].stringOr(""));
  model::Cursor meta = root["metadata"];
  out->name_ = std::string(meta["name"].requiredString());
  out->ns_ = std::string(meta["namespace"].stringOr(""));
  out->uid_ = std::string(meta["uid"].stringOr(""));
  out->rvText_ = std::string(meta["resourceVersion"].stringOr(""));
  out->labels_ = model::parseStringMap(meta["labels"]);
  int64_t created = 0;
  if (auto ts = meta["creationTimestamp"].string(); ts && !ts->empty()) {
    auto nanos = model::parseRfc3339Nanos(*ts);
    if (!nanos) {
      ctx.error(meta["creationTimestamp"].segment(), "not an RFC 3339 time");
    } else {
      created = *nanos;
    }
  }
  const bool deleting = meta["deletionTimestamp"].present();
  if (!out->rvText_.empty()) {
    const char* b = out->rvText_.data();
    const char* e = b + out->rvText_.size();
    auto [p, ec] = std::from_chars(b, e, out->rv_);
    if (ec != std::errc() || p != e) {
      ctx.error(meta["resourceVersion"].segment(), "not an unsigned integer");
    }
  }
  if (!ctx.ok()) {
    error = ctx.message();
    return nullptr;
  }
  out->key_ = out->ns_.empty() ? out->name_ : out->ns_ + "/" + out->name_;
  out->fillView();
  out->view_.creation_unix_nanos = created;
  out->view_.deleting = deleting ? 1 : 0;
  return out;
}

void StoredObject::fillView() {
  const int64_t created = view_.creation_unix_nanos;
  const int32_t deleting = view_.deleting;
  const int32_t assumed = view_.assumed;
  view_ = sh_object{};
  view_.struct_size = sizeof(sh_object);
  view_.label_count = static_cast<uint32_t>(labels_.size());
  view_.api_version = toStr(apiVersion_);
  view_.kind = toStr(kind_);
  view_.namespace_ = toStr(ns_);
  view_.name = toStr(name_);
  view_.uid = toStr(uid_);
  view_.resource_version = toStr(rvText_);
  view_.labels = labels_.empty() ? nullptr : labels_.data();
  view_.root = reinterpret_cast<const sh_json*>(&json_);
  view_.creation_unix_nanos = created;
  view_.deleting = deleting;
  view_.assumed = assumed;
}

std::shared_ptr<const StoredObject> StoredObject::asAssumed() const {
  std::shared_ptr<StoredObject> out(new StoredObject());
  out->json_ = json_;
  out->apiVersion_ = apiVersion_;
  out->kind_ = kind_;
  out->ns_ = ns_;
  out->name_ = name_;
  out->uid_ = uid_;
  out->rvText_ = rvText_;
  out->key_ = key_;
  out->labels_ = labels_;
  out->rv_ = rv_;
  out->view_.creation_unix_nanos = view_.creation_unix_nanos;
  out->view_.deleting = view_.deleting;
  out->view_.assumed = 1;
  out->fillView();
  return out;
}

// ---------------------------------------------------------------------------------------
// KindVersion

namespace {

// FNV-1a over the namespace, a separator and the name, then a final mix so that the low bits
// the table uses depend on every byte.
uint64_t hashOf(std::string_view ns, std::string_view name) {
  uint64_t h = 14695981039346656037ull;
  auto add = [&h](std::string_view s) {
    for (char c : s) {
      h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    }
  };
  add(ns);
  h = (h ^ 0xffu) * 1099511628211ull;  // no byte of a name: "a/b" + "c" differs from "a" + "b/c"
  add(name);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

}  // namespace

KindVersion::KindVersion(std::vector<ObjectPtr> objects, uint64_t stamp)
    : objects_(std::move(objects)), stamp_(stamp) {
  views_.reserve(objects_.size());
  for (const ObjectPtr& o : objects_) {
    views_.push_back(&o->view());
  }
  std::size_t size = 8;
  while (size < objects_.size() * 2) {
    size *= 2;
  }
  slots_.assign(size, 0);
  const std::size_t mask = size - 1;
  for (std::size_t i = 0; i < objects_.size(); ++i) {
    std::size_t at = hashOf(objects_[i]->ns(), objects_[i]->name()) & mask;
    while (slots_[at] != 0) {
      at = (at + 1) & mask;
    }
    slots_[at] = static_cast<uint32_t>(i + 1);
  }
}

const StoredObject* KindVersion::find(std::string_view ns, std::string_view name) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t at = hashOf(ns, name) & mask; slots_[at] != 0; at = (at + 1) & mask) {
    const StoredObject* o = objects_[slots_[at] - 1].get();
    if (o->name() == name && o->ns() == ns) {
      return o;
    }
  }
  return nullptr;
}

const sh_object* const* KindVersion::all(std::size_t& count) const {
  count = views_.size();
  return views_.data();
}

const sh_object* const* KindVersion::inNamespace(std::string_view ns, std::size_t& count) const {
  auto lo = std::lower_bound(objects_.begin(), objects_.end(), ns,
                             [](const ObjectPtr& o, std::string_view n) { return o->ns() < n; });
  auto hi = std::upper_bound(lo, objects_.end(), ns,
                             [](std::string_view n, const ObjectPtr& o) { return n < o->ns(); });
  count = static_cast<std::size_t>(hi - lo);
  return views_.data() + (lo - objects_.begin());
}

// ---------------------------------------------------------------------------------------
// ObjectStore: kinds

std::size_t ObjectStore::addKind(const ObjectKind& kind, uint32_t verbs, std::string_view plugin) {
  if (std::string why = checkKind(kind); !why.empty()) {
    throw std::invalid_argument(kind.describe() + ": " + why);
  }
  std::vector<std::function<void(std::size_t, const ObjectKind&)>> listeners;
  std::size_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string key = kind.watchKey();
    if (auto it = byWatchKey_.find(key); it != byWatchKey_.end()) {
      Kind& k = *kinds_[it->second];
      k.verbs |= verbs;
      if (!plugin.empty() &&
          std::find(k.plugins.begin(), k.plugins.end(), plugin) == k.plugins.end()) {
        k.plugins.emplace_back(plugin);
        std::sort(k.plugins.begin(), k.plugins.end());
      }
      return it->second;
    }
    auto k = std::make_unique<Kind>();
    k->spec = kind;
    k->verbs = verbs;
    if (!plugin.empty()) {
      k->plugins.emplace_back(plugin);
    }
    std::string error;
    k->labels = *LabelSelectorText::parse(kind.labelSelector, error);
    k->fields = *FieldSelectorText::parse(kind.fieldSelector, error);
    id = kinds_.size();
    // Objects the embedded cluster delivered before the kind was declared.
    if (auto known = byApiKind_.find(kind.apiVersion() + "|" + kind.kind);
        known != byApiKind_.end()) {
      for (const auto& [key2, obj] : known->second) {
        if (selected(*k, *obj)) {
          k->objects.emplace(key2, obj);
        }
      }
    }
    kinds_.push_back(std::move(k));
    byWatchKey_.emplace(key, id);
    listeners = kindListeners_;
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
  for (const auto& fn : listeners) {
    fn(id, kind);
  }
  return id;
}

std::vector<ObjectStore::KindInfo> ObjectStore::kinds() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<KindInfo> out;
  out.reserve(kinds_.size());
  for (const auto& k : kinds_) {
    out.push_back(KindInfo{k->spec, k->verbs, k->plugins});
  }
  return out;
}

std::optional<ObjectKind> ObjectStore::kind(std::size_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (id >= kinds_.size()) {
    return std::nullopt;
  }
  return kinds_[id]->spec;
}

std::size_t ObjectStore::kindCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return kinds_.size();
}

void ObjectStore::onKindAdded(std::function<void(std::size_t, const ObjectKind&)> fn) {
  std::vector<std::pair<std::size_t, ObjectKind>> existing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    kindListeners_.push_back(fn);
    for (std::size_t i = 0; i < kinds_.size(); ++i) {
      existing.emplace_back(i, kinds_[i]->spec);
    }
  }
  for (const auto& [id, kind] : existing) {
    fn(id, kind);
  }
}

void ObjectStore::markNotServed(std::size_t kind, std::string why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (kind < kinds_.size()) {
    kinds_[kind]->notServed = std::move(why);
  }
}

std::optional<std::string> ObjectStore::notServed(std::size_t kind) const {
  std::lock_guard<std::mutex> lock(mu_);
  return kind < kinds_.size() ? kinds_[kind]->notServed : std::nullopt;
}

// ---------------------------------------------------------------------------------------
// ObjectStore: changes

bool ObjectStore::selected(const Kind& k, const StoredObject& o) const {
  if (!k.spec.namespaced && !o.ns().empty()) {
    return false;
  }
  return k.labels.matches(o.view().labels, o.view().label_count) && k.fields.matches(o.json());
}

void ObjectStore::applyLocked(std::size_t id, Kind& k, bool deleted, const ObjectPtr& object,
                              std::vector<ObjectEvent>& events) {
  auto it = k.objects.find(object->key());
  if (deleted) {
    if (it == k.objects.end()) {
      return;
    }
    events.push_back(ObjectEvent{id, SH_ACTION_DELETE, it->second, nullptr});
    k.objects.erase(it);
    if (k.assumed.erase(object->key()) > 0) {
      refreshAssumedLocked(k);
    }
    k.version.reset();
    return;
  }
  if (it == k.objects.end()) {
    if (k.objects.size() >= kMaxObjectsPerKind) {
      // docs/limits.md: the kind reads as its first kMaxObjectsPerKind objects.
      k.refused += 1;
      if (k.refused == 1) {
        spdlog::warn("{}: more than {} objects; {} {} and the ones after it are not stored",
                     k.spec.describe(), kMaxObjectsPerKind, k.spec.kind, quoted(object->key()));
      }
      return;
    }
    k.objects.emplace(object->key(), object);
    events.push_back(ObjectEvent{id, SH_ACTION_ADD, nullptr, object});
  } else {
    // A version older than the stored one is stale (a resync racing a newer watch event).
    if (object->resourceVersion() != 0 &&
        it->second->resourceVersion() > object->resourceVersion()) {
      return;
    }
    events.push_back(ObjectEvent{id, SH_ACTION_UPDATE, it->second, object});
    it->second = object;
  }
  // A stored version newer than the assumed one supersedes it (assumecache.go: the informer's
  // object replaces the assumed one once its version is newer).
  if (auto a = k.assumed.find(object->key()); a != k.assumed.end()) {
    if (object->resourceVersion() > a->second->resourceVersion() ||
        object->resourceVersion() == 0) {
      k.assumed.erase(a);
      refreshAssumedLocked(k);
    }
  }
  k.version.reset();
}

void ObjectStore::apply(std::size_t kind, bool deleted, const ObjectPtr& object,
                        std::vector<ObjectEvent>& events) {
  if (object == nullptr) {
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (kind >= kinds_.size()) {
    return;
  }
  Kind& k = *kinds_[kind];
  const std::size_t before = events.size();
  if (!deleted && !selected(k, *object)) {
    applyLocked(kind, k, true, object, events);  // it left the selectors
  } else {
    applyLocked(kind, k, deleted, object, events);
  }
  if (events.size() != before) {
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
}

void ObjectStore::applyByKind(bool deleted, const ObjectPtr& object,
                              std::vector<ObjectEvent>& events) {
  if (object == nullptr) {
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  const std::string apiKind =
      std::string(object->view().api_version.ptr, object->view().api_version.len) + "|" +
      std::string(object->view().kind.ptr, object->view().kind.len);
  auto& known = byApiKind_[apiKind];
  if (deleted) {
    known.erase(object->key());
  } else {
    known[object->key()] = object;
  }
  const std::size_t before = events.size();
  for (std::size_t id = 0; id < kinds_.size(); ++id) {
    Kind& k = *kinds_[id];
    if (k.spec.apiVersion() + "|" + k.spec.kind != apiKind) {
      continue;
    }
    applyLocked(id, k, deleted || !selected(k, *object), object, events);
  }
  if (events.size() != before) {
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
}

void ObjectStore::replace(std::size_t kind, const std::vector<ObjectPtr>& objects,
                          std::vector<ObjectEvent>& events) {
  std::lock_guard<std::mutex> lock(mu_);
  if (kind >= kinds_.size()) {
    return;
  }
  Kind& k = *kinds_[kind];
  k.notServed.reset();  // a list arrived: the kind is served (its CRD was installed)
  std::map<std::string, ObjectPtr, std::less<>> next;
  for (const ObjectPtr& o : objects) {
    if (o != nullptr && selected(k, *o)) {
      next[o->key()] = o;
    }
  }
  const std::size_t before = events.size();
  std::vector<ObjectPtr> gone;
  for (const auto& [key, obj] : k.objects) {
    if (!next.contains(key)) {
      gone.push_back(obj);
    }
  }
  for (const ObjectPtr& o : gone) {
    applyLocked(kind, k, true, o, events);
  }
  for (const auto& [key, obj] : next) {
    auto it = k.objects.find(key);
    if (it != k.objects.end() && it->second->resourceVersion() == obj->resourceVersion() &&
        obj->resourceVersion() != 0) {
      continue;  // unchanged
    }
    applyLocked(kind, k, false, obj, events);
  }
  if (events.size() != before) {
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
}

// ---------------------------------------------------------------------------------------
// ObjectStore: versions

KindVersionPtr ObjectStore::versionLocked(Kind& k) const {
  if (k.version == nullptr) {
    std::vector<ObjectPtr> objects;
    objects.reserve(k.objects.size());
    for (const auto& [key, obj] : k.objects) {
      objects.push_back(obj);
    }
    std::sort(objects.begin(), objects.end(), keyLess);
    k.version = std::make_shared<const KindVersion>(std::move(objects), ++stamps_);
  }
  return k.version;
}

KindVersionPtr ObjectStore::version(std::size_t kind) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (kind >= kinds_.size()) {
    return nullptr;
  }
  return versionLocked(*kinds_[kind]);
}

std::shared_ptr<const ObjectSnapshot> ObjectStore::snapshot() const {
  auto out = std::make_shared<ObjectSnapshot>();
  std::lock_guard<std::mutex> lock(mu_);
  out->kinds.reserve(kinds_.size());
  for (const auto& k : kinds_) {
    out->kinds.push_back(versionLocked(*k));
  }
  return out;
}

uint64_t ObjectStore::readVersion(std::size_t kind, const KindVersion* version) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (kind >= kinds_.size()) {
    return 0;
  }
  Kind& k = *kinds_[kind];
  const uint64_t stamp = version != nullptr ? version->stamp() : versionLocked(k)->stamp();
  if (k.assumedStamp == 0) {
    return stamp;
  }
  if (k.pairVersion != stamp || k.pairAssumed != k.assumedStamp) {
    k.pairVersion = stamp;
    k.pairAssumed = k.assumedStamp;
    k.pairNumber = ++stamps_;
  }
  return k.pairNumber;
}

// ---------------------------------------------------------------------------------------
// ObjectStore: the assume cache

Status ObjectStore::assume(std::size_t kind, const ObjectPtr& object) {
  if (object == nullptr) {
    return Status::error("assume: no object");
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (kind >= kinds_.size()) {
    return Status::error("assume: unknown kind");
  }
  Kind& k = *kinds_[kind];
  auto it = k.objects.find(object->key());
  if (it == k.objects.end()) {
    return Status::error(k.spec.kind + " " + quoted(object->key()) + " is not stored: only a " +
                         "stored object can be assumed");
  }
  // assumecache.go Assume: "stored object ... is newer than assumed one".
  uint64_t stored = it->second->resourceVersion();
  if (auto a = k.assumed.find(object->key()); a != k.assumed.end()) {
    stored = std::max(stored, a->second->resourceVersion());
  }
  if (object->resourceVersion() < stored) {
    return Status::error(k.spec.kind + " " + quoted(object->key()) + ": the stored version " +
                         std::to_string(stored) + " is newer than the assumed one " +
                         std::to_string(object->resourceVersion()));
  }
  k.assumed[object->key()] = object->view().assumed != 0 ? object : object->asAssumed();
  refreshAssumedLocked(k);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  return Status();
}

void ObjectStore::restore(std::size_t kind, std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (kind >= kinds_.size()) {
    return;
  }
  Kind& k = *kinds_[kind];
  if (auto it = k.assumed.find(key); it != k.assumed.end()) {
    k.assumed.erase(it);
    refreshAssumedLocked(k);
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
}

void ObjectStore::refreshAssumedLocked(Kind& k) {
  k.assumedStamp = k.assumed.empty() ? 0 : ++stamps_;
  k.anyAssumed.store(!k.assumed.empty(), std::memory_order_release);
  bool any = false;
  for (const auto& kind : kinds_) {
    any = any || !kind->assumed.empty();
  }
  anyAssumed_.store(any, std::memory_order_release);
}

bool ObjectStore::hasAssumed(std::size_t kind) const {
  if (!anyAssumed_.load(std::memory_order_acquire)) {
    return false;  // the common case, without the lock
  }
  std::lock_guard<std::mutex> lock(mu_);
  return kind < kinds_.size() && kinds_[kind]->anyAssumed.load(std::memory_order_acquire);
}

ObjectPtr ObjectStore::assumed(std::size_t kind, std::string_view key) const {
  if (!anyAssumed_.load(std::memory_order_acquire)) {
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (kind >= kinds_.size() || !kinds_[kind]->anyAssumed.load(std::memory_order_acquire)) {
    return nullptr;
  }
  const Kind& k = *kinds_[kind];
  auto it = k.assumed.find(key);
  return it == k.assumed.end() ? nullptr : it->second;
}

std::map<std::string, ObjectPtr, std::less<>> ObjectStore::assumedOf(std::size_t kind) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (kind >= kinds_.size()) {
    return {};
  }
  return kinds_[kind]->assumed;
}

}  // namespace sh::connectors
