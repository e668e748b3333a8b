// The shared-memory segments compositing maps: a segment that cannot get its memory is an error
// that names it, not a SIGBUS on first touch, and leaves no name behind in /dev/shm.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "granray/errors.h"
#include "shared_memory_compositor.h"
#include "test_support.h"

namespace granray::test {
namespace {

using granray::mpi::detail::MappedSegment;

std::string fresh_name(Rng& rng) {
  return "/granray-test-" + std::to_string(getpid()) + "-" + std::to_string(rng() % 1000000);
}

bool listed(const std::string& name) { return std::filesystem::exists("/dev/shm" + name); }

TEST(SharedMemory, ASegmentTooLargeForTheMachineIsAnErrorNamingIt) {
  Rng rng(fresh_seed());
  const std::string name = fresh_name(rng);
  // Far more than any /dev/shm holds: the pages are reserved up front, so this fails here.
  const std::size_t bytes = std::size_t{1} << (50 + rng() % 4);
  try {
    MappedSegment::create(name, bytes);
    FAIL() << "a segment of " << bytes << " bytes was made";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
  EXPECT_FALSE(listed(name));
}

TEST(SharedMemory, TwoMappingsOfASegmentSeeTheSameBytes) {
  Rng rng(fresh_seed());
  const std::string name = fresh_name(rng);
  const std::size_t bytes = 4096 * (1 + rng() % 64);
  MappedSegment made = MappedSegment::create(name, bytes);
  MappedSegment opened = MappedSegment::open(name, bytes);
  const std::size_t at = rng() % bytes;
  const auto value = static_cast<unsigned char>(1 + rng() % 255);
  made.data()[at] = value;
  EXPECT_EQ(opened.data()[at], value);
  shm_unlink(name.c_str());
  EXPECT_FALSE(listed(name));
  EXPECT_THROW(MappedSegment::open(name, bytes), Error);
}

}  // namespace
}  // namespace granray::test
