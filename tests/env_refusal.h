// A switch in the environment (docs/configuration.md, "Environment") refuses a bad value by name.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <initializer_list>
#include <string>

#include "granray/errors.h"

namespace granray::test {

// With environment variable `name` set to each of `values` in turn, render() must throw a
// ConfigError that names it; the variable is unset afterwards.
template <class F>
void expect_env_values_refused(const char* name, std::initializer_list<const char*> values,
                               F&& render) {
  for (const char* value : values) {
    ASSERT_EQ(setenv(name, value, 1), 0);
    try {
      render();
      ADD_FAILURE() << name << "=\"" << value << "\" was taken";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  ASSERT_EQ(unsetenv(name), 0);
}

}  // namespace granray::test
