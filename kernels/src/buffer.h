// Owning, uninitialised, grow-only arrays for one backend's memory, charged to a budget so that
// a frame too large for the memory it may use fails with a clear error instead of a crash.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "granray/errors.h"

namespace granray::detail {

class MemoryAccount {
 public:
  explicit MemoryAccount(std::size_t limit_bytes) : limit_(limit_bytes) {}

  void set_limit(std::size_t limit_bytes) { limit_ = limit_bytes; }
  std::size_t limit() const { return limit_; }
  std::size_t in_use() const { return in_use_; }

  void charge(std::size_t bytes, const char* what) {
    if (bytes > limit_ || in_use_ > limit_ - bytes) {
      const std::size_t free = in_use_ < limit_ ? limit_ - in_use_ : 0;  // a lowered limit
      throw OutOfMemoryError("granray: out of memory: " + std::string(what) + " needs " +
                             size(bytes) + ", but only " + size(free) + " of the " + size(limit_) +
                             " rendering budget are free");
    }
    in_use_ += bytes;
  }
  void refund(std::size_t bytes) { in_use_ -= bytes; }

 private:
  static std::string size(std::size_t bytes) {
    if (bytes < (std::size_t{1} << 20)) return std::to_string((bytes + 1023) >> 10) + " KiB";
    if (bytes < (std::size_t{1} << 30)) return std::to_string(bytes >> 20) + " MiB";
    return std::to_string(bytes >> 30) + "." + std::to_string(((bytes >> 20) & 1023) * 10 / 1024) +
           " GiB";
  }
  std::size_t limit_;
  std::size_t in_use_ = 0;
};

// Memory provides static void* allocate(std::size_t) (throwing OutOfMemoryError) and
// static void release(void*).
template <class T, class Memory>
class Buffer {
 public:
  Buffer(MemoryAccount& account, const char* what) : account_(&account), what_(what) {}
  ~Buffer() { free(); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  // Contents are not kept: every caller overwrites what it asks for.
  void resize(std::size_t count) {
    if (count > capacity_) {
      // A buffer that has to grow gets an eighth more than asked: frame-to-frame changes (grid
      // references of a settling bed) then stop costing a cudaFree, which waits for the whole
      // device, and a cudaMalloc.
      const std::size_t grown = capacity_ == 0 ? count : count + count / 8;
      free();
      allocate(grown, count);
    }
    size_ = count;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }

  // Gives the memory back, to the budget too: for a buffer that serves rare frames (the path
  // still's lists), which a simulation's memory should not lose between them.
  void release() { free(); }

 private:
  // `wanted` elements, or `needed` when the memory (or its budget) has no room for the margin.
  void allocate(std::size_t wanted, std::size_t needed) {
    const std::size_t bytes = wanted * sizeof(T);
    try {
      account_->charge(bytes, what_);
      try {
        data_ = static_cast<T*>(Memory::allocate(bytes));
      } catch (...) {
        account_->refund(bytes);
        throw;
      }
    } catch (...) {
      if (wanted == needed) throw;
      allocate(needed, needed);
      return;
    }
    capacity_ = wanted;
  }

  void free() {
    if (data_ != nullptr) {
      Memory::release(data_);
      account_->refund(capacity_ * sizeof(T));
    }
    data_ = nullptr;
    size_ = capacity_ = 0;
  }

  MemoryAccount* account_;
  const char* what_;
  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace granray::detail
