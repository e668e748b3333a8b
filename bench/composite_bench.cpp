// Times sort-last compositing across MPI ranks:
//   mpirun -np N granray-composite-bench [--grains G] [--backend auto|cpu|cuda]
//                                        [--method auto|shared|swap] [WxH ...]
// For each image size: every rank has drawn every pixel (the worst case: overlapping bounds),
// then each rank has drawn only its 1/N strip of columns (slabs seen side-on: screen-space
// bounds cut what is sent). With --grains, a dense bed of G grains cut into x-slabs is rendered
// with render_distributed on each rank's GPU (node-local rank) or CPU, and every stage is timed.
// With --lit (shadows and 8 occlusion rays) the bed's frames are lit, across the ranks by
// --lit-way: gather (onto rank 0), halo, or auto (as the plugin decides); the bytes each
// rank sent are shown (the most of any rank). Medians of 5 after a warm-up; each value is the
// slowest rank's.
#include <mpi.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "granray/errors.h"
#include "granray/insitu/mpi_frame.h"

namespace {

int rank_of() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int size_of() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

double slowest(double mine) {
  MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return mine;
}

const char* method_name(granray::mpi::CompositeMethod m) {
  switch (m) {
    case granray::mpi::CompositeMethod::shared_memory:
      return "shared";
    case granray::mpi::CompositeMethod::binary_swap:
      return "swap";
    default:
      return "auto";
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Random depths in columns [x0, x1) of every row, background elsewhere.
void draw_random(granray::Image& image, int x0, int x1, std::mt19937& rng) {
  const std::size_t n = std::size_t(image.width) * image.height;
  image.rgb.assign(3 * n, 255);
  image.depth.assign(n, INFINITY);
  image.hit_id.assign(n, ~std::uint64_t{0});
  std::uniform_real_distribution<float> depth(0.0f, 1.0f);
  for (int y = 0; y < image.height; ++y) {
    for (int x = x0; x < x1; ++x) {
      const std::size_t p = std::size_t(y) * image.width + x;
      image.depth[p] = depth(rng);
      image.hit_id[p] = rng();
      image.rgb[3 * p] = static_cast<std::uint8_t>(rng());
    }
  }
}

void time_synthetic(granray::mpi::CompositeMethod method, int width, int height) {
  const int rank = rank_of(), size = size_of();
  std::mt19937 rng(1234u + rank);
  const granray::Vec3 white{1.0f, 1.0f, 1.0f};
  granray::mpi::Compositor compositor(method);
  for (const bool strips : {false, true}) {
    std::vector<double> times;
    for (int rep = 0; rep < 6; ++rep) {
      granray::Image image;
      image.width = width;
      image.height = height;
      const int x0 = strips ? width * rank / size : 0,
                x1 = strips ? width * (rank + 1) / size : width;
      draw_random(image, x0, x1, rng);
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      compositor.composite(image, white, MPI_COMM_WORLD);
      const double t = slowest(MPI_Wtime() - t0);
      if (rep > 0) times.push_back(1e3 * t);
    }
    if (rank == 0) {
      std::printf("%d ranks  %4dx%-4d  %-6s %-22s composite %8.2f ms\n", size, width, height,
                  method_name(compositor.method()),
                  strips ? "each rank a 1/N strip" : "every rank every pixel", median(times));
    }
  }
}

struct LitWay {
  bool lit = false;
  std::string way = "auto";
};

void time_rendered(granray::mpi::CompositeMethod method, long long grains,
                   granray::BackendKind backend, int width, int height, const LitWay& lit) {
  const int rank = rank_of(), size = size_of();
  // A dense bed on a jittered cubic lattice, 2 radii apart; each rank keeps its x-slab.
  const auto side = static_cast<long long>(std::ceil(std::cbrt(double(grains))));
  const float spacing = 2.0f, radius = 0.98f;
  std::vector<granray::Vec4> mine;
  std::vector<std::uint64_t> ids;
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> jitter(-0.01f, 0.01f);
  for (long long i = 0; i < grains; ++i) {
    const long long x = i % side, y = (i / side) % side, z = i / (side * side);
    const float jx = jitter(rng), jy = jitter(rng), jz = jitter(rng);
    if (x * size / side != rank) continue;
    mine.push_back({x * spacing + jx, y * spacing + jy, z * spacing + jz, radius});
    ids.push_back(static_cast<std::uint64_t>(i));
  }
  granray::ParticleView view;
  view.xyzr = mine.data();
  view.count = mine.size();
  view.ids = ids.data();
  granray::RenderSettings settings;
  settings.width = width;
  settings.height = height;
  if (lit.lit) {
    settings.shading.shadows = true;
    settings.shading.ao_samples = 8;
  }
  granray::Renderer renderer(backend);
  granray::Image image;
  granray::mpi::Compositor compositor(method);
  if (lit.way == "gather") compositor.gather_lit_frames_up_to(~std::uint64_t{0});
  if (lit.way == "halo") compositor.gather_lit_frames_up_to(0);
  std::vector<double> grid, cast, composite, frame, sent;
  for (int rep = 0; rep < 6; ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    const granray::FrameStats s = granray::mpi::render_distributed(renderer, MPI_COMM_WORLD, view,
                                                                   settings, image, &compositor);
    if (rep == 0) continue;
    grid.push_back(slowest(s.grid_ms));
    cast.push_back(slowest(s.render_ms));
    composite.push_back(slowest(s.composite_ms));
    frame.push_back(slowest(s.total_ms));
    sent.push_back(slowest(static_cast<double>(s.exchange_bytes)));
  }
  if (rank == 0) {
    std::printf(
        "%d ranks  %4dx%-4d  %-6s %lld grains on %s%s: grid %.2f ms, casting %.2f ms, composite "
        "%.2f ms, frame %.2f ms, sent %.1f MB\n",
        size, width, height, method_name(compositor.method()), grains,
        granray::backend_name(renderer.backend()), lit.lit ? (", lit by " + lit.way).c_str() : "",
        median(grid), median(cast), median(composite), median(frame), median(sent) / 1e6);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Times sort-last compositing across MPI ranks", "granray-composite-bench"};
  std::vector<std::string> sizes{"1920x1080", "3840x2160"};
  long long grains = 0;
  std::string backend = "auto";
  app.add_option("sizes", sizes, "image sizes WxH");
  app.add_option("--grains", grains, "also render a dense bed of this many grains in x-slabs");
  app.add_option("--backend", backend, "auto, cuda or cpu (with --grains)");
  LitWay lit;
  app.add_flag("--lit", lit.lit, "light the bed's frames: shadows and 8 occlusion rays");
  app.add_option("--lit-way", lit.way, "lit frames across ranks: auto, gather or halo")
      ->check(CLI::IsMember({"auto", "gather", "halo"}));
  bool synthetic = true;
  app.add_flag("!--no-synthetic", synthetic, "skip the synthetic images' composite");
  std::string method_option = "auto";
  app.add_option("--method", method_option, "compositing: auto, shared (memory) or swap (binary)")
      ->check(CLI::IsMember({"auto", "shared", "swap"}));
  CLI11_PARSE(app, argc, argv);
  const auto kind = granray::backend_from_name(backend);
  if (!kind) {
    std::fprintf(stderr, "granray-composite-bench: --backend must be auto, cuda or cpu\n");
    return 2;
  }
  using granray::mpi::CompositeMethod;
  const CompositeMethod method = method_option == "shared" ? CompositeMethod::shared_memory
                                 : method_option == "swap" ? CompositeMethod::binary_swap
                                                           : CompositeMethod::automatic;
  MPI_Init(&argc, &argv);
  int status = 0;
  try {
    if (*kind != granray::BackendKind::cpu) granray::mpi::use_node_local_gpu(MPI_COMM_WORLD);
    for (const std::string& s : sizes) {
      int width = 0, height = 0;
      if (std::sscanf(s.c_str(), "%dx%d", &width, &height) != 2 || width < 1 || height < 1) {
        throw granray::ConfigError("image size \"" + s + "\" is not WxH");
      }
      if (synthetic) time_synthetic(method, width, height);
      if (grains > 0) time_rendered(method, grains, *kind, width, height, lit);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "granray-composite-bench: rank %d: %s\n", rank_of(), e.what());
    status = 2;
    MPI_Abort(MPI_COMM_WORLD, status);
  }
  MPI_Finalize();
  return status;
}
