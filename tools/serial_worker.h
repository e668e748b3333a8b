// A thread that runs tasks one after another in the order given, through a bounded channel: the
// offline renderer writes the last frame's rows on such a thread while its own thread renders.
// A task's exception stops the worker; the first one is kept and rethrown by check() on the
// owner's thread.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <thread>
#include <utility>

#include "bounded_channel.h"

namespace granray::tools {

class SerialWorker {
 public:
  explicit SerialWorker(std::size_t capacity) : tasks_(capacity), thread_([this] { run(); }) {}
  ~SerialWorker() {
    tasks_.close();
    thread_.join();
  }
  SerialWorker(const SerialWorker&) = delete;
  SerialWorker& operator=(const SerialWorker&) = delete;

  // Waits while `capacity` tasks are waiting; a task given after a failure is not run.
  void post(std::function<void()> task) { tasks_.push(std::move(task)); }

  // Waits until every task given so far has run, then rethrows the first failure, if any.
  void drain() { tasks_.wait_until_handled(); }

  // Rethrows the first failure, if any, without waiting.
  void check() { tasks_.rethrow_failure(); }

 private:
  void run() {
    while (std::optional<std::function<void()>> task = tasks_.pop()) {
      try {
        (*task)();
      } catch (...) {
        tasks_.abandon(std::current_exception());
      }
      tasks_.done();
    }
  }

  BoundedChannel<std::function<void()>> tasks_;
  std::thread thread_;
};

}  // namespace granray::tools
