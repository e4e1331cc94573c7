// The pod, the nodes and the JSON check both extender test files use.
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "host/model/node.h"
#include "host/model/pod.h"

namespace sh::extender::testing {

// A pod of namespace "team" with one container requesting 250m cpu.
inline std::shared_ptr<const model::Pod> makePod(const std::string& name, const std::string& uid) {
  std::string error;
  auto pod = model::parsePodJson(R"({"metadata":{"name":")" + name +
                                     R"(","namespace":"team","uid":")" + uid +
                                     R"("},"spec":{"containers":[{"name":"c","image":"busybox",)"
                                     R"("resources":{"requests":{"cpu":"250m"}}}]}})",
                                 error);
  EXPECT_NE(pod, nullptr) << error;
  return pod;
}

// A node with 4 cpu and 110 pods allocatable, in zone z1.
inline std::shared_ptr<const model::Node> makeNode(const std::string& name) {
  std::string error;
  auto node = model::parseNodeJson(R"({"metadata":{"name":")" + name +
                                       R"(","labels":{"zone":"z1"}},)"
                                       R"("status":{"allocatable":{"cpu":"4","pods":"110"}}})",
                                   error);
  EXPECT_NE(node, nullptr) << error;
  return node;
}

// `text` as JSON; a failure when it is not.
inline boost::json::value parse(const std::string& text) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  EXPECT_FALSE(ec) << ec.message() << ": " << text;
  return v;
}

// Pod "web" (uid "uid-web") and nodes "a" and "b".
class ExtenderObjectsTest : public ::testing::Test {
 protected:
  std::shared_ptr<const model::Pod> pod_ = makePod("web", "uid-web");
  std::shared_ptr<const model::Node> a_ = makeNode("a");
  std::shared_ptr<const model::Node> b_ = makeNode("b");
  std::vector<const model::Node*> nodes_{a_.get(), b_.get()};
};

}  // namespace sh::extender::testing
