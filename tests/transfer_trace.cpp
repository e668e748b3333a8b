#include "transfer_trace.h"

#include <cuda_runtime.h>
#include <cupti.h>

#include <cstdlib>
#include <mutex>

namespace granray::test {
namespace {

std::mutex copies_mutex;
std::vector<Copy> copies;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max) {
  *size = std::size_t{1} << 20;
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, *size));
  *max = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                               std::size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      const CopyKind kind = m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH   ? CopyKind::to_host
                            : m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD ? CopyKind::to_device
                                                                             : CopyKind::other;
      std::lock_guard<std::mutex> lock(copies_mutex);
      copies.push_back({kind, m->bytes});
    }
  }
  std::free(buffer);
}

bool ok(CUptiResult r) { return r == CUPTI_SUCCESS; }

}  // namespace

void start_recording_copies() {
  {
    std::lock_guard<std::mutex> lock(copies_mutex);
    copies.clear();
  }
  if (!ok(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)) ||
      !ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY))) {
    std::abort();  // a test that cannot see copies must not pass
  }
}

std::vector<Copy> stop_recording_copies() {
  cudaDeviceSynchronize();
  if (!ok(cuptiActivityFlushAll(1)) || !ok(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY))) {
    std::abort();
  }
  std::lock_guard<std::mutex> lock(copies_mutex);
  return copies;
}

}  // namespace granray::test

extern "C" {

int granray_trace_start() {
  granray::test::start_recording_copies();
  return 0;
}

int granray_trace_stop(std::uint64_t* count, std::uint64_t* to_host_bytes,
                       std::uint64_t* to_device_bytes, std::uint64_t* largest_to_host,
                       std::uint64_t* largest_to_device) {
  using granray::test::CopyKind;
  const auto seen = granray::test::stop_recording_copies();
  *count = seen.size();
  *to_host_bytes = *to_device_bytes = *largest_to_host = *largest_to_device = 0;
  for (const auto& c : seen) {
    if (c.kind == CopyKind::to_host) {
      *to_host_bytes += c.bytes;
      if (c.bytes > *largest_to_host) *largest_to_host = c.bytes;
    } else if (c.kind == CopyKind::to_device) {
      *to_device_bytes += c.bytes;
      if (c.bytes > *largest_to_device) *largest_to_device = c.bytes;
    }
  }
  return 0;
}

void* granray_test_device_copy(const void* host, std::size_t bytes) {
  void* device = nullptr;
  if (cudaMalloc(&device, bytes) != cudaSuccess) return nullptr;
  if (cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    cudaFree(device);
    return nullptr;
  }
  return device;
}

int granray_test_device_free(void* device) { return cudaFree(device) == cudaSuccess ? 0 : 1; }

int granray_test_device_read(void* host, const void* device, std::size_t bytes) {
  return cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost) == cudaSuccess ? 0 : 1;
}
}
