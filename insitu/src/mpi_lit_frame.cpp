#include "mpi_lit_frame.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "granray/errors.h"
#include "mpi_agree.h"

namespace granray::mpi::detail {

namespace {

// Per-sample surfaces travel as opaque records; the nearest of two is a total order (ties go to
// the smaller id), so the reduction's result does not depend on the order ranks combine in.
void keep_nearest_surface(void* in, void* inout, int* count, MPI_Datatype*) {
  const auto* theirs = static_cast<const SurfaceSample*>(in);
  auto* mine = static_cast<SurfaceSample*>(inout);
  for (int k = 0; k < *count; ++k) {
    if (nearer_surface(theirs[k], mine[k])) mine[k] = theirs[k];
  }
}

// An MPI datatype and reduction made for one frame and freed with it.
class SurfaceReduction {
 public:
  SurfaceReduction() {
    GRANRAY_MPI_CHECK(MPI_Type_contiguous(sizeof(SurfaceSample), MPI_BYTE, &type_));
    GRANRAY_MPI_CHECK(MPI_Type_commit(&type_));
    GRANRAY_MPI_CHECK(MPI_Op_create(keep_nearest_surface, 1, &op_));
  }
  SurfaceReduction(const SurfaceReduction&) = delete;
  SurfaceReduction& operator=(const SurfaceReduction&) = delete;
  ~SurfaceReduction() {
    if (op_ != MPI_OP_NULL) MPI_Op_free(&op_);
    if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
  }
  MPI_Datatype type() const { return type_; }
  MPI_Op op() const { return op_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Op op_ = MPI_OP_NULL;
};

// Reductions go in pieces: counts are ints, and MPI's own buffers grow with a message.
constexpr std::size_t kReductionPiece = std::size_t{1} << 22;

void keep_nearest_surfaces(std::vector<SurfaceSample>& surfaces, MPI_Comm comm) {
  const SurfaceReduction reduction;
  for (std::size_t first = 0; first < surfaces.size(); first += kReductionPiece) {
    const int count = static_cast<int>(std::min(kReductionPiece, surfaces.size() - first));
    GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, surfaces.data() + first, count, reduction.type(),
                                    reduction.op(), comm));
  }
}

void or_blocked_onto_rank0(std::vector<std::uint32_t>& blocked, int rank, MPI_Comm comm) {
  for (std::size_t first = 0; first < blocked.size(); first += kReductionPiece) {
    const int count = static_cast<int>(std::min(kReductionPiece, blocked.size() - first));
    std::uint32_t* words = blocked.data() + first;
    GRANRAY_MPI_CHECK(MPI_Reduce(rank == 0 ? MPI_IN_PLACE : words, rank == 0 ? words : nullptr,
                                 count, MPI_UINT32_T, MPI_BOR, 0, comm));
  }
}

// Gathers one kind of per-particle value onto rank 0, rank after rank.
template <class T>
void gather_onto_rank0(const std::vector<T>& mine, std::vector<T>& all, int components,
                       MPI_Datatype type, const std::vector<int>& counts, int rank, MPI_Comm comm) {
  std::vector<int> sizes, offsets;
  if (rank == 0) {
    std::size_t total = 0;
    for (const int c : counts) {
      offsets.push_back(static_cast<int>(total * components));
      sizes.push_back(c * components);
      total += static_cast<std::size_t>(c);
    }
    all.resize(total);
  }
  GRANRAY_MPI_CHECK(MPI_Gatherv(mine.data(), static_cast<int>(mine.size()) * components, type,
                                all.data(), sizes.data(), offsets.data(), type, 0, comm));
}

}  // namespace

// SPEC 2a over ranks. A shadow ray crosses the whole domain, so no ghost layer would do: every
// rank finds its own nearest surface per sample and all ranks keep the nearest of all; every
// rank then finds which of those surfaces' secondary rays its own particles block; the blocked
// bits are OR-ed onto rank 0, which shades. Each step agrees first, so a rank that fails leaves
// none waiting in a collective.
FrameStats render_lit_distributed(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                                  const RenderSettings& settings, const RenderOptions& options,
                                  Image& image) {
  int rank = 0;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  std::vector<SurfaceSample> surfaces;
  std::vector<std::uint32_t> blocked;
  FrameStats stats;
  agreed_step("finding the visible surfaces", comm,
              [&] { stats = renderer.find_surfaces(view, settings, options, surfaces); });
  auto exchange_start = std::chrono::steady_clock::now();
  keep_nearest_surfaces(surfaces, comm);
  double exchange_ms = ms_since(exchange_start);
  agreed_step("tracing shadow and occlusion rays", comm, [&] {
    stats.secondary_ms = renderer.find_blockers(view, settings, options, surfaces, blocked);
  });
  exchange_start = std::chrono::steady_clock::now();
  or_blocked_onto_rank0(blocked, rank, comm);
  exchange_ms += ms_since(exchange_start);
  agreed_step("shading", comm, [&] {
    if (rank == 0) renderer.shade_surfaces(settings, options, surfaces, blocked, image);
  });
  stats.render_ms += stats.secondary_ms;
  stats.composite_ms = exchange_ms;
  return stats;
}

// SPEC 2a over ranks while the particles fit on one: rank 0 gathers every rank's particles, with
// their global ids and scalars, and renders the frame alone, as one rank would.
FrameStats render_lit_gathered(Renderer& renderer, MPI_Comm comm, const ParticleView& view,
                               const RenderSettings& settings, RenderOptions options, Image& image,
                               Composited result) {
  options.same_particles = false;  // rank 0 renders a gathered copy, made again for each band
  int rank = 0, size = 1;
  GRANRAY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  GRANRAY_MPI_CHECK(MPI_Comm_size(comm, &size));
  const auto start = std::chrono::steady_clock::now();
  HostParticles mine;
  agreed_step("copying the particles to the host", comm,
              [&] { renderer.copy_to_host(view, mine); });
  // A scalar only when every rank that has particles offers one.
  int scalar = mine.xyzr.empty() || !mine.scalar.empty() ? 1 : 0;
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &scalar, 1, MPI_INT, MPI_MIN, comm));
  if (scalar == 1) mine.scalar.resize(mine.xyzr.size());           // a rank without particles
  int select = mine.xyzr.empty() || !mine.select.empty() ? 1 : 0;  // SPEC 2d values, likewise
  GRANRAY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &select, 1, MPI_INT, MPI_MIN, comm));
  if (select == 1) mine.select.resize(mine.xyzr.size());
  const int count = static_cast<int>(mine.xyzr.size());
  std::vector<int> counts(rank == 0 ? size : 0);
  GRANRAY_MPI_CHECK(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  HostParticles all;
  gather_onto_rank0(mine.xyzr, all.xyzr, 4, MPI_FLOAT, counts, rank, comm);
  gather_onto_rank0(mine.ids, all.ids, 1, MPI_UINT64_T, counts, rank, comm);
  if (scalar == 1) gather_onto_rank0(mine.scalar, all.scalar, 1, MPI_FLOAT, counts, rank, comm);
  if (select == 1) gather_onto_rank0(mine.select, all.select, 1, MPI_FLOAT, counts, rank, comm);
  const double gather_ms = ms_since(start);
  FrameStats stats;
  agreed_step("rendering the gathered frame", comm, [&] {
    if (rank != 0) return;
    ParticleView everything;
    everything.xyzr = all.xyzr.data();
    everything.count = all.xyzr.size();
    everything.ids = all.ids.data();
    everything.scalar = scalar == 1 ? all.scalar.data() : nullptr;
    everything.select_scalar = select == 1 ? all.select.data() : nullptr;
    options.particle_bounds.reset();  // this rank's own no longer
    options.with_hits = result == Composited::rgb_depth_ids;
    options.copy_drawn_only = false;
    stats = renderer.render(everything, settings, image, options);
  });
  stats.composite_ms = gather_ms;
  return stats;
}

}  // namespace granray::mpi::detail
