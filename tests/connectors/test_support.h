// Helpers for the connector tests: a temporary directory, a warning collector, and manifests
// with their kind set (the model's fixtures leave kind out).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "host/connectors/embedded/embedded_cluster.h"
#include "host/model/testing/wrappers.h"

namespace sh::connectors::testing {

// A directory removed with everything in it when the test ends.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::path(::testing::TempDir()) /
            ("schedhost-connectors-" + std::to_string(::getpid()) + "-" +
             std::string(info != nullptr ? info->name() : "x") + "-" + std::to_string(++counter));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `content` to `name` in the directory and returns its path.
  std::string write(const std::string& name, std::string_view content) const {
    std::string p = (path_ / name).string();
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << content;
    return p;
  }
  void append(const std::string& name, std::string_view content) const {
    std::ofstream out((path_ / name).string(), std::ios::binary | std::ios::app);
    out << content;
    out.flush();
  }

 private:
  std::filesystem::path path_;
};

// Collects warnings; sink() goes into EmbeddedCluster::Options::warn.
class Warnings {
 public:
  std::function<void(std::string)> sink() {
    return [state = state_](std::string w) {
      std::lock_guard<std::mutex> lock(state->mu);
      state->all.push_back(std::move(w));
    };
  }
  std::vector<std::string> all() const {
    std::lock_guard<std::mutex> lock(state_->mu);
    return state_->all;
  }

 private:
  struct State {
    std::mutex mu;
    std::vector<std::string> all;
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

// EmbeddedCluster's options with its warnings going to `w`, the rest defaulted.
inline EmbeddedCluster::Options options(Warnings& w) {
  EmbeddedCluster::Options o;
  o.warn = w.sink();
  return o;
}

inline boost::json::value withKind(boost::json::value v, std::string_view kind) {
  v.as_object()["apiVersion"] = "v1";
  v.as_object()["kind"] = kind;
  return v;
}

inline boost::json::value podJson(std::string_view ns, std::string_view name,
                                  std::string_view node = "") {
  auto w = model::testing::makePod().name(name).inNamespace(ns).uid(std::string(name) + "-uid");
  w.req({{"cpu", "100m"}});
  if (!node.empty()) {
    w.node(node);
  }
  return withKind(w.parseJson(), "Pod");
}

inline boost::json::value nodeJson(std::string_view name) {
  return withKind(
      model::testing::makeNode().name(name).capacity({{"cpu", "4"}, {"memory", "8Gi"}}).parseJson(),
      "Node");
}

inline std::string text(const boost::json::value& v) { return boost::json::serialize(v); }

// One line of the change stream.
inline std::string event(std::string_view type, const boost::json::value& object) {
  return R"({"type":")" + std::string(type) + R"(","object":)" + text(object) + "}\n";
}

// Drains every change until the cluster is exhausted (bounded: gives up after `limit`).
inline std::vector<ClusterChange> drain(
    EmbeddedCluster& cluster, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  std::vector<ClusterChange> out;
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!cluster.exhausted() && std::chrono::steady_clock::now() < deadline) {
    if (auto c = cluster.next(std::chrono::milliseconds(20))) {
      out.push_back(std::move(*c));
    }
  }
  return out;
}

// "ADDED Pod ns/p" and the like, for comparing sequences of changes.
inline std::string describe(const ClusterChange& c) {
  std::string type = c.type == ClusterChange::Type::kAdded      ? "ADDED"
                     : c.type == ClusterChange::Type::kModified ? "MODIFIED"
                                                                : "DELETED";
  if (c.kind == ClusterChange::Kind::kNode) {
    const auto& n = c.curNode != nullptr ? c.curNode : c.oldNode;
    return type + " Node " + std::string(n->name());
  }
  const auto& p = c.curPod != nullptr ? c.curPod : c.oldPod;
  return type + " Pod " + std::string(p->namespaceName()) + "/" + std::string(p->name());
}

}  // namespace sh::connectors::testing
