// How the in-situ plugin renders when the simulation's particles are spread over ranks. The
// plugin sees only this interface; granray_mpi implements it over an MPI communicator
// (granray/insitu/mpi_frame.h), so the plugin itself needs no MPI.
#pragma once

#include "granray/image.h"
#include "granray/renderer.h"
#include "granray/tiled_render.h"

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

  // Collective: one band of a frame rendered in bands (render_bands). The bands after the first
  // may reuse what the first built for the same particles; by default a band renders as a frame.
  virtual FrameStats render_band(Renderer& renderer, const ParticleView& view,
                                 const RenderSettings& band, Image& image, bool later_band) {
    (void)later_band;
    return render(renderer, view, band, image);
  }

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

// The bands of a frame across the ranks of `ranks` (render_bands), or on `renderer` alone with
// `options` when there is no rank group.
inline RenderBand bands_of(RankGroup* ranks, Renderer& renderer, const ParticleView& view,
                           const RenderOptions& options = {}) {
  if (ranks == nullptr) return bands_on(renderer, view, options);
  return [ranks, &renderer, view](const RenderSettings& band, Image& image, bool later_band) {
    return ranks->render_band(renderer, view, band, image, later_band);
  };
}

}  // namespace granray
