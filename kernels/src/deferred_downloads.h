// Downloads of a frame's pixels that finish after render() returns (RenderOptions::defer_pixels).
// CUDA only: included by cuda_backend.cu.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "copy_threads.h"
#include "cuda_check.h"
#include "granray/image.h"

namespace granray::cuda_backend {

// Page-locked frame buffers, each lent to one image while the copy engine fills it on a stream
// of its own; the image's reader copies it out and gives it back. Shared with the pending images,
// so a buffer outlives the renderer until its image is settled or dropped.
class DeferredDownloads : public std::enable_shared_from_this<DeferredDownloads> {
 public:
  // The writer's images (its queue, 4 by default, and two spares), locked in the first deferred
  // frame; more are locked as a frame's further views (contract 2f) need them, up to 32 buffers or
  // 256 MiB, whichever is fewer (at least the first six). Past that a frame is copied at once.
  static constexpr int kReservedBuffers = 6;
  static constexpr int kMaxBuffers = 32;
  static constexpr std::size_t kMaxLockedBytes = std::size_t{256} << 20;
  static int most_buffers(std::size_t bytes) {
    const std::size_t fit = bytes == 0 ? kMaxBuffers : kMaxLockedBytes / bytes;
    return static_cast<int>(
        std::max<std::size_t>(kReservedBuffers, std::min<std::size_t>(fit, kMaxBuffers)));
  }

  DeferredDownloads() = default;
  DeferredDownloads(const DeferredDownloads&) = delete;
  DeferredDownloads& operator=(const DeferredDownloads&) = delete;
  // Runs where the last pending image lets go, which may be the writer's thread.
  ~DeferredDownloads() {
    if (stream_ != nullptr) cudaSetDevice(device_);
    if (stream_ != nullptr) cudaStreamSynchronize(stream_);
    for (Buffer& b : free_) release(b);
    if (pixels_cast_ != nullptr) cudaEventDestroy(pixels_cast_);
    for (SourceRead& r : reads_) cudaEventDestroy(r.done);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  // Starts copying `bytes` from `src` once `stream` has reached this point (the pixels are cast)
  // and returns what completes the copy into an image; null when every buffer is lent out or no
  // page-locked memory can be had, and the caller should copy at once.
  std::shared_ptr<PendingPixels> start(const void* src, std::size_t bytes, cudaStream_t stream);

  // Makes `stream` wait until the last copy started from `src` has read it, so that the next
  // frame may overwrite it; the host does not wait, nor does a frame cast into another buffer.
  void fence(cudaStream_t stream, const void* src) {
    for (const SourceRead& r : reads_) {
      if (r.src == src) GRANRAY_CUDA_CHECK(cudaStreamWaitEvent(stream, r.done, 0));
    }
  }

 private:
  struct SourceRead {
    const void* src;
    cudaEvent_t done;  // on stream_, after the last copy from src
  };
  struct Buffer {
    char* host = nullptr;
    std::size_t bytes = 0;
    cudaEvent_t copied = nullptr;
  };
  class Pending;
  cudaEvent_t read_event(const void* src);

  static void release(Buffer& b) {
    if (b.host != nullptr) cudaFreeHost(b.host);
    if (b.copied != nullptr) cudaEventDestroy(b.copied);
    b = Buffer{};
  }

  // A page-locked buffer of `bytes` and its event; false when none can be had (a limit on
  // locked memory is not an error of the frame).
  static bool make(std::size_t bytes, Buffer& out) {
    Buffer b;
    b.bytes = bytes;
    if (cudaMallocHost(&b.host, bytes) != cudaSuccess ||
        cudaEventCreateWithFlags(&b.copied, cudaEventDisableTiming) != cudaSuccess) {
      cudaGetLastError();
      release(b);
      return false;
    }
    out = b;
    return true;
  }

  // Every buffer at once, in the first deferred frame: locking 6 MB took 3-4 ms, which later
  // frames would otherwise pay in the time loop whenever the writer fell behind.
  void reserve(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    while (lent_ + static_cast<int>(free_.size()) < kReservedBuffers) {
      Buffer b;
      if (!make(bytes, b)) return;
      free_.push_back(b);
    }
  }

  // A free buffer of at least `bytes`, or one made in place of a smaller one (the frame size
  // grew); false when every buffer is lent out or none can be had.
  bool borrow(std::size_t bytes, Buffer& out) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t i = 0; i < free_.size(); ++i) {
      if (free_[i].bytes >= bytes) {
        out = free_[i];
        free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
        ++lent_;
        return true;
      }
    }
    if (lent_ + static_cast<int>(free_.size()) >= most_buffers(bytes)) {
      if (free_.empty()) return false;
      release(free_.back());
      free_.pop_back();
    }
    if (!make(bytes, out)) return false;
    ++lent_;
    return true;
  }

  void give_back(Buffer b) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(b);
    --lent_;
  }

  std::mutex mutex_;
  std::vector<Buffer> free_;
  int lent_ = 0;
  int device_ = 0;
  cudaStream_t stream_ = nullptr;      // non-blocking: it does not wait for the legacy stream
  cudaEvent_t pixels_cast_ = nullptr;  // on the frame's stream
  std::vector<SourceRead> reads_;      // one per source buffer the frames cast into
};

// One image's share: its buffer, given back when the image is settled or dropped. Completing
// waits for the copy only; a buffer given back unsettled may still be filling, which is fine,
// because the next copy into it is queued behind that one on the same stream.
class DeferredDownloads::Pending final : public PendingPixels {
 public:
  Pending(std::shared_ptr<DeferredDownloads> owner, Buffer buffer, std::size_t bytes)
      : owner_(std::move(owner)), buffer_(buffer), bytes_(bytes) {}
  Pending(const Pending&) = delete;
  Pending& operator=(const Pending&) = delete;
  ~Pending() override { owner_->give_back(buffer_); }

  void complete(Image& image) override {
    // The reader's thread may have another device current (or none made current yet).
    GRANRAY_CUDA_CHECK(cudaSetDevice(owner_->device_));
    GRANRAY_CUDA_CHECK(cudaEventSynchronize(buffer_.copied));
    if (image.rgb.size() < bytes_) {
      throw DeviceError("granray: a deferred frame of " + std::to_string(bytes_) +
                        " bytes was settled into an image of " + std::to_string(image.rgb.size()));
    }
    detail::copy_in_threads(buffer_.host, reinterpret_cast<char*>(image.rgb.data()), bytes_);
  }

 private:
  std::shared_ptr<DeferredDownloads> owner_;
  Buffer buffer_;
  std::size_t bytes_;
};

inline std::shared_ptr<PendingPixels> DeferredDownloads::start(const void* src, std::size_t bytes,
                                                               cudaStream_t stream) {
  if (stream_ == nullptr) {
    GRANRAY_CUDA_CHECK(cudaGetDevice(&device_));
    GRANRAY_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    GRANRAY_CUDA_CHECK(cudaEventCreateWithFlags(&pixels_cast_, cudaEventDisableTiming));
    reserve(bytes);
  }
  const cudaEvent_t source_read = read_event(src);
  Buffer buffer;
  if (!borrow(bytes, buffer)) return nullptr;
  // Owned from here on, so that a failing call below gives the buffer back.
  auto pending = std::make_shared<Pending>(shared_from_this(), buffer, bytes);
  GRANRAY_CUDA_CHECK(cudaEventRecord(pixels_cast_, stream));
  GRANRAY_CUDA_CHECK(cudaStreamWaitEvent(stream_, pixels_cast_, 0));
  GRANRAY_CUDA_CHECK(cudaMemcpyAsync(buffer.host, src, bytes, cudaMemcpyDeviceToHost, stream_));
  GRANRAY_CUDA_CHECK(cudaEventRecord(buffer.copied, stream_));
  GRANRAY_CUDA_CHECK(cudaEventRecord(source_read, stream_));
  return pending;
}

// The event that marks the last copy from `src`, made for the first copy from it. Sources are
// few (the backend's ring of pixel buffers), but a freed and reallocated buffer may come back at
// a new address: the list keeps the newest few.
inline cudaEvent_t DeferredDownloads::read_event(const void* src) {
  for (const SourceRead& r : reads_) {
    if (r.src == src) return r.done;
  }
  constexpr std::size_t kMostSources = 16;
  if (reads_.size() == kMostSources) {
    // The oldest source's last copy was queued before any copy still to come on stream_.
    GRANRAY_CUDA_CHECK(cudaEventSynchronize(reads_.front().done));
    GRANRAY_CUDA_CHECK(cudaEventDestroy(reads_.front().done));
    reads_.erase(reads_.begin());
  }
  SourceRead read{src, nullptr};
  GRANRAY_CUDA_CHECK(cudaEventCreateWithFlags(&read.done, cudaEventDisableTiming));
  reads_.push_back(read);
  return read.done;
}

}  // namespace granray::cuda_backend
