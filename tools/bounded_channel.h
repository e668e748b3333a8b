// A bounded queue between threads, the one channel of granray-render: the reader thread hands
// snapshots to the renderer through one (FrameSource), the renderer hands writing tasks to the
// writer thread through another (SerialWorker). Closing keeps the items that wait, and may carry
// the failure that ended the producer; abandoning drops them, for a consumer that failed or left.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <utility>

namespace granray::tools {

template <class T>
class BoundedChannel {
 public:
  explicit BoundedChannel(std::size_t capacity) : capacity_(capacity) {}
  BoundedChannel(const BoundedChannel&) = delete;
  BoundedChannel& operator=(const BoundedChannel&) = delete;

  // Waits while `capacity` items wait; false, and the item dropped, once the channel is closed.
  bool push(T item) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return items_.size() < capacity_ || closed_; });
    if (closed_) return false;
    items_.push_back(std::move(item));
    changed_.notify_all();
    return true;
  }

  // The next item, waiting while none waits and the channel is open; nothing once it is closed
  // and empty. The consumer calls done() when it has handled an item (wait_until_handled).
  std::optional<T> pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !items_.empty() || closed_; });
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    ++in_hand_;
    changed_.notify_all();
    return item;
  }

  void done() {
    std::lock_guard<std::mutex> lock(mutex_);
    --in_hand_;
    changed_.notify_all();
  }

  // No more items; the waiting ones are still popped. `failure`, the first given, is what
  // rethrow_failure() throws.
  void close(std::exception_ptr failure = nullptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    end(std::move(failure));
  }

  // As close, dropping the items that wait.
  void abandon(std::exception_ptr failure = nullptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    items_.clear();
    end(std::move(failure));
  }

  // Waits until every item pushed so far has been popped and handled, or a failure ended the
  // channel; then rethrows that failure, if any.
  void wait_until_handled() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return (items_.empty() && in_hand_ == 0) || failure_; });
    if (failure_) std::rethrow_exception(failure_);
  }

  void rethrow_failure() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  void end(std::exception_ptr failure) {
    if (failure && !failure_) failure_ = std::move(failure);
    closed_ = true;
    changed_.notify_all();
  }

  std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<T> items_;
  std::size_t in_hand_ = 0;  // popped, not yet done
  bool closed_ = false;
  std::exception_ptr failure_;
};

}  // namespace granray::tools
