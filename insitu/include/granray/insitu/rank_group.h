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

}  // namespace granray
