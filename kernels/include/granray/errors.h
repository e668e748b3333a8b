// Typed errors thrown on the host. A simulation that embeds granray catches granray::Error
// around a frame; the offline renderer prints what() and exits non-zero.
#pragma once

#include <stdexcept>
#include <string>

namespace granray {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad configuration: the message names the key, the file and the line.
class ConfigError : public Error {
 public:
  using Error::Error;
};

// Bad particle input: the message names the file and the line or byte offset.
class InputError : public Error {
 public:
  using Error::Error;
};

// A request larger than the memory that can be had (host or device).
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

// A CUDA call failed, or the CUDA backend was asked for where it cannot run.
class DeviceError : public Error {
 public:
  using Error::Error;
};

// Writing an image or a file failed.
class OutputError : public Error {
 public:
  using Error::Error;
};

}  // namespace granray
