// The last step of every frame: the finished pixels out of the frame buffers (frame_buffers.inl)
// into the image, or into this rank's shared planes (shared_planes.inl). Part of the backend
// (thrust_backend.inl).
#pragma once

#include "backend_prelude.inl"
#include "frame_buffers.inl"
#include "shared_planes.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// The finished frame out of the backend: into the image, or with RenderOptions::share_planes
// into this rank's shared planes for rank 0's merge (no pixel comes out; the image gets the
// frame's size alone).
inline void hand_over_frame(const Executor& exec, FrameBuffers& frame, SharedPlanes& shared,
                            const RenderSettings& settings, const RenderOptions& options,
                            FrameStats& stats, Image& image) {
  if (!options.share_planes) {
    frame.deliver(exec, settings, options, stats, image);
    return;
  }
  shared.publish(exec, frame.rgb(), frame.depth(), frame.hit_ids(), image_pixels(settings));
  image.width = window_width(settings);
  image.height = window_height(settings);
}

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
