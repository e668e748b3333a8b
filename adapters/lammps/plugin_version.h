// Which LAMMPS the plugin was built for, and whether the lmp that loads it is that one. A Fix
// subclass compiled against one release's headers lays its members out as that release does: in
// another release it would read the wrong fields, so the plugin refuses to register there.
#pragma once

#include <optional>
#include <string>

namespace granray::lammps {

// A LAMMPS release as its CMake package numbers it: "2025.7.22.4" is 22 Jul 2025, update 4.
struct LammpsRelease {
  int date = 0;    // yyyymmdd, as LAMMPS::num_ver and lammps_version() give it
  int update = 0;  // the stable release's update, 0 for none
  bool operator==(const LammpsRelease& o) const { return date == o.date && update == o.update; }
  bool operator!=(const LammpsRelease& o) const { return !(*this == o); }
};

// "2025.7.22.4" or "2025.7.22"; nullopt when it is not such a version.
std::optional<LammpsRelease> parse_package_version(const std::string& version);

// The release that runs: lammps_version()'s yyyymmdd and the git descriptor
// ("stable_22Jul2025_update4"; null or empty when LAMMPS was built without git information, and
// then the update is not known and taken to be the one built for).
LammpsRelease running_release(int date, const char* git_descriptor, int built_update);

// "22 Jul 2025 (update 4)": LAMMPS's own way of naming a release.
std::string release_name(const LammpsRelease& release);

// Empty when `running` is `built`; else the message the plugin prints instead of registering.
std::string mismatch_message(const LammpsRelease& built, const LammpsRelease& running);

}  // namespace granray::lammps
