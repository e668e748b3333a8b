// Runs a check that third-party code might crash, hang or blow up on (HDF5 opening a damaged
// file) in a child process first, so that the simulation's process only does it once the child
// came through.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace granray::io {

struct ChildLimits {
  double seconds = 60.0;            // the child is killed after this long
  std::size_t resident_mib = 1024;  // or once its resident memory passes this
};

// Forks; the child runs `check` and exits. Returns nothing when `check` returned, the message of
// what it threw, or why the child did not finish ("killed by signal 11", "used more than 1024
// MiB of memory", "took more than 60 s"). The child must not touch MPI, CUDA or threads the
// parent has: it runs only `check`, then _exit.
std::optional<std::string> failure_in_child(const std::function<void()>& check,
                                            const ChildLimits& limits = {});

}  // namespace granray::io
