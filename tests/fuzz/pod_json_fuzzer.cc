// v1.Pod JSON (model/pod_parser.cc), as files, stdin and the API server hand it to the host.
// An accepted pod has no error, and its manifest parses again into the same pod.
#include "host/model/pod.h"
#include "tests/fuzz/fuzz_support.h"

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's name
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sh::fuzz::quietLogs();
  std::string error;
  std::shared_ptr<const sh::model::Pod> pod =
      sh::model::parsePodJson(sh::fuzz::asText(data, size), error);
  if (pod == nullptr) {
    sh::fuzz::check(!error.empty(), "a refused pod has an error message");
    return 0;
  }
  std::string again;
  std::shared_ptr<const sh::model::Pod> copy = sh::model::parsePodJson(pod->json(), again);
  sh::fuzz::check(copy != nullptr, "an accepted pod's manifest parses again");
  sh::fuzz::check(copy->uid() == pod->uid() && copy->name() == pod->name() &&
                      copy->namespaceName() == pod->namespaceName() &&
                      copy->nodeName() == pod->nodeName() &&
                      copy->view().priority == pod->view().priority,
                  "a re-parsed pod is the same pod");
  return 0;
}
