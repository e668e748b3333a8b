// The benchmark's host arrays copied once into CUDA device memory (granray-bench --in-place): a
// frame then reads grains and pairs where an in-situ code keeps them, with no upload, as the
// adapters' device views do.
#pragma once

#include <cstddef>
#include <vector>

namespace granray::bench {

// True when this build can make device copies (a CUDA build).
bool can_copy_to_device();

// One device allocation holding a copy of a host array; freed with the object. Throws
// granray::DeviceError, naming what was copied, when the device cannot take it.
class DeviceCopy {
 public:
  DeviceCopy(const void* host, std::size_t bytes, const char* what);
  ~DeviceCopy();
  DeviceCopy(DeviceCopy&& other) noexcept : device_(other.device_) { other.device_ = nullptr; }
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
  DeviceCopy& operator=(DeviceCopy&&) = delete;

  template <class T>
  const T* as() const {
    return static_cast<const T*>(device_);
  }

 private:
  void* device_ = nullptr;
};

template <class T>
DeviceCopy copy_to_device(const std::vector<T>& host, const char* what) {
  return DeviceCopy(host.data(), host.size() * sizeof(T), what);
}

}  // namespace granray::bench
