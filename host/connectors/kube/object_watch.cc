#include "host/connectors/kube/object_watch.h"

#include <utility>

#include <boost/json/object.hpp>
#include <boost/json/string.hpp>

namespace sh::kube {

namespace {

// "default/pg-1", "pg-1", or "(no name)": how a rejected object is named.
std::string nameOf(const boost::json::value& object) {
  const boost::json::object* o = object.if_object();
  const boost::json::value* meta = o != nullptr ? o->if_contains("metadata") : nullptr;
  if (meta == nullptr || !meta->is_object()) {
    return "(no name)";
  }
  auto field = [&](std::string_view key) {
    const boost::json::value* v = meta->as_object().if_contains(key);
    return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
  };
  const std::string ns = field("namespace");
  const std::string name = field("name");
  if (name.empty()) {
    return "(no name)";
  }
  return ns.empty() ? name : ns + "/" + name;
}

}  // namespace

ObjectWatch::ObjectWatch(Transport& transport, std::size_t id, connectors::ObjectKind kind,
                         ObjectWatchSink& sink, const Reflector::Options& options)
    : id_(id),
      kind_(std::move(kind)),
      sink_(sink),
      kindName_(kind_.kind),
      apiVersion_(kind_.apiVersion()),
      path_(kind_.path()) {
  resource_.kind = kindName_;
  resource_.apiVersion = apiVersion_;
  resource_.path = path_;
  resource_.fieldSelector = kind_.fieldSelector;
  resource_.labelSelector = kind_.labelSelector;
  resource_.namespaced = kind_.namespaced;
  ReflectorSink& self = *this;
  reflector_ = std::make_unique<Reflector>(transport, resource_, self, options);
}

ObjectWatch::~ObjectWatch() { reflector_->stop(); }

connectors::ObjectPtr ObjectWatch::parse(boost::json::value&& object, std::size_t bytes) {
  if (boost::json::object* o = object.if_object()) {
    // A watch event's object names its kind; a list item does not (the reflector sets it).
    if (!o->contains("kind")) {
      (*o)["kind"] = boost::json::string(kindName_);
    }
    if (!o->contains("apiVersion")) {
      (*o)["apiVersion"] = boost::json::string(apiVersion_);
    }
  }
  const std::string name = nameOf(object);
  std::string error;
  connectors::ObjectPtr parsed = connectors::StoredObject::parse(std::move(object), error, bytes);
  if (parsed == nullptr) {
    sink_.objectRejected(id_, "kubernetes: ignored " + kind_.kind + " " + name + " (" +
                                  kind_.resourceName() + "): " + error);
  }
  return parsed;
}

void ObjectWatch::replace(const Resource& /*resource*/, std::vector<boost::json::value>&& items) {
  std::vector<connectors::ObjectPtr> objects;
  objects.reserve(items.size());
  for (boost::json::value& item : items) {
    if (connectors::ObjectPtr o = parse(std::move(item), 0)) {
      objects.push_back(std::move(o));
    }
  }
  sink_.objectsListed(id_, std::move(objects));
}

void ObjectWatch::apply(const Resource& /*resource*/, WatchEventType type,
                        boost::json::value&& object, std::string_view text) {
  // The stored object keeps its tree: it must own it, not borrow the event's arena (which the
  // reflector uses for kinds it parses at once, by their kind's name).
  boost::json::value own(std::move(object), boost::json::storage_ptr());
  if (connectors::ObjectPtr o = parse(std::move(own), text.size())) {
    pending_.emplace_back(type, std::move(o));
  }
}

void ObjectWatch::flush(const Resource& /*resource*/) {
  if (pending_.empty()) {
    return;
  }
  std::vector<ObjectWatchSink::Change> changes;
  changes.swap(pending_);
  sink_.objectsChanged(id_, std::move(changes));
}

bool ObjectWatch::notServed(const Resource& /*resource*/, const std::string& why) {
  sink_.kindNotServed(id_, why);
  return true;
}

}  // namespace sh::kube
