// The HDF5 output tests' shared set-up: a fresh directory per test, and commands' output.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "test_support.h"

namespace granray::test {

inline std::string command_output(const std::string& command, int* status = nullptr) {
  const CommandResult r = granray::test::run_command(command);
  if (status) *status = r.status;
  return r.output;
}

class Hdf5OutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_path("h5-" + std::to_string(fresh_seed()));
    std::filesystem::create_directories(dir_);
  }
  std::string dir_;
};

}  // namespace granray::test
