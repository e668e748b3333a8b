// Times sort-last compositing (granray::mpi::composite) of random depth images:
//   mpirun -np N granray-composite-bench [WxH ...]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "granray/insitu/mpi_frame.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::string> sizes(argv + 1, argv + argc);
  if (sizes.empty()) sizes = {"1920x1080", "3840x2160"};
  std::mt19937 rng(1234u + rank);
  for (const std::string& s : sizes) {
    granray::Image image;
    std::sscanf(s.c_str(), "%dx%d", &image.width, &image.height);
    const std::size_t n = std::size_t(image.width) * image.height;
    std::vector<double> times;
    for (int rep = 0; rep < 6; ++rep) {
      image.rgb.assign(3 * n, 0);
      image.depth.resize(n);
      image.hit_id.resize(n);
      for (std::size_t p = 0; p < n; ++p) {
        image.depth[p] = std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
        image.hit_id[p] = rng();
      }
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      granray::mpi::composite(image, MPI_COMM_WORLD);
      double t = MPI_Wtime() - t0;
      MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (rep > 0) times.push_back(t * 1e3);
    }
    std::sort(times.begin(), times.end());
    if (rank == 0) {
      std::printf("%d ranks, %s: composite %.2f ms (median of 5, slowest rank)\n", size, s.c_str(),
                  times[times.size() / 2]);
    }
  }
  MPI_Finalize();
  return 0;
}
