// granray-render's one channel (tools/bounded_channel.h) and the writer thread built on it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bounded_channel.h"
#include "serial_worker.h"

namespace {

using granray::tools::BoundedChannel;
using granray::tools::SerialWorker;

TEST(BoundedChannel, DeliversEveryItemInOrderAndNeverHoldsMoreThanItsCapacity) {
  std::mt19937 rng(std::random_device{}());
  const std::size_t capacity = 1 + rng() % 4;
  const int count = 200 + static_cast<int>(rng() % 300);
  BoundedChannel<int> channel(capacity);
  std::atomic<int> pushed{0};
  std::thread producer([&] {
    for (int k = 0; k < count; ++k) {
      ASSERT_TRUE(channel.push(k));
      ++pushed;
    }
    channel.close();
  });
  std::vector<int> got;
  while (auto item = channel.pop()) {
    // Pushed so far: those taken, plus at most `capacity` waiting, plus one being pushed.
    EXPECT_LE(pushed.load(), static_cast<int>(got.size() + 1 + capacity + 1));
    got.push_back(*item);
    channel.done();
    if (rng() % 8 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  producer.join();
  ASSERT_EQ(got.size(), static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) EXPECT_EQ(got[k], k);
  EXPECT_NO_THROW(channel.rethrow_failure());
}

TEST(BoundedChannel, AFailureClosingTheChannelComesAfterTheItemsBeforeIt) {
  BoundedChannel<int> channel(4);
  ASSERT_TRUE(channel.push(1));
  ASSERT_TRUE(channel.push(2));
  channel.close(std::make_exception_ptr(std::runtime_error("bad snapshot")));
  EXPECT_FALSE(channel.push(3));  // closed: dropped
  EXPECT_EQ(channel.pop().value(), 1);
  EXPECT_EQ(channel.pop().value(), 2);
  EXPECT_FALSE(channel.pop().has_value());
  EXPECT_THROW(channel.rethrow_failure(), std::runtime_error);
}

TEST(BoundedChannel, AbandoningReleasesAProducerWaitingOnAFullChannel) {
  BoundedChannel<int> channel(1);
  ASSERT_TRUE(channel.push(0));
  std::atomic<int> result{-1};
  std::thread producer([&] { result = channel.push(1) ? 1 : 0; });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(result.load(), -1);  // still waiting for room
  channel.abandon();
  producer.join();
  EXPECT_EQ(result.load(), 0);
  EXPECT_FALSE(channel.pop().has_value());  // the waiting item was dropped
}

TEST(SerialWorker, RunsTasksInOrderAndDrainWaitsForTheLast) {
  std::vector<int> order;
  {
    SerialWorker worker(2);
    for (int k = 0; k < 50; ++k) {
      worker.post([&order, k] {
        if (k % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
        order.push_back(k);
      });
    }
    worker.drain();
    ASSERT_EQ(order.size(), 50u);
    for (int k = 0; k < 50; ++k) EXPECT_EQ(order[k], k);
  }
}

TEST(SerialWorker, AFailedTaskStopsTheTasksAfterItAndIsRethrown) {
  SerialWorker worker(8);
  std::atomic<int> ran{0};
  worker.post([&] { ++ran; });
  worker.post([] { throw std::runtime_error("disk full"); });
  worker.post([&] { ++ran; });
  EXPECT_THROW(worker.drain(), std::runtime_error);
  worker.post([&] { ++ran; });  // after a failure: not run
  EXPECT_THROW(worker.check(), std::runtime_error);
  EXPECT_EQ(ran.load(), 1);  // the task queued behind the failure was dropped
}

}  // namespace
