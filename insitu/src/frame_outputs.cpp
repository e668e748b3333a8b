#include "granray/insitu/frame_outputs.h"

#include "granray/tiled_render.h"

namespace granray {

io::SinkOptions frame_outputs(const InsituConfig& config, bool png_streamed) {
  io::SinkOptions outputs;
  const PixelRect window = render_window(config.render);
  outputs.width = window.x1 - window.x0;
  outputs.height = window.y1 - window.y0;
  outputs.hdf5_path = config.output;
  outputs.config_text = config.table_text;
  for (const ViewSettings& view : config.views) outputs.hdf5.views.push_back(view.name);
  outputs.hdf5.compression = static_cast<int>(config.compression);
  outputs.cinema = config.orbit ? config.orbit->cinema : "";
  outputs.png_compression = static_cast<int>(config.compression);
  outputs.png_streamed = png_streamed;
  return outputs;
}

std::string frame_output_keys(const InsituConfig& config) {
  std::string keys;
  if (!config.output.empty()) keys = "key 'insitu.output' = \"" + config.output + "\"";
  if (config.orbit && !config.orbit->cinema.empty()) {
    keys += (keys.empty() ? "key" : " or") + std::string(" 'insitu.orbit.cinema' = \"") +
            config.orbit->cinema + "\"";
  }
  return keys.empty() ? "the output keys" : keys;
}

}  // namespace granray
