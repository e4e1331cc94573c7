// ChangeQueue::coalesce: changes streaming in one by one are taken together; a change after a
// quiet spell is taken at once.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "host/connectors/change_queue.h"

namespace sh::connectors::change_queue_test {
namespace {

using namespace std::chrono_literals;

ClusterChange change(const std::string& source) {
  ClusterChange c;
  c.source = source;
  return c;
}

// A producer as a connector's: pushes under the owner's mutex and notifies only a queue that
// was empty.
struct Owner {
  std::mutex mu;
  ChangeQueue queue;
  bool stopped = false;

  void push(const std::string& source) {
    std::lock_guard<std::mutex> lock(mu);
    const bool wasEmpty = queue.empty();
    queue.push(change(source));
    if (wasEmpty) {
      queue.notify();
    }
  }
  std::vector<ClusterChange> take(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu);
    std::vector<ClusterChange> out;
    queue.takeAll(lock, timeout, stopped, out);
    return out;
  }
};

// The consumer waits on an empty queue; `first` arrives, then `second` 20 ms later.
std::vector<ClusterChange> takeWhileTwoArrive(Owner& owner) {
  std::thread producer([&] {
    std::this_thread::sleep_for(20ms);
    owner.push("first");
    std::this_thread::sleep_for(20ms);
    owner.push("second");
  });
  std::vector<ClusterChange> batch = owner.take(5000ms);
  producer.join();
  return batch;
}

TEST(ChangeQueueTest, WithoutCoalescingAWaitingConsumerTakesTheFirstChangeAlone) {
  Owner owner;
  ASSERT_EQ(owner.take(0ms).size(), 0u);
  const auto batch = takeWhileTwoArrive(owner);
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0].source, "first");
}

TEST(ChangeQueueTest, DuringAStreamTheChangesOfTheWindowAreTakenTogether) {
  Owner owner;
  owner.queue.coalesce(std::chrono::microseconds(200ms));
  owner.push("zero");
  ASSERT_EQ(owner.take(0ms).size(), 1u);  // a batch has just left: the stream is busy
  const auto batch = takeWhileTwoArrive(owner);
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0].source, "first");
  EXPECT_EQ(batch[1].source, "second");
}

TEST(ChangeQueueTest, AChangeAfterAQuietSpellIsTakenAtOnce) {
  Owner owner;
  owner.queue.coalesce(std::chrono::microseconds(10ms));
  owner.push("zero");
  ASSERT_EQ(owner.take(0ms).size(), 1u);
  std::this_thread::sleep_for(30ms);  // longer than the window
  const auto batch = takeWhileTwoArrive(owner);
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0].source, "first");
}

TEST(ChangeQueueTest, StoppingEndsTheWindow) {
  Owner owner;
  owner.queue.coalesce(std::chrono::microseconds(60s));
  owner.push("zero");
  ASSERT_EQ(owner.take(0ms).size(), 1u);
  std::thread producer([&] {
    std::this_thread::sleep_for(20ms);  // the consumer is waiting by then
    owner.push("first");
    std::this_thread::sleep_for(20ms);
    std::lock_guard<std::mutex> lock(owner.mu);
    owner.stopped = true;
    owner.queue.notify();
  });
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(owner.take(5000ms).size(), 0u);
  producer.join();
  // Woken by the stop, not at the end of the minute.
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);
}

}  // namespace
}  // namespace sh::connectors::change_queue_test
