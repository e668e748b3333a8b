// A child process for the output tests: it renders frames into an HDF5 file and prints
// "written N" whenever the count of durable frames grows, so a parent can kill it at any moment
// and check the file; or it writes under a small file-size limit (a full disk).
//   writer_probe kill FILE.h5        renders frames forever
//   writer_probe full FILE.h5 BYTES  renders 20 frames with the file size limited to BYTES
//   writer_probe frames FILE.h5 N    renders N frames
#include <sys/resource.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "granray/adapters/buffers.h"
#include "granray/insitu/insitu_renderer.h"

int main(int argc, char** argv) {
  using namespace granray;
  if (argc < 3) return 2;
  const std::string mode = argv[1], path = argv[2];
  if (mode == "full") {
    rlimit limit{};
    limit.rlim_cur = limit.rlim_max = std::strtoull(argv[3], nullptr, 10);
    setrlimit(RLIMIT_FSIZE, &limit);
    std::signal(SIGXFSZ, SIG_IGN);  // writes past the limit fail with EFBIG, as on a full disk
  }
  std::vector<Vec4> grains;
  for (int i = 0; i < 200; ++i)
    grains.push_back({float(i % 7), float(i / 7 % 5), float(i / 35), 0.45f});
  const std::string toml =
      std::string("[insitu]\nevery = 1\nwidth = 96\nheight = 64\nbackend = \"cpu\"\n") +
      (mode == "full" ? "compression = 0\n" : "") + "output = \"" + path + "\"\n";
  InsituRenderer vis(parse_insitu_config(toml, "probe.toml"), {});
  const auto particles = adapters::host_particles(grains.data(), grains.size());
  std::uint64_t reported = 0;
  const int frames = mode == "full" ? 20 : mode == "frames" ? std::atoi(argv[3]) : 1 << 30;
  for (int step = 0; step < frames; ++step) {
    vis.render(step, 0.5 * step, particles);
    const std::uint64_t written = vis.counters().written;
    if (written != reported) {
      reported = written;
      std::printf("written %llu\n", static_cast<unsigned long long>(written));
      std::fflush(stdout);
    }
  }
  vis.finish();
  const InsituCounters c = vis.counters();
  std::printf("rendered %llu written %llu lost %llu failed %llu\n",
              static_cast<unsigned long long>(c.rendered),
              static_cast<unsigned long long>(c.written), static_cast<unsigned long long>(c.lost),
              static_cast<unsigned long long>(c.failed));
  return 0;
}
