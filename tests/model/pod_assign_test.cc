// bindToNode: the bound copy's view must be what parsing the bound manifest gives, its
// manifest the base's with the edit made once, on first use; copies of it stay valid.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "host/model/pod.h"
#include "host/model/pod_assign.h"
#include "host/model/testing/wrappers.h"
#include "tests/model/pod_view_text.h"
#include "tests/model/sv.h"

namespace sh::model::pod_assign_test {
namespace {

using testing::makePod;
using testing::podViewText;
using testing::sv;

// A stand-in for the connector's binding patch (pod_patch.h applyBinding): spec.nodeName,
// then PodScheduled=True with reason and message removed on the first PodScheduled condition,
// or a new one appended.
ManifestEdit podScheduledEdit(std::string node, std::atomic<int>* calls = nullptr) {
  return [node = std::move(node), calls](boost::json::object& m) {
    if (calls != nullptr) {
      ++*calls;
    }
    if (!m.contains("spec")) {
      m["spec"] = boost::json::object();
    }
    m["spec"].as_object()["nodeName"] = node;
    if (!m.contains("status") || !m["status"].is_object()) {
      m["status"] = boost::json::object();
    }
    boost::json::object& status = m["status"].as_object();
    if (!status.contains("conditions")) {
      status["conditions"] = boost::json::array();
    }
    boost::json::array& conditions = status["conditions"].as_array();
    for (boost::json::value& c : conditions) {
      if (c.as_object().at("type") == "PodScheduled") {
        c.as_object()["status"] = "True";
        c.as_object().erase("reason");
        c.as_object().erase("message");
        return;
      }
    }
    conditions.push_back(boost::json::object{{"type", "PodScheduled"}, {"status", "True"}});
  };
}

// The bound copy against a parse of its own manifest, and that manifest against the base
// manifest with the edit made directly.
void expectSameAsParse(const std::shared_ptr<const Pod>& pod, const std::string& node) {
  auto bound = bindToNode(*pod, node, podScheduledEdit(node));
  ASSERT_NE(bound, nullptr);
  boost::json::value expected = boost::json::parse(pod->json());
  podScheduledEdit(node)(expected.as_object());
  EXPECT_EQ(bound->json(), boost::json::serialize(expected));
  std::string error;
  auto parsed = parsePodJson(bound->json(), error);
  ASSERT_NE(parsed, nullptr) << error;
  EXPECT_EQ(podViewText(bound->view()), podViewText(parsed->view()));
  EXPECT_EQ(bound->nodeName(), node);
  EXPECT_EQ(bound->hasPriority(), parsed->hasPriority());
  EXPECT_EQ(bound->priorityClassName(), parsed->priorityClassName());
  EXPECT_EQ(bound->hasAffinity(), parsed->hasAffinity());
  EXPECT_EQ(Pod::fromView(&bound->view()), bound.get());
}

TEST(PodAssignTest, BindToNodeAppendsPodScheduled) {
  auto pod =
      makePod()
          .name("p")
          .inNamespace("ns")
          .uid("u1")
          .label("app", "web")
          .priority(7)
          .req({{"cpu", "500m"}, {"memory", "1Gi"}})
          .toleration("k", "Equal", "v", "NoSchedule")
          .nodeAffinityIn("zone", {"a", "b"})
          .podAntiAffinityExists("app", "kubernetes.io/hostname", testing::AffinityKind::kRequired)
          .spreadConstraint(1, "zone", "DoNotSchedule", {{"app", "web"}})
          .hostPort(8080)
          .ownerReference("rs", "ReplicaSet")
          .obj();
  expectSameAsParse(pod, "n1");
  auto bound = bindToNode(*pod, "n1", podScheduledEdit("n1"));
  ASSERT_EQ(bound->view().condition_count, 1u);
  EXPECT_EQ(sv(bound->view().conditions[0].type), "PodScheduled");
  EXPECT_EQ(sv(bound->view().conditions[0].status), "True");
  EXPECT_EQ(sv(bound->view().conditions[0].reason), "");
  EXPECT_EQ(bound->view().labels, pod->view().labels);  // shares the base's arena
  EXPECT_EQ(pod->view().condition_count, 0u);           // the base is untouched
  EXPECT_EQ(pod->nodeName(), "");
}

TEST(PodAssignTest, BindToNodeChangesTheFirstPodScheduledInPlace) {
  auto pod = makePod()
                 .name("p")
                 .set({"status", "conditions"}, boost::json::parse(R"([
                   {"type": "DisruptionTarget", "status": "False", "reason": "Other"},
                   {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                    "message": "0/3 nodes are available"},
                   {"type": "PodScheduled", "status": "False", "reason": "Second"}])"))
                 .obj();
  expectSameAsParse(pod, "n2");
  auto bound = bindToNode(*pod, "n2", podScheduledEdit("n2"));
  ASSERT_EQ(bound->view().condition_count, 3u);
  EXPECT_EQ(sv(bound->view().conditions[0].reason), "Other");
  EXPECT_EQ(sv(bound->view().conditions[1].status), "True");
  EXPECT_EQ(sv(bound->view().conditions[1].reason), "");
  EXPECT_EQ(sv(bound->view().conditions[2].reason), "Second");
  EXPECT_EQ(sv(pod->view().conditions[1].reason), "Unschedulable");  // the base is untouched
}

TEST(PodAssignTest, BindToNodeKeepsANomination) {
  auto base = makePod().name("p").nominatedNodeName("old").obj();
  auto nominated = withNominatedNode(*base, "n3");
  ASSERT_NE(nominated, nullptr);
  expectSameAsParse(nominated, "n3");
  auto bound = bindToNode(*nominated, "n3", podScheduledEdit("n3"));
  nominated.reset();  // the bound copy owns what it points at
  EXPECT_EQ(sv(bound->view().nominated_node_name), "n3");
  auto manifest = boost::json::parse(bound->json());
  EXPECT_EQ(manifest.at("status").at("nominatedNodeName"), "n3");
  EXPECT_EQ(manifest.at("spec").at("nodeName"), "n3");
}

TEST(PodAssignTest, CopiesOfABoundPodKeepItsEdit) {
  auto pod = makePod().name("p").obj();
  auto bound = bindToNode(*pod, "n1", podScheduledEdit("n1"));
  auto nominated = withNominatedNode(*bound, "n9");
  bound.reset();  // the copy keeps the bound pod (its conditions, its edit) alive
  ASSERT_NE(nominated, nullptr);
  EXPECT_EQ(sv(nominated->view().node_name), "n1");
  ASSERT_EQ(nominated->view().condition_count, 1u);
  EXPECT_EQ(sv(nominated->view().conditions[0].status), "True");
  std::string error;
  auto parsed = parsePodJson(nominated->json(), error);
  ASSERT_NE(parsed, nullptr) << error;
  EXPECT_EQ(podViewText(nominated->view()), podViewText(parsed->view()));
  auto manifest = boost::json::parse(nominated->json());
  EXPECT_EQ(manifest.at("status").at("conditions").at(0).at("type"), "PodScheduled");
  EXPECT_EQ(manifest.at("status").at("nominatedNodeName"), "n9");
}

TEST(PodAssignTest, EditRunsOnceOnFirstJsonFromAnyThread) {
  auto pod = makePod().name("p").label("a", "b").obj();
  std::atomic<int> calls{0};
  auto bound = bindToNode(*pod, "n1", podScheduledEdit("n1", &calls));
  EXPECT_EQ(calls.load(), 0) << "binding builds no manifest";
  std::vector<std::thread> readers;
  std::vector<std::string> seen(4);
  for (std::size_t i = 0; i < seen.size(); ++i) {
    readers.emplace_back([&, i] { seen[i] = bound->json(); });
  }
  for (std::thread& t : readers) {
    t.join();
  }
  EXPECT_EQ(calls.load(), 1);
  for (const std::string& s : seen) {
    EXPECT_EQ(s, seen[0]);
  }
  EXPECT_EQ(boost::json::parse(seen[0]).at("spec").at("nodeName"), "n1");
}

TEST(PodAssignTest, BoundCopyKeepsItsBaseAlive) {
  auto pod = makePod().name("p").obj();
  std::weak_ptr<const Pod> weak = pod;
  auto bound = bindToNode(*pod, "n1", nullptr);
  pod.reset();
  EXPECT_FALSE(weak.expired()) << "the bound copy keeps its base alive";
  ASSERT_NE(bound, nullptr);
  // Without an edit the manifest is the base's with spec.nodeName set.
  EXPECT_EQ(boost::json::parse(bound->json()).at("spec").at("nodeName"), "n1");
}

// A watch event's object arrives as text: that text is the manifest, and a bound copy edits it
// as it edits a serialised one.
TEST(PodAssignTest, APodParsedWithItsTextKeepsThatTextAsItsManifest) {
  const std::string text = R"({"metadata": {"name": "p", "namespace": "ns", "uid": "u1"},)"
                           R"( "spec": {"containers": [{"name": "c"}], "priority": 0}})";
  std::string error;
  auto pod = parsePod(boost::json::parse(text), error, text);
  ASSERT_NE(pod, nullptr) << error;
  EXPECT_EQ(pod->json(), text);  // spaces and all: not serialised again
  auto fromValue = parsePod(boost::json::parse(text), error);
  ASSERT_NE(fromValue, nullptr) << error;
  EXPECT_EQ(fromValue->json(), boost::json::serialize(boost::json::parse(text)));
  EXPECT_EQ(podViewText(pod->view()), podViewText(fromValue->view()));
  expectSameAsParse(pod, "n1");
}

}  // namespace
}  // namespace sh::model::pod_assign_test
