#include "fix_granray.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>

#include "atom.h"
#include "comm.h"
#include "domain.h"
#include "error.h"
#include "granray/errors.h"
#include "granray/insitu/config.h"
#include "granray/insitu/insitu_renderer.h"
#include "granray/insitu/mpi_frame.h"
#include "group.h"
#include "lammps_atom_values.h"
#include "lammps_region_motion.h"
#include "modify.h"
#include "timer.h"
#include "update.h"

namespace LAMMPS_NS {
namespace {

constexpr const char* kUsage = "fix ID group-ID granray N config.toml [set key=value ...]";

}  // namespace

FixGranray::FixGranray(LAMMPS* lmp, int narg, char** arg) : Fix(lmp, narg, arg) {
  if (narg < 5) error->all(FLERR, "fix granray: too few arguments; usage: {}", kUsage);
  nevery = utils::inumeric(FLERR, arg[3], false, lmp);
  if (nevery <= 0) error->all(FLERR, "fix granray: N = {} must be > 0", arg[3]);
  config_file_ = arg[4];
  for (int k = 5; k < narg; k += 2) {
    if (std::strcmp(arg[k], "set") != 0 || k + 1 >= narg) {
      error->all(FLERR, "fix granray: unexpected \"{}\"; usage: {}", arg[k], kUsage);
    }
    overrides_.emplace_back(arg[k + 1]);
  }
  restart_global = 1;

  granray::InsituConfig config;
  try {
    config = granray::load_insitu_config(config_file_, overrides_);
  } catch (const granray::Error& e) {
    error->all(FLERR, "fix granray: {}", e.what());
  }
  // The fix's N sets the interval; a file that says otherwise is not silently overruled.
  if (config.every_time > 0.0) {
    error->all(FLERR,
               "fix granray: key 'insitu.every_time' in {}: frames come every N = {} steps of "
               "the fix; remove every_time",
               config_file_, nevery);
  }
  if (config.every != 0 && config.every != nevery) {
    error->all(FLERR,
               "fix granray: key 'insitu.every' = {} in {} differs from the fix's N = {}; the "
               "fix's N sets the interval (remove every or make them equal)",
               config.every, config_file_, nevery);
  }
  std::vector<std::string> offered;
  for (const auto& [key, name] : granray::field_keys(config)) offered.push_back(name);
  overrides_.push_back("every=" + std::to_string(nevery));
  try {
    config = granray::load_insitu_config(config_file_, overrides_);
    if (config.backend != granray::BackendKind::cpu) {
      granray::mpi::use_node_local_gpu(world);  // -1 without a GPU: the CPU backend serves
    }
    granray::mpi::share_cores(world);  // granray's threads: this rank's share of the node
    renderer_ = std::make_unique<granray::InsituRenderer>(std::move(config), offered,
                                                          granray::mpi::rank_group(world));
  } catch (const granray::Error& e) {
    error->all(FLERR, "fix granray: {}", e.what());
  }
  // Failures of a frame, and of the writer's thread: rank 0's go where LAMMPS writes.
  auto* screen_file = screen;
  auto* log_file = logfile;
  renderer_->set_logger([screen_file, log_file](const std::string& line) {
    static std::mutex one_line_at_a_time;
    const std::lock_guard<std::mutex> lock(one_line_at_a_time);
    const std::string text = "fix granray: " + line + "\n";
    if (screen_file == nullptr && log_file == nullptr) std::fputs(text.c_str(), stderr);
    if (screen_file != nullptr) std::fputs(text.c_str(), screen_file);
    if (log_file != nullptr) std::fputs(text.c_str(), log_file);
  });
}

FixGranray::~FixGranray() = default;

int FixGranray::setmask() { return FixConst::END_OF_STEP; }

void FixGranray::fail_on_field(const std::string& key, const std::string& what) const {
  error->all(FLERR, "fix granray: key '{}' in {}: {}", key, config_file_, what);
}

// The values are found again each run: computes, fixes and variables may have changed between
// runs.
void FixGranray::init() {
  if (!atom->radius_flag) {
    error->all(FLERR, "fix granray needs per-atom radii (atom_style sphere, or one with radius)");
  }
  values_.clear();
  computes_ = false;
  for (const auto& [key, name] : granray::field_keys(renderer_->config())) {
    if (std::any_of(values_.begin(), values_.end(),
                    [&, &field = name](const auto& v) { return v->name() == field; })) {
      continue;  // one value serves every key that names it
    }
    try {
      values_.push_back(std::make_unique<granray::lammps::AtomValue>(lmp, name));
    } catch (const std::invalid_argument& e) {
      fail_on_field(key, e.what());
    }
    computes_ = computes_ || values_.back()->needs_computes();
  }
}

void FixGranray::setup(int) {
  run_frames_ = 0;
  run_seconds_ = 0.0;
  // A group that is empty now stays empty unless atoms are inserted into it.
  if (group->count(igroup) == 0 && modify->get_fix_by_style("^pour").empty() &&
      modify->get_fix_by_style("^deposit").empty()) {
    error->all(FLERR,
               "fix granray: group '{}' has no atoms (and no fix pour or deposit adds any): "
               "there is nothing to draw",
               group->names[igroup]);
  }
  const bigint step = update->ntimestep;
  if (step % nevery == 0 && step != last_frame_step_) frame();
  if (computes_) modify->addstep_compute((step / nevery + 1) * nevery);
}

// Only the time loop's frames count toward the share post_run() reports, not setup's.
void FixGranray::end_of_step() {
  const double start = platform::walltime();
  frame();
  run_seconds_ += platform::walltime() - start;
  ++run_frames_;
  if (computes_) modify->addstep_compute(update->ntimestep + nevery);
}

double FixGranray::simulated_time() const {
  return update->atime + static_cast<double>(update->ntimestep - update->atimestep) * update->dt;
}

void FixGranray::frame() {
  const bigint step = update->ntimestep;
  granray::SimulationParticles particles;
  try {
    const int nlocal = atom->nlocal;  // owned atoms: ghosts are other ranks' (or images)
    atoms_.clear();
    for (int i = 0; i < nlocal; ++i) {
      if (atom->mask[i] & groupbit) atoms_.push_back(i);
    }
    xyzr_.resize(atoms_.size() * 4);
    ids_.resize(atoms_.size());
    for (std::size_t k = 0; k < atoms_.size(); ++k) {
      const int i = atoms_[k];
      xyzr_[4 * k + 0] = static_cast<float>(atom->x[i][0]);
      xyzr_[4 * k + 1] = static_cast<float>(atom->x[i][1]);
      xyzr_[4 * k + 2] = static_cast<float>(atom->x[i][2]);
      xyzr_[4 * k + 3] = static_cast<float>(atom->radius[i]);
      ids_[k] = static_cast<std::uint64_t>(atom->tag[i]);
    }
    particles.view.xyzr = reinterpret_cast<const granray::Vec4*>(xyzr_.data());
    particles.view.count = atoms_.size();
    particles.view.space = granray::MemorySpace::host;
    particles.with_ids(ids_.data());
    for (const MovingWall& m : moving_walls_) {
      LAMMPS_NS::Region* region = domain->get_region_by_id(m.region);
      if (region == nullptr) {
        throw std::runtime_error("wall \"" + m.wall + "\" follows region \"" + m.region +
                                 "\", which no longer exists");
      }
      particles.with_wall_transform(m.wall, granray::lammps::region_motion(*region));
    }
    fields_.resize(values_.size());
    for (std::size_t v = 0; v < values_.size(); ++v) {
      values_[v]->read(atoms_, igroup, fields_[v]);
      particles.with_field(values_[v]->name(), fields_[v].data());
    }
  } catch (const std::exception& e) {
    particles.unusable = e.what();  // skipped on every rank, logged; the run goes on
  }
  renderer_->render(step, simulated_time(), particles);
  last_frame_step_ = step;
}

// The fix's share of the run, as LAMMPS's timing breakdown gives each part's.
void FixGranray::post_run() {
  renderer_->finish();
  if (comm->me != 0 || run_frames_ == 0) return;
  const double loop = timer->get_wall(Timer::TOTAL);
  const auto counters = renderer_->counters();
  utils::logmesg(lmp,
                 "fix granray {}: {} frames in the loop, {:.4g} s, {:.4g} ms per frame, {:.3g}% of "
                 "the loop time; {} frames written so far, {} skipped, {} lost\n",
                 id, run_frames_, run_seconds_, 1e3 * run_seconds_ / run_frames_,
                 loop > 0.0 ? 100.0 * run_seconds_ / loop : 0.0, counters.written, counters.failed,
                 counters.lost);
}

void FixGranray::write_restart(FILE* file) {
  if (comm->me != 0) return;
  const double state[1] = {static_cast<double>(last_frame_step_)};
  const int size = sizeof(state);
  std::fwrite(&size, sizeof(int), 1, file);
  std::fwrite(state, sizeof(double), 1, file);
}

void FixGranray::restart(char* buffer) {
  double state[1];
  std::memcpy(state, buffer, sizeof(state));
  last_frame_step_ = static_cast<std::int64_t>(state[0]);
}

int FixGranray::modify_param(int narg, char** arg) {
  if (std::strcmp(arg[0], "wall") != 0) return 0;
  if (narg < 3)
    error->all(FLERR, "fix_modify {} wall: usage: fix_modify ID wall NAME REGION-ID", id);
  const std::string wall = arg[1], region = arg[2];
  const auto& walls = renderer_->config().render.walls;
  const bool known = walls && std::any_of(walls->begin(), walls->end(),
                                          [&](const granray::Wall& w) { return w.name == wall; });
  if (!known) {
    error->all(FLERR, "fix_modify {} wall: {} has no [[insitu.walls]] entry with name = \"{}\"", id,
               config_file_, wall);
  }
  if (domain->get_region_by_id(region) == nullptr) {
    error->all(FLERR, "fix_modify {} wall {}: no region \"{}\"", id, wall, region);
  }
  moving_walls_.erase(std::remove_if(moving_walls_.begin(), moving_walls_.end(),
                                     [&](const MovingWall& m) { return m.wall == wall; }),
                      moving_walls_.end());
  moving_walls_.push_back({wall, region});
  return 3;
}

double FixGranray::memory_usage() {
  double bytes = atoms_.capacity() * sizeof(int) + xyzr_.capacity() * sizeof(float) +
                 ids_.capacity() * sizeof(std::uint64_t);
  for (const auto& f : fields_) bytes += f.capacity() * sizeof(float);
  return bytes;
}

}  // namespace LAMMPS_NS
