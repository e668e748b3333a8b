// The outputs an [insitu] table names, as the frame sinks take them: the one place that reads
// the output keys, for the in-situ writer and granray-render alike.
#pragma once

#include <string>

#include "granray/insitu/config.h"
#include "granray/io/frame_sinks.h"

namespace granray {

// `output` (HDF5, with the views' groups), [insitu.orbit] `cinema`, the compression and the
// frame size of the render window. PNG paths are per frame: the client names them.
io::SinkOptions frame_outputs(const InsituConfig& config, bool png_streamed);

// The keys naming those files, for an error opening them: "key 'insitu.output' = \"f.h5\"".
std::string frame_output_keys(const InsituConfig& config);

}  // namespace granray
