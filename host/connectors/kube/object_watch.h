// ObjectWatch: the list+watch of one kind plugins declared (connectors::ObjectKind, custom
// resources included), on the Reflector the connector uses for its own kinds: relist on 410,
// bookmarks, backoff, the transport's rate limiter.
//
//   reflector ──items / events──> parse (StoredObject::parse, outside any lock)
//                                   ├─ a list:            sink.objectsListed(every object)
//                                   ├─ a read of events:  sink.objectsChanged(their changes)
//                                   ├─ an object that does not parse: sink.objectRejected
//                                   └─ a list answered 404: sink.kindNotServed, then the
//                                      reflector lists again every notServedRetry
//
// The collection is the kind's cluster-wide path (/apis/<group>/<version>/<resource>), with
// the kind's labelSelector and fieldSelector as the query's. A list item carries no kind of
// its own and gets the declared one; a watch event's object that lacks one gets it too.
//
// The sink is called on the watch's own thread, in the order the server sent things.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "host/connectors/kube/reflector.h"
#include "host/connectors/object_store.h"

namespace sh::kube {

class ObjectWatchSink {
 public:
  virtual ~ObjectWatchSink() = default;
  // Every object of kind `kind` there is now; whatever was known before and is not among them
  // is gone.
  virtual void objectsListed(std::size_t kind, std::vector<connectors::ObjectPtr>&& objects) = 0;
  // The changes of one read from the watch, in order (for kDeleted, the object's last state).
  using Change = std::pair<WatchEventType, connectors::ObjectPtr>;
  virtual void objectsChanged(std::size_t kind, std::vector<Change>&& changes) = 0;
  // An object of the kind that does not parse; `message` names the kind, the object and why.
  virtual void objectRejected(std::size_t kind, const std::string& message) = 0;
  // The API server does not serve the kind (`why`: the failed list). Called on every retry
  // while that lasts.
  virtual void kindNotServed(std::size_t kind, const std::string& why) = 0;
};

class ObjectWatch final : private ReflectorSink {
 public:
  ObjectWatch(Transport& transport, std::size_t id, connectors::ObjectKind kind,
              ObjectWatchSink& sink, const Reflector::Options& options);
  ~ObjectWatch() override;
  ObjectWatch(const ObjectWatch&) = delete;
  ObjectWatch& operator=(const ObjectWatch&) = delete;

  void start() { reflector_->start(); }
  void requestStop() { reflector_->requestStop(); }
  void stop() { reflector_->stop(); }

  std::size_t id() const { return id_; }
  const connectors::ObjectKind& kind() const { return kind_; }
  // True once listed, or found not served.
  bool synced() const { return reflector_->synced(); }
  std::string lastError() const { return reflector_->lastError(); }
  Reflector::Stats stats() const { return reflector_->stats(); }

 private:
  // ReflectorSink, on the reflector's thread.
  void replace(const Resource& resource, std::vector<boost::json::value>&& items) override;
  void apply(const Resource& resource, WatchEventType type, boost::json::value&& object,
             std::string_view text) override;
  void flush(const Resource& resource) override;
  bool notServed(const Resource& resource, const std::string& why) override;

  // Parses one object; nullptr (reported to the sink) when it does not parse.
  connectors::ObjectPtr parse(boost::json::value&& object, std::size_t bytes);

  const std::size_t id_;
  const connectors::ObjectKind kind_;
  ObjectWatchSink& sink_;
  // What resource_ views.
  const std::string kindName_, apiVersion_, path_;
  Resource resource_;
  std::vector<ObjectWatchSink::Change> pending_;  // parsed since the last flush()
  std::unique_ptr<Reflector> reflector_;
};

}  // namespace sh::kube
