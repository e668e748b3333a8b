// fix granray: frames rendered in situ from stock LAMMPS, loaded as a plugin.
//
//   plugin load libgranraylmp.so
//   fix ID group-ID granray N config.toml [set key=value ...]
//
// Every N steps (and at a run's setup when the step is a multiple of N) the group's atoms on
// each rank (positions, radii, ids and the per-atom values the configuration names) are handed
// to granray's in-situ renderer; the frame is composited over LAMMPS's communicator and rank 0
// writes it. A frame that cannot be drawn is skipped and logged; the run goes on.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fix.h"

namespace granray {
class InsituRenderer;
namespace lammps {
class AtomValue;
}
}  // namespace granray

namespace LAMMPS_NS {

class FixGranray : public Fix {
 public:
  FixGranray(LAMMPS* lmp, int narg, char** arg);
  ~FixGranray() override;

  int setmask() override;
  void init() override;
  void setup(int vflag) override;
  void end_of_step() override;
  void post_run() override;
  void write_restart(FILE* file) override;
  void restart(char* buffer) override;
  double memory_usage() override;
  // fix_modify ID wall NAME REGION-ID: the configuration's wall NAME moves as LAMMPS's region
  // REGION-ID does (its `move` and `rotate`), as a fix wall/gran/region's wall does.
  int modify_param(int narg, char** arg) override;

 private:
  void frame();
  double simulated_time() const;
  void fail_on_field(const std::string& key, const std::string& what) const;

  struct MovingWall {
    std::string wall;    // [[insitu.walls]] name
    std::string region;  // the LAMMPS region whose motion it follows
  };

  std::string config_file_;
  std::vector<MovingWall> moving_walls_;
  std::vector<std::string> overrides_;
  std::unique_ptr<granray::InsituRenderer> renderer_;
  std::vector<std::unique_ptr<granray::lammps::AtomValue>> values_;  // by name, once each
  bool computes_ = false;  // whether a value needs LAMMPS's computes kept current

  // This rank's atoms of the group, this frame, as granray takes them.
  std::vector<int> atoms_;
  std::vector<float> xyzr_;  // x, y, z, radius
  std::vector<std::uint64_t> ids_;
  std::vector<std::vector<float>> fields_;

  std::int64_t last_frame_step_ = -1;  // kept in restart files: a restart does not draw it again
  std::uint64_t run_frames_ = 0;       // frames in the current run's time loop
  double run_seconds_ = 0.0;           // the time loop's time in them
};

}  // namespace LAMMPS_NS
