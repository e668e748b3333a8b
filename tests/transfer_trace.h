// Every memcpy the CUDA runtime and Thrust issue between start and stop, recorded with CUPTI's
// activity API: how the zero-copy tests (C++ and Python) show that particles are not copied.
// Built as a shared library (GPU builds with CUPTI only); Python loads its C entry points with
// ctypes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace granray::test {

enum class CopyKind { to_device, to_host, other };

struct Copy {
  CopyKind kind;
  std::uint64_t bytes;
};

void start_recording_copies();
std::vector<Copy> stop_recording_copies();  // waits for the device first

}  // namespace granray::test

extern "C" {
// Python's side (ctypes): 0 on success.
int granray_trace_start();
// The number of copies, and their bytes by direction, since granray_trace_start; the sizes of
// the largest copy to the host and to the device.
int granray_trace_stop(std::uint64_t* copies, std::uint64_t* to_host_bytes,
                       std::uint64_t* to_device_bytes, std::uint64_t* largest_to_host,
                       std::uint64_t* largest_to_device);
// Device memory for a test's arrays: a copy of `bytes` bytes of `host` (null on failure).
void* granray_test_device_copy(const void* host, std::size_t bytes);
int granray_test_device_free(void* device);
// Copies `bytes` bytes from the device to `host`: the control copy the recorder must see.
int granray_test_device_read(void* host, const void* device, std::size_t bytes);
}
