// granray-render --contacts: each frame's contact pairs (contract 2g) from `dump local` files, a
// '*' in the name becoming the step as for --mesh, matched by id to the frame's grains; under
// mpirun rank 0 passes them whole while each rank draws a share of the grains, and a pair across
// a periodic boundary of the dump's box becomes two half capsules.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "granray/errors.h"
#include "granray/io/contact_file.h"
#include "granray/io/frame_pattern.h"
#include "granray/io/particle_file.h"

namespace granray::tools {

class ContactPairs {
 public:
  // `pattern` empty: no pairs. `columns`: the contact compute's keywords ("pos id force").
  ContactPairs(std::string pattern, const std::string& columns, const std::string& field)
      : pattern_(std::move(pattern)) {
    if (!pattern_.empty()) layout_ = io::parse_contact_layout(columns, field);
  }

  bool any() const { return !pattern_.empty(); }

  // The pairs of the snapshot of step `step` in `particles` (read from `source`), for a frame of
  // `ranks` ranks of which this is `rank`: by index on one rank; whole (both grains' spheres and
  // ids) on rank 0 of several, where each rank holds a share of the grains, and wherever a pair
  // crosses a periodic boundary, which is drawn as two half capsules, each from a grain halfway
  // toward its partner's nearest periodic image (contract 2g). Valid until the next call.
  // InputError naming the file when it holds no snapshot of that step.
  ContactView view_for(std::int64_t step, const io::ParticleFrame& particles,
                       const std::string& source, int rank, int ranks) {
    const std::string path = io::expand_frame_pattern(pattern_, step);
    if (path != read_path_) {
      frames_ = io::read_contact_file(path, layout_);
      read_path_ = path;
    }
    const io::ContactFrame* frame = nullptr;
    for (const io::ContactFrame& f : frames_) {
      if (!f.step || *f.step == step) frame = &f;
      if (frame) break;
    }
    if (frame == nullptr) {
      if (frames_.size() == 1) {
        frame = &frames_.front();  // match_contacts names both steps
      } else {
        throw InputError(path + ": no contacts of step " + std::to_string(step) + " (the step of " +
                         source + ")");
      }
    }
    pairs_ = io::match_contacts(*frame, particles, source);
    periodic_ = 0;
    spheres_.clear();
    ids_.clear();
    values_.clear();
    for (std::size_t k = 0; k < pairs_.first.size(); ++k) {
      const std::uint32_t i = pairs_.first[k], j = pairs_.second[k];
      const Vec4 p = particles.xyzr[i], q = particles.xyzr[j];
      const std::uint64_t id_i = particles.ids[i], id_j = particles.ids[j];
      double d[3] = {double(q.x) - p.x, double(q.y) - p.y, double(q.z) - p.z};
      bool wrapped = !frame->periodic.empty() && frame->periodic[k] != 0;
      for (int a = 0; a < 3; ++a) {
        const double length = frame->box.hi[a] - frame->box.lo[a];
        if (!frame->box.periodic[a] || !(length > 0.0) || !(std::fabs(d[a]) > 0.5 * length)) {
          continue;
        }
        d[a] -= length * std::round(d[a] / length);
        wrapped = true;
      }
      if (!wrapped) {
        add(p, q, id_i, id_j, pairs_.value[k]);
        continue;
      }
      ++periodic_;
      const auto toward = [&](Vec4 from, double sign, float radius) {
        return Vec4{static_cast<float>(from.x + sign * 0.5 * d[0]),
                    static_cast<float>(from.y + sign * 0.5 * d[1]),
                    static_cast<float>(from.z + sign * 0.5 * d[2]), radius};
      };
      add(p, toward(p, 1.0, q.w), id_i, id_j, pairs_.value[k]);
      add(q, toward(q, -1.0, p.w), id_j, id_i, pairs_.value[k]);
    }
    ContactView view;
    if (ranks == 1 && periodic_ == 0) {
      view = {pairs_.first.data(), pairs_.second.data(), pairs_.value.data(), pairs_.first.size()};
      return view;
    }
    if (rank != 0) return view;  // each pair once across the ranks: rank 0 passes them
    view.value = values_.data();
    view.count = values_.size();
    view.spheres = spheres_.data();
    view.ids = ids_.data();
    view.on_host = true;
    view.ends_are_grains = periodic_ == 0;  // a half's midpoint is no grain
    return view;
  }

  // Pairs of the last view_for that cross a periodic boundary (each drawn as two halves).
  std::size_t periodic() const { return periodic_; }

 private:
  std::string pattern_;
  io::ContactLayout layout_;
  std::string read_path_;
  std::vector<io::ContactFrame> frames_;
  io::ContactIndices pairs_;
  std::size_t periodic_ = 0;
  std::vector<Vec4> spheres_;  // the whole form: 2 a pair
  std::vector<std::uint64_t> ids_;
  std::vector<float> values_;

  void add(Vec4 a, Vec4 b, std::uint64_t id_a, std::uint64_t id_b, float value) {
    spheres_.push_back(a);
    spheres_.push_back(b);
    ids_.push_back(id_a);
    ids_.push_back(id_b);
    values_.push_back(value);
  }
};

}  // namespace granray::tools
