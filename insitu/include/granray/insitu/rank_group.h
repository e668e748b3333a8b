// How the in-situ plugin renders when the simulation's particles are spread over ranks. The
// plugin sees only this interface; granray_mpi implements it over an MPI communicator
// (granray/insitu/mpi_frame.h), so the plugin itself needs no MPI.
#pragma once

#include "granray/image.h"
#include "granray/renderer.h"

namespace granray {

class RankGroup {
 public:
  virtual ~RankGroup() = default;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;

  // Collective: renders this rank's particles as part of all ranks' and composites the frame
  // into rank 0's image. When any rank fails, every rank throws (so none is left waiting in a
  // collective) and the frame is skipped everywhere.
  virtual FrameStats render(Renderer& renderer, const ParticleView& view,
                            const RenderSettings& settings, Image& image) = 0;

  // Collective: true on every rank when `ok` is true on every rank.
  virtual bool all(bool ok) = 0;
};

// Collective: rows per band of a frame `height` rows high that every rank can take (each rank
// can take `rows`, its own tile budget's): the whole height when all can, else the largest of
// height / 2^k that fits every rank, so that all ranks cast the same bands.
inline int agree_on_band_rows(RankGroup& ranks, int rows, int height) {
  int agreed = height;
  while (!ranks.all(rows >= agreed)) agreed = (agreed + 1) / 2;
  return agreed;
}

}  // namespace granray
