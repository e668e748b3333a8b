// granray-render --contacts: each frame's contact pairs (contract 2g) from `dump local` files, a
// '*' in the name becoming the step as for --mesh, matched by id to the frame's grains; under
// mpirun rank 0 passes them whole while each rank draws a share of the grains.
#pragma once

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

  // The pairs of the snapshot of step `step`, as indices into `particles` (read from `source`).
  // InputError naming the file when it holds no snapshot of that step. Pairs across a periodic
  // boundary are left out, and counted in periodic_left_out().
  const io::ContactIndices& pairs_for(std::int64_t step, const io::ParticleFrame& particles,
                                      const std::string& source) {
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
    if (!frame->periodic.empty()) {
      io::ContactIndices kept;
      for (std::size_t k = 0; k < pairs_.first.size(); ++k) {
        if (frame->periodic[k] != 0) {
          ++periodic_;
          continue;
        }
        kept.first.push_back(pairs_.first[k]);
        kept.second.push_back(pairs_.second[k]);
        kept.value.push_back(pairs_.value[k]);
      }
      pairs_ = std::move(kept);
    }
    return pairs_;
  }

  std::size_t periodic_left_out() const { return periodic_; }

  // The pairs of the last pairs_for, given whole (both grains' spheres and ids) from `particles`,
  // for a rank that draws a share of them: valid until the next call.
  ContactView whole(const io::ParticleFrame& particles) {
    spheres_.resize(2 * pairs_.first.size());
    ids_.resize(2 * pairs_.first.size());
    for (std::size_t k = 0; k < pairs_.first.size(); ++k) {
      const std::uint32_t grain[2] = {pairs_.first[k], pairs_.second[k]};
      for (int side = 0; side < 2; ++side) {
        spheres_[2 * k + side] = particles.xyzr[grain[side]];
        ids_[2 * k + side] = particles.ids[grain[side]];
      }
    }
    ContactView view;
    view.value = pairs_.value.data();
    view.count = pairs_.value.size();
    view.spheres = spheres_.data();
    view.ids = ids_.data();
    view.on_host = true;
    return view;
  }

 private:
  std::string pattern_;
  io::ContactLayout layout_;
  std::string read_path_;
  std::vector<io::ContactFrame> frames_;
  io::ContactIndices pairs_;
  std::size_t periodic_ = 0;
  std::vector<Vec4> spheres_;
  std::vector<std::uint64_t> ids_;
};

}  // namespace granray::tools
