// v1.Node JSON (model/node_parser.cc). An accepted node has no error, and its manifest parses
// again into the same node.
#include "host/model/node.h"
#include "tests/fuzz/fuzz_support.h"

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's name
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sh::fuzz::quietLogs();
  std::string error;
  std::shared_ptr<const sh::model::Node> node =
      sh::model::parseNodeJson(sh::fuzz::asText(data, size), error);
  if (node == nullptr) {
    sh::fuzz::check(!error.empty(), "a refused node has an error message");
    return 0;
  }
  std::string again;
  std::shared_ptr<const sh::model::Node> copy = sh::model::parseNodeJson(node->json(), again);
  sh::fuzz::check(copy != nullptr, "an accepted node's manifest parses again");
  sh::fuzz::check(copy->name() == node->name() && copy->uid() == node->uid() &&
                      copy->view().taint_count == node->view().taint_count &&
                      copy->view().label_count == node->view().label_count,
                  "a re-parsed node is the same node");
  return 0;
}
