#pragma once

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "granray/kernels/vec.h"
#include "granray/kernels/walls.h"
#include "granray/material_type.h"
#include "granray/pixel_rect.h"
#include "granray/walls.h"

namespace granray {

enum class Projection { perspective, orthographic };

// contract 2 and 3, [insitu.camera]. Absent position means the auto camera.
struct CameraSettings {
  Projection projection = Projection::perspective;
  std::optional<Vec3> position;
  std::optional<Vec3> target;
  Vec3 up = {0.0f, 0.0f, 1.0f};
  float fov = 30.0f;  // degrees, vertical
  std::optional<float> ortho_height;
  float theta = 60.0f;  // degrees from +z
  float phi = 30.0f;    // degrees from +x
  float zoom = 1.0f;
};

// contract 2 and 3, [insitu.shading]. The light is given in camera space (u, v, w).
struct ShadingSettings {
  float ambient = 0.25f;
  float diffuse = 0.75f;
  Vec3 light = {0.3f, 0.5f, 1.0f};
  Vec3 background = {1.0f, 1.0f, 1.0f};
  Vec3 particle_color = {0.8f, 0.8f, 0.8f};
  // contract 2a lighting, all off by default (the image is then exactly contract 2's).
  bool shadows = false;      // hard shadows from the directional light
  int ao_samples = 0;        // ambient-occlusion rays per primary sample, 0..kMaxAoSamples
  float ao_distance = 0.0f;  // their length; 0: 4 x the frame's mean radius
  float specular = 0.0f;     // weight of a white Blinn-Phong highlight
  float shininess = 32.0f;
  int samples = 1;  // primary samples per pixel: 1, 4, 9 or 16 (an m x m grid)
  // contract 2d, off by default.
  float outline = 0.0f;  // rim width at each grain's silhouette, a fraction of its radius, [0, 1)
  Vec3 outline_color = {0.0f, 0.0f, 0.0f};
  float depth_cue = 0.0f;               // [0, 1]: how far the deepest surfaces fade
  std::optional<Vec3> depth_cue_color;  // absent: the background
  // contract 2e: how deep reflection and refraction rays go (0 = none); applies only where
  // RenderSettings::materials gives a grain or wall metal or glass.
  int bounces = 4;
};

constexpr int kMaxBounces = 16;

constexpr int kMaxAoSamples = 256;

// True when a frame needs the lit passes: secondary rays, a highlight or several samples.
inline bool lighting_on(const ShadingSettings& s) {
  return s.shadows || s.ao_samples > 0 || s.specular > 0.0f || s.samples > 1;
}

// Colour by the particles' scalar (contract 3, [insitu.color]); applies when the frame has one.
struct ColorMapping {
  int colormap = 0;         // index into granray::colormap_names()
  bool auto_range = false;  // the frame's min/max over the renderable particles
  float lo = 0.0f;
  float hi = 1.0f;
  // contract 2d categories: not empty, grain s takes entry floor(s + 0.5) mod its size (the
  // non-negative remainder), and colormap, auto_range, lo and hi do not apply.
  std::vector<Vec3> palette;
};

constexpr std::size_t kMaxPaletteSize = 256;
// The category values a frame's census lists: 0 .. 64 kCategoryWords - 1.
constexpr int kCategoryWords = 4;

// Tableau 10, the default palette of categorical colours.
std::vector<Vec3> tableau10_palette();

// contract 2d [insitu.select]: only grains whose selection value s has lo <= s <= hi are drawn.
struct SelectRange {
  float lo;
  float hi;
};

// contract 2e [[insitu.materials]]: what a grain or wall reflects or transmits besides its 2a
// colour.

// What a material tests its range against: a value per grain (ParticleView::material_values) or
// the grain's radius.
enum class MaterialField { scalar, radius };

struct MaterialSettings {
  std::string name;
  MaterialType type = MaterialType::matte;
  Vec3 tint = {1.0f, 1.0f, 1.0f};  // multiplies what metal reflects or glass transmits
  float reflectance = 0.0f;        // metal: the reflected share k
  float roughness = 0.0f;          // metal: 0 a mirror; above it glossy (path-traced still only)
  float ior = 1.5f;                // glass: index of refraction, > 1
  // The grains whose material value lies in [lo, hi] take this material (the first that holds
  // them wins); absent: the material serves only the walls that name it ("all" is -inf..inf).
  std::optional<SelectRange> grains;
  // What `grains` tests: the radius, or the frame's material values of slot `field_slot`
  // (ParticleView::material_values[field_slot], the particles' scalar where that is null).
  MaterialField field = MaterialField::scalar;
  int field_slot = 0;

  // Whether it picks grains by a value (a range other than "all"): the frame then needs each
  // grain's value of its field.
  bool selects_by_value() const {
    return grains && !(grains->lo == -INFINITY && grains->hi == INFINITY);
  }
};

constexpr std::size_t kMaxMaterials = 32;

// contract 2g, [insitu.contacts]: the contact network, each pair of touching grains a capsule from
// centre to centre. Applies when the frame has pairs (ParticleView::contacts).
struct ContactSettings {
  float width = 0.4f;           // capsule radius at the largest value, a fraction of min(r_i, r_j)
  bool scale_by_force = true;   // "force": rho = width r_min sqrt(f / f_max); "fixed": width r_min
  std::string field = "force";  // the pair value's name (the colour bar's label)
  int colormap = 3;             // index into granray::colormap_names(); 3 = inferno
  bool auto_range = true;       // the frame's min/max over its pairs
  float lo = 0.0f;
  float hi = 1.0f;
  float threshold = 0.0f;  // draw pairs with f >= threshold * the frame's mean f
  bool grains = true;      // false: the network alone (the grains still frame the auto camera)
};

// contract 2e: how a frame forms its image: section 2a's direct model (with metal and glass traced
// `bounces` deep), or the path-traced still.
enum class ImageModel { direct, path };

// [insitu.path]: the path-traced still.
struct PathSettings {
  int samples = 64;             // paths per pixel
  float sun_radius = 0.5f;      // degrees: the light as a sun of this angular radius (0: a point)
  float sun_intensity = 3.0f;   // a matte surface of base c facing the sun gets c x this from it
  float aperture = 0.0f;        // lens radius for depth of field, world units (0 = pinhole)
  float focus_distance = 0.0f;  // along the view; 0 = the distance to the target
};

constexpr int kMaxPathSamples = 1 << 20;

struct RenderSettings {
  int width = 1280;
  int height = 720;
  // contract 3 region: render only these pixels of the width x height image, exactly as they are in
  // the whole (the camera, auto-fit and lighting see the whole image); empty: all of it. The
  // frame's image is the window's size. Posters render in windows too (granray/tiled_render.h).
  PixelRect region;
  CameraSettings camera;
  ShadingSettings shading;
  std::optional<ColorMapping> color;
  // contract 2b: the frame's walls (null or empty: none). A list the renderer has seen before is
  // not rebuilt, so a simulation keeps one list for static walls and makes a new one when they
  // move.
  std::shared_ptr<const WallList> walls;
  std::vector<ClipPlane> clip;  // contract 2c
  // contract 2d: the others are removed like clipped grains (the camera and census still count
  // them). Tests ParticleView::select_scalar, or its scalar where that is null.
  std::optional<SelectRange> select;
  // contract 2d: list the category values the frame draws (FrameStats::categories), for the colour
  // bar's swatches. Costs a pass over the grains, so it is asked for only where a bar shows them.
  bool category_census = false;
  // contract 2e, in order; empty: every grain and wall matte (contract 2a). Walls name theirs
  // (Wall::material).
  std::vector<MaterialSettings> materials;
  ImageModel model = ImageModel::direct;  // contract 2e [insitu] renderer
  PathSettings path;
  std::optional<ContactSettings> contacts;  // contract 2g; absent: no network drawn
};

inline bool path_traced(const RenderSettings& s) { return s.model == ImageModel::path; }

// True when some grain or wall may be metal or glass and rays bounce: the frame then takes the
// lit passes with a bounce pass (kernels/materials.h).
inline bool materials_on(const RenderSettings& s) {
  if (s.shading.bounces <= 0) return false;
  for (const MaterialSettings& m : s.materials) {
    if (m.type != MaterialType::matte) return true;
  }
  return false;
}

// The pixels a frame renders: its region, or the whole image.
inline PixelRect render_window(const RenderSettings& s) {
  return s.region.empty() ? PixelRect{0, 0, s.width, s.height} : s.region;
}

}  // namespace granray
