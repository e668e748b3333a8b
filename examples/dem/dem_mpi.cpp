#include "dem_mpi.h"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "granray/errors.h"
#include "granray/insitu/mpi_frame.h"

namespace granray::dem {
namespace {

#define GRANRAY_DEM_MPI_CHECK(call) granray::mpi::check((call), #call)

class MpiSlabs final : public SlabExchange {
 public:
  explicit MpiSlabs(MPI_Comm comm) : comm_(comm) {
    GRANRAY_DEM_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    GRANRAY_DEM_MPI_CHECK(MPI_Comm_size(comm_, &ranks_));
    lower_ = rank_ > 0 ? rank_ - 1 : MPI_PROC_NULL;
    upper_ = rank_ + 1 < ranks_ ? rank_ + 1 : MPI_PROC_NULL;
  }

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }

  void swap(const std::vector<Grain>& to_lower, const std::vector<Grain>& to_upper,
            std::vector<Grain>& from_lower, std::vector<Grain>& from_upper) override {
    // Upward first (send to upper, receive from lower), then downward; counts before grains.
    shift(to_upper, upper_, from_lower, lower_);
    shift(to_lower, lower_, from_upper, upper_);
  }

  Energy combine(const Energy& mine) override {
    double sums[2] = {mine.kinetic, mine.potential};
    float extremes[2] = {mine.max_overlap, -mine.min_gap};
    GRANRAY_DEM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm_));
    GRANRAY_DEM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, extremes, 2, MPI_FLOAT, MPI_MAX, comm_));
    return {sums[0], sums[1], extremes[0], -extremes[1]};
  }

  std::uint64_t sum(std::uint64_t mine) override {
    GRANRAY_DEM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_UINT64_T, MPI_SUM, comm_));
    return mine;
  }

  [[noreturn]] void abort(const std::string& why) override {
    std::fprintf(stderr, "granray-dem: rank %d: %s\n", rank_, why.c_str());
    std::fflush(stderr);
    MPI_Abort(comm_, 3);
    std::abort();  // MPI_Abort does not return; this keeps [[noreturn]] honest
  }

 private:
  void shift(const std::vector<Grain>& out, int to, std::vector<Grain>& in, int from) {
    constexpr int kCountTag = 5301, kGrainTag = 5302;
    unsigned long long sending = out.size(), receiving = 0;
    GRANRAY_DEM_MPI_CHECK(MPI_Sendrecv(&sending, 1, MPI_UNSIGNED_LONG_LONG, to, kCountTag,
                                       &receiving, 1, MPI_UNSIGNED_LONG_LONG, from, kCountTag,
                                       comm_, MPI_STATUS_IGNORE));
    in.resize(from == MPI_PROC_NULL ? 0 : receiving);
    GRANRAY_DEM_MPI_CHECK(MPI_Sendrecv(out.data(), bytes(out.size()), MPI_BYTE, to, kGrainTag,
                                       in.data(), bytes(in.size()), MPI_BYTE, from, kGrainTag,
                                       comm_, MPI_STATUS_IGNORE));
  }

  static int bytes(std::size_t grains) {
    const std::size_t b = grains * sizeof(Grain);
    if (b > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      throw Error("granray-dem: " + std::to_string(grains) +
                  " grains are too many for one MPI message");
    }
    return static_cast<int>(b);
  }

  MPI_Comm comm_;
  int rank_ = 0, ranks_ = 1;
  int lower_ = MPI_PROC_NULL, upper_ = MPI_PROC_NULL;
};

}  // namespace

std::shared_ptr<SlabExchange> make_mpi_slabs(MPI_Comm comm) {
  return std::make_shared<MpiSlabs>(comm);
}

}  // namespace granray::dem
