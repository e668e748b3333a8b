// The entry point `plugin load libgranraylmp.so` calls: registers fix granray when this lmp is
// the LAMMPS release the plugin was built for, and says why not otherwise.
#include <cstdio>
#include <string>

#include "fix_granray.h"
#include "lammps.h"
#include "lammps_plugin_abi.h"
#include "library.h"
#include "plugin_version.h"

#ifndef GRANRAY_LAMMPS_BUILT_FOR
#error "GRANRAY_LAMMPS_BUILT_FOR: the LAMMPS package version built against (CMake sets it)"
#endif

namespace {

// LAMMPS owns the fix it asks for and deletes it with `unfix` or at exit.
void* make_fix(void* lmp, int narg, char** arg) {
  return new LAMMPS_NS::FixGranray(static_cast<LAMMPS_NS::LAMMPS*>(lmp), narg, arg);
}

}  // namespace

extern "C" void lammpsplugin_init(void* lmp, void* handle, void* regfunc) {
  using granray::lammps::LammpsRelease;
  const LammpsRelease built = *granray::lammps::parse_package_version(GRANRAY_LAMMPS_BUILT_FOR);
  // Read through LAMMPS's C library interface, whose layout does not change between releases.
  const char* descriptor =
      LAMMPS_NS::LAMMPS::has_git_info() ? LAMMPS_NS::LAMMPS::git_descriptor() : nullptr;
  const LammpsRelease running =
      granray::lammps::running_release(lammps_version(lmp), descriptor, built.update);
  const std::string refusal = granray::lammps::mismatch_message(built, running);
  if (!refusal.empty()) {
    if (lammps_extract_setting(lmp, "world_rank") == 0) {
      std::fprintf(stderr, "ERROR: %s\n", refusal.c_str());
      std::fflush(stderr);
    }
    return;
  }
  lammpsplugin_t plugin{};
  plugin.version = static_cast<LAMMPS_NS::LAMMPS*>(lmp)->version;
  plugin.style = "fix";
  plugin.name = "granray";
  plugin.info = "fix granray: in-situ ray-cast frames of granular particles";
  plugin.author = "the granray developers";
  plugin.creator.v2 = &make_fix;
  plugin.handle = handle;
  reinterpret_cast<lammpsplugin_regfunc>(regfunc)(&plugin, lmp);
}
