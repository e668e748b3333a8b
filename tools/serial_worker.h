// A thread that runs tasks one after another in the order given, with a bounded queue: the
// offline renderer reads the next snapshot and writes the last frame's rows on such threads
// while its own thread renders. A task's exception stops the worker; the first one is kept and
// rethrown by check() on the owner's thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace granray::tools {

class SerialWorker {
 public:
  explicit SerialWorker(std::size_t capacity) : capacity_(capacity), thread_([this] { run(); }) {}
  ~SerialWorker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  SerialWorker(const SerialWorker&) = delete;
  SerialWorker& operator=(const SerialWorker&) = delete;

  // Waits while `capacity` tasks are waiting; a task given after a failure is not run.
  void post(std::function<void()> task) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return queue_.size() < capacity_ || failure_; });
    if (failure_) return;
    queue_.push_back(std::move(task));
    changed_.notify_all();
  }

  // Waits until every task given so far has run, then rethrows the first failure, if any.
  void drain() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return (queue_.empty() && !busy_) || failure_; });
    if (failure_) std::rethrow_exception(failure_);
  }

  // Rethrows the first failure, if any, without waiting.
  void check() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return !queue_.empty() || stopping_; });
      if (queue_.empty()) return;
      std::function<void()> task = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      changed_.notify_all();
      lock.unlock();
      std::exception_ptr failed;
      try {
        task();
      } catch (...) {
        failed = std::current_exception();
      }
      lock.lock();
      busy_ = false;
      if (failed && !failure_) {
        failure_ = failed;
        queue_.clear();
      }
      changed_.notify_all();
    }
  }

  std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  std::exception_ptr failure_;
  std::thread thread_;
};

}  // namespace granray::tools
