// RAII for HDF5 identifiers, and HDF5's errors as our own messages.
#pragma once

#include <hdf5.h>

#include <string>

namespace granray::io {

// Owns one HDF5 identifier and closes it with the matching H5?close.
class Handle {
 public:
  Handle() = default;
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      close_ = o.close_;
      o.id_ = H5I_INVALID_HID;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  void reset() {
    if (id_ >= 0 && close_ != nullptr) close_(id_);
    id_ = H5I_INVALID_HID;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

// The innermost message of HDF5's error stack, for our own messages (HDF5's printing is off).
std::string hdf5_reason();

// HDF5 prints its error stack by default, per thread in thread-safe builds: turn that off on
// every thread that calls it, and report errors ourselves. The library's own clean-up at exit
// would close a file whose flush failed (disk full) a second time and crash, so it is left to
// the operating system.
void silence_hdf5();

}  // namespace granray::io
