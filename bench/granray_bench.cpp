// granray-bench: frame time of the grid renderer (and of the brute-force reference) on synthetic
// DEM beds or particle files, per backend. Prints a table; --json writes the numbers.
#include <CLI/CLI.hpp>

#include <memory>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "capsule_walk_census.h"
#include "contact_pairs.h"
#include "device_copy.h"
#include "granray/errors.h"
#include "granray/io/annotations.h"
#include "granray/io/particle_file.h"
#include "granray/renderer.h"
#include "grid_census.h"
#include "scene_suite.h"
#include "walk_census.h"

namespace {

struct Sample {
  double grid_ms, render_ms, total_ms;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"granray benchmark", "granray-bench"};
  std::string backend = "auto", input, json;
  std::vector<std::string> scene_names = {"dense"};
  std::vector<std::size_t> counts = {100000, 1000000};
  std::vector<std::string> resolutions = {"1920x1080"};
  int repeat = 5;
  float poly = 0.0f;
  bool brute = false;
  app.add_option("--backend", backend)->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  std::vector<std::string> suite = granray::bench::suite_scene_names();
  suite.push_back("suite");
  app.add_option("--scene", scene_names,
                 "synthetic scenes (bench/scene_suite.h), or \"suite\" for every one")
      ->check(CLI::IsMember(suite));
  app.add_option("--input", input, "render this particle file instead of synthetic scenes");
  app.add_option("-n,--particles", counts, "particle counts");
  app.add_option("--polydispersity", poly, "radii uniform in [1 - p, 1]");
  app.add_option("-r,--resolution", resolutions, "image sizes, WxH");
  app.add_option("--repeat", repeat, "timed frames after one warm-up frame");
  std::vector<std::string> methods = {"grid", "tiles"};
  app.add_option("--method", methods,
                 "visibility methods to time (auto: the renderer's choice, printed as "
                 "auto(grid) or auto(tiles))")
      ->check(CLI::IsMember({"grid", "tiles", "auto"}));
  app.add_flag("--brute-force", brute, "also time seed 001's brute-force loop");
  app.add_option("--json", json, "write the results here");
  granray::ShadingSettings lighting;  // contract 2a, off unless asked
  int wall_segments = 0;
  bool moving_walls = false;
  app.add_option("--cylinder-wall", wall_segments,
                 "a closed cylinder (back faces) around the grains, 4 x SEGMENTS - 4 triangles");
  float see_through_box = 0.0f;
  app.add_option("--see-through-box", see_through_box,
                 "contract 2d: a box around the grains, all faces, of this opacity (0 < a < 1)")
      ->check(CLI::Range(0.0f, 1.0f));
  app.add_flag("--moving-walls", moving_walls, "a new wall list every frame: the tree is rebuilt");
  app.add_flag("--shadows", lighting.shadows, "hard shadows");
  app.add_option("--ao", lighting.ao_samples, "ambient-occlusion rays per sample");
  app.add_option("--ao-distance", lighting.ao_distance, "their length (0: 2 mean diameters)");
  app.add_option("--specular", lighting.specular, "highlight weight");
  app.add_option("--samples", lighting.samples, "samples per pixel: 1, 4, 9, 16");
  float outline = 0.0f, depth_cue = 0.0f;
  float contact_slack = 0.0f;
  int categories = 0;
  app.add_option("--outline", outline, "contract 2d outline width (fraction of the radius)");
  app.add_option("--depth-cue", depth_cue, "contract 2d depth cue strength");
  app.add_option("--categories", categories,
                 "colour grain i by category i mod N, Tableau 10 (contract 2d categorical)");
  bool materials = false;
  int bounces = 4;
  app.add_flag("--materials", materials,
               "contract 2e: grain i matte, mirror metal or glass by i mod 3 (a third each)");
  app.add_option("--bounces", bounces, "how deep metal and glass reflect and refract");
  int path_samples = 0;
  app.add_option("--path", path_samples,
                 "contract 2e: the path-traced still with this many paths per pixel (0: direct)");
  bool annotate = false;
  app.add_option("--contacts", contact_slack,
                 "contract 2g: draw each scene's near-contacts, the pairs whose gap is less than "
                 "this fraction of their radii, as the force network (0: none)");
  bool in_place = false;
  app.add_flag("--in-place", in_place,
               "CUDA: the grains, their values and pairs copied to device memory once and "
               "rendered there, as an in-situ code's are (no upload in the frame)");
  bool census = false;
  app.add_flag("--grid-census", census, "say what each scene's grid came to (grid_census.h)");
  bool walks = false;
  app.add_flag("--walk-census", walks,
               "count each scene's primary walk on the host (walk_census.h)");
  bool capsule_walks = false;
  app.add_flag("--capsule-walk-census", capsule_walks,
               "count the network's walk on the host (capsule_walk_census.h)");
  app.add_flag("--annotations", annotate,
               "also time the colour bar and label drawn on each rendered image");
  CLI11_PARSE(app, argc, argv);

  try {
    if (capsule_walks && !(contact_slack > 0.0f)) {
      throw granray::ConfigError("--capsule-walk-census needs --contacts");
    }
    const granray::BackendKind kind = backend == "cuda"  ? granray::BackendKind::cuda
                                      : backend == "cpu" ? granray::BackendKind::cpu
                                                         : granray::BackendKind::automatic;
    granray::Renderer renderer(kind);
    std::FILE* out = json.empty() ? nullptr : std::fopen(json.c_str(), "w");
    if (out) std::fprintf(out, "[\n");
    std::printf("%-7s %-8s %-11s %9s %10s %10s %8s %9s %6s %9s %9s %9s %9s %9s\n", "backend",
                "scene", "method", "particles", "image", "entries", "grid ms", "sort ms", "ratio",
                "cast ms", "frame ms", "Mrays/s", "2nd ms", "M2nd/s");
    bool first = true;
    // What to render, each scene made only when its turn comes: a suite of large beds need not
    // sit in memory at once.
    struct Wanted {
      std::string name;  // a suite scene's, or "file"
      std::size_t count;
    };
    std::vector<Wanted> wanted;
    if (!input.empty()) {
      wanted.push_back({"file", 0});
    } else {
      if (std::find(scene_names.begin(), scene_names.end(), "suite") != scene_names.end()) {
        scene_names = granray::bench::suite_scene_names();
      }
      for (const std::string& name : scene_names) {
        for (const std::size_t n : counts) wanted.push_back({name, n});
      }
    }
    for (const Wanted& want : wanted) {
      const granray::bench::SuiteScene made =
          input.empty()
              ? granray::bench::make_suite_scene(want.name, want.count, want.count, poly)
              : granray::bench::SuiteScene{granray::io::read_particle_file(input).front().xyzr, {}};
      const std::vector<granray::Vec4>& grains = made.grains;
      const std::string& scene = want.name;
      // The scene's container, or the walls asked for around these grains: built once, the same
      // for every image size.
      std::shared_ptr<granray::WallList> drum;
      if (!made.walls.empty()) drum = std::make_shared<granray::WallList>(made.walls);
      granray::Vec3 lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
      for (const granray::Vec4& g : grains) {
        lo = {std::min(lo.x, g.x - g.w), std::min(lo.y, g.y - g.w), std::min(lo.z, g.z - g.w)};
        hi = {std::max(hi.x, g.x + g.w), std::max(hi.y, g.y + g.w), std::max(hi.z, g.z + g.w)};
      }
      if (see_through_box > 0.0f) {
        drum = std::make_shared<granray::WallList>(1);
        const granray::Vec3 pad = (hi - lo) * 0.02f;
        (*drum)[0].triangles = granray::box_triangles(lo - pad, hi + pad);
        (*drum)[0].faces = granray::WallFaces::all;
        (*drum)[0].opacity = see_through_box;
      } else if (wall_segments > 0) {
        drum = std::make_shared<granray::WallList>(1);
        const float radius =
            0.5f * std::sqrt((hi.x - lo.x) * (hi.x - lo.x) + (hi.y - lo.y) * (hi.y - lo.y));
        const granray::Vec3 base{0.5f * (lo.x + hi.x), 0.5f * (lo.y + hi.y), lo.z};
        (*drum)[0].triangles = granray::cylinder_triangles(base, {0, 0, 1}, radius * 1.02f,
                                                           (hi.z - lo.z) * 1.3f, wall_segments);
        (*drum)[0].faces = granray::WallFaces::back;
      }
      granray::ParticleView view;
      view.xyzr = grains.data();
      view.count = grains.size();
      granray::bench::ContactPairs pairs;
      if (contact_slack > 0.0f) {
        pairs = granray::bench::near_pairs(grains, contact_slack);
        view.contacts = {pairs.first.data(), pairs.second.data(), pairs.value.data(),
                         pairs.value.size()};
        std::printf("contacts: %zu pairs among %zu grains (gap < %.2f of their radii)\n",
                    pairs.value.size(), grains.size(), contact_slack);
        if (capsule_walks) {
          std::printf("%s, the network's walk:\n%s\n", scene.c_str(),
                      granray::bench::describe(granray::bench::capsule_walk_census(
                                                   grains, pairs, granray::ContactSettings{}))
                          .c_str());
        }
      }
      std::vector<float> category;
      if (categories > 0 || materials) {
        const std::size_t kinds = materials ? 3 : categories;
        category.resize(grains.size());
        for (std::size_t i = 0; i < category.size(); ++i) category[i] = float(i % kinds);
        view.scalar = category.data();
      }
      std::vector<granray::bench::DeviceCopy> on_device;
      if (in_place) {
        if (renderer.backend() != granray::BackendKind::cuda) {
          throw granray::ConfigError("--in-place needs the cuda backend");
        }
        using granray::bench::copy_to_device;
        view.space = granray::MemorySpace::device;
        view.xyzr = on_device.emplace_back(copy_to_device(grains, "grains")).as<granray::Vec4>();
        if (view.scalar) {
          view.scalar = on_device.emplace_back(copy_to_device(category, "values")).as<float>();
        }
        if (view.contacts.count > 0) {
          auto& c = view.contacts;
          c.first =
              on_device.emplace_back(copy_to_device(pairs.first, "pairs")).as<std::uint32_t>();
          c.second =
              on_device.emplace_back(copy_to_device(pairs.second, "pairs")).as<std::uint32_t>();
          c.value = on_device.emplace_back(copy_to_device(pairs.value, "pair values")).as<float>();
        }
      }
      granray::HostGrid grid;  // --grid-census, --walk-census: the frame's grid, on the host
      if (census || walks) grid = renderer.build_grid(view);
      if (census) {
        std::printf("%s: %s\n", scene.c_str(),
                    granray::bench::describe(grid, granray::bench::grid_census(grid, grains.size()))
                        .c_str());
      }
      // The bare cell hash + sort_by_key of the same particles, same run: the grid's yardstick.
      std::vector<double> sorts;
      for (int r = 0; r <= repeat; ++r) sorts.push_back(renderer.time_hash_sort(view));
      sorts.erase(sorts.begin());  // warm-up
      const double sort_ms = median(sorts);
      for (const std::string& size : resolutions) {
        granray::RenderSettings settings;
        settings.shading.shadows = lighting.shadows;
        settings.shading.ao_samples = lighting.ao_samples;
        settings.shading.ao_distance = lighting.ao_distance;
        settings.shading.specular = lighting.specular;
        settings.shading.samples = lighting.samples;
        settings.shading.outline = outline;
        settings.shading.depth_cue = depth_cue;
        if (categories > 0) {
          settings.color = granray::ColorMapping{};
          settings.color->palette = granray::tableau10_palette();
        }
        settings.walls = drum;
        if (materials) {
          granray::MaterialSettings metal, glass;
          metal.name = "mirror";
          metal.type = granray::MaterialType::metal;
          metal.reflectance = 0.8f;
          metal.grains = granray::SelectRange{1.0f, 1.0f};
          glass.name = "glass";
          glass.type = granray::MaterialType::glass;
          glass.grains = granray::SelectRange{2.0f, 2.0f};
          settings.materials = {metal, glass};
        }
        settings.shading.bounces = bounces;
        if (contact_slack > 0.0f) settings.contacts = granray::ContactSettings{};
        if (path_samples > 0) {
          settings.model = granray::ImageModel::path;
          settings.path.samples = path_samples;
        }
        if (std::sscanf(size.c_str(), "%dx%d", &settings.width, &settings.height) != 2) {
          throw granray::ConfigError("--resolution " + size + ": expected WxH");
        }
        if (walks) {
          granray::ParticleView on_host;  // the grains frame the camera as in the frame
          on_host.xyzr = grains.data();
          on_host.count = grains.size();
          std::printf("%s, %s, the primary rays' walk:\n%s\n", scene.c_str(), size.c_str(),
                      granray::bench::describe(granray::bench::walk_census(grid, on_host, settings))
                          .c_str());
        }
        std::vector<std::string> timed = methods;
        if (brute) timed.push_back("brute-force");
        for (const std::string& method : timed) {
          const bool use_brute = method == "brute-force";
          granray::RenderOptions options;
          options.method = use_brute           ? granray::RenderMethod::brute_force
                           : method == "tiles" ? granray::RenderMethod::tiles
                           : method == "auto"  ? granray::RenderMethod::automatic
                                               : granray::RenderMethod::grid;
          options.count_rays =
              granray::lighting_on(settings.shading) || granray::materials_on(settings);
          granray::Image image;
          // Warm-up: allocations, uploads, and the static walls' tree.
          const double first_wall_ms = renderer.render(view, settings, image, options).wall_ms;
          std::vector<double> grid, render, total, secondary, wall_build, bounce, contacts;
          std::uint64_t secondary_rays = 0, bounce_rays = 0, primary_rays = 0;
          std::uint64_t references = 0;  // the grid's cell references or the tiles' entries
          granray::RenderMethod ran = options.method;
          const int frames = use_brute ? 1 : repeat;
          for (int r = 0; r < frames; ++r) {
            if (moving_walls && settings.walls) {
              settings.walls = std::make_shared<granray::WallList>(*settings.walls);
            }
            const auto st = renderer.render(view, settings, image, options);
            wall_build.push_back(st.wall_ms);
            references = st.grid_references;
            ran = st.method;
            grid.push_back(st.grid_ms);
            render.push_back(st.render_ms);
            total.push_back(st.total_ms);
            secondary.push_back(st.secondary_ms);
            secondary_rays = st.secondary_rays;
            bounce.push_back(st.bounce_ms);
            bounce_rays = st.bounce_rays;
            contacts.push_back(st.contact_ms);
          }
          if (contact_slack > 0.0f) {
            std::printf("network: %zu capsules, built in %.3f ms (the grains' grid %.3f ms)\n",
                        pairs.value.size(), median(contacts), median(grid));
          }
          if (settings.walls) {
            std::printf("walls: %zu triangles, tree built once in %.3f ms; %s\n",
                        (*settings.walls)[0].triangles.size(), first_wall_ms,
                        moving_walls ? ("rebuilt every frame: median " +
                                        std::to_string(median(wall_build)) + " ms")
                                           .c_str()
                                     : "kept for the timed frames");
          }
          if (annotate) {
            // The overlays on a copy of the frame, as the writer draws them (median of 20).
            granray::io::AnnotationSettings a;
            a.color_bar = true;
            a.label = "step {step}   t = {time:.4f} s   {particles} grains";
            granray::io::AnnotationValues v;
            v.step = 12500;
            v.time = 0.1;
            v.particles = grains.size();
            v.colored = true;
            v.hi = 2.0f;
            v.field = "speed";
            std::vector<double> overlay;
            for (int r = 0; r < 21; ++r) {
              granray::Image copy = image;
              const auto t0 = std::chrono::steady_clock::now();
              const std::string why = granray::io::draw_annotations(copy, a, v);
              overlay.push_back(
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                      .count());
              if (!why.empty()) std::fprintf(stderr, "granray-bench: %s\n", why.c_str());
            }
            overlay.erase(overlay.begin());  // the first loads the font
            std::printf("overlays (colour bar + label) on %dx%d: %.3f ms\n", settings.width,
                        settings.height, median(overlay));
          }
          if (path_samples > 0) {
            const double paths = double(settings.width) * settings.height * path_samples;
            std::printf(
                "path-traced still: %d paths per pixel, %d bounces, %.3f ms, %.1f M paths/s\n",
                path_samples, bounces, median(total), paths / (median(total) * 1e-3) / 1e6);
          } else if (materials) {
            // Every ray of the frame: the primary samples, their secondary rays, and the bounce
            // pass's rays with their own secondary rays, over the whole cast.
            primary_rays = std::uint64_t(settings.width) * std::uint64_t(settings.height) *
                           std::uint64_t(std::max(1, settings.shading.samples));
            const double all = double(primary_rays + secondary_rays + bounce_rays);
            std::printf(
                "materials: bounces %d, bounce pass %.3f ms, %llu bounce rays (with their "
                "secondary rays), %.1f M rays in all, %.1f M rays/s over the cast\n",
                bounces, median(bounce), static_cast<unsigned long long>(bounce_rays), all / 1e6,
                all / (median(render) * 1e-3) / 1e6);
          }
          // Secondary rays per second over the pass that traces them (lit frames).
          const double secondary_ms = median(secondary);
          const double secondary_rate =
              secondary_ms > 0.0 ? double(secondary_rays) / (secondary_ms * 1e-3) / 1e6 : 0.0;
          const double rays =
              double(settings.width) * settings.height / (median(render) * 1e-3) / 1e6;
          // The grid build against the bare hash + sort; the tiles' binning sorts other keys.
          const double ratio = ran == granray::RenderMethod::grid ? median(grid) / sort_ms : 0.0;
          const std::string shown =
              method == "auto" ? "auto(" + std::string(granray::render_method_name(ran)) + ")"
                               : method;
          std::printf(
              "%-7s %-8s %-11s %9zu %10s %10llu %8.3f %9.3f %6.2f %9.3f %9.3f %9.1f %9.3f %9.1f\n",
              granray::backend_name(renderer.backend()), scene.c_str(), shown.c_str(),
              grains.size(), size.c_str(), static_cast<unsigned long long>(references),
              median(grid), sort_ms, ratio, median(render), median(total), rays, secondary_ms,
              secondary_rate);
          if (out) {
            std::fprintf(out,
                         "%s  {\"backend\": \"%s\", \"scene\": \"%s\", \"method\": \"%s\", "
                         "\"particles\": %zu, \"width\": %d, \"height\": %d, \"grid_ms\": %.4f, "
                         "\"hash_sort_ms\": %.4f, \"grid_over_sort\": %.3f, \"render_ms\": %.4f, "
                         "\"frame_ms\": %.4f, \"mrays_per_s\": %.2f, \"entries\": %llu, "
                         "\"secondary_ms\": %.4f, \"secondary_rays\": %llu, "
                         "\"msecondary_per_s\": %.1f}",
                         first ? "" : ",\n", granray::backend_name(renderer.backend()),
                         scene.c_str(), shown.c_str(), grains.size(), settings.width,
                         settings.height, median(grid), sort_ms, ratio, median(render),
                         median(total), rays, static_cast<unsigned long long>(references),
                         secondary_ms, static_cast<unsigned long long>(secondary_rays),
                         secondary_rate);
            first = false;
          }
        }
      }
    }
    if (out) {
      std::fprintf(out, "\n]\n");
      std::fclose(out);
    }
  } catch (const granray::Error& e) {
    std::fprintf(stderr, "granray-bench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
