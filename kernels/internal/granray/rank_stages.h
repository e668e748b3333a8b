// The stages of a frame across MPI ranks: halos of grains, secondary-ray queries and their
// answers, GPU mailboxes and node-shared planes. The MPI frames (insitu/mpi/) drive them; a
// one-rank client never sees them: they are kept out of the public Renderer, and this header is
// not installed (kernels/internal/ is on the include path of libgranray_mpi and its tests only).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "granray/kernels/lit_queries.h"
#include "granray/renderer.h"

namespace granray {

// One frame's particles in host memory, every particle with its global id.
struct HostParticles {
  std::vector<Vec4> xyzr;
  std::vector<float> scalar;  // empty when the view has none
  std::vector<float> select;  // the view's select_scalar; empty when it has none
  // the view's material_values, per field slot; empty where it has none
  std::array<std::vector<float>, kMaterialFields> material;
  std::vector<std::uint64_t> ids;
};

// One frame's contact pairs (contract 2g) in host memory, each given whole: both grains' spheres
// and global ids (2 a pair, in the pair's order) and the pair's value.
struct HostPairs {
  std::vector<Vec4> spheres;
  std::vector<std::uint64_t> ids;
  std::vector<float> value;
};

// Where the other ranks' halos for this rank lie in their mailboxes (RankStages::pick_halo): per
// rank q, `count[q]` grains from record `first[q]` of q's mailbox (none from this rank itself).
// Bytes a halo grain takes in a mailbox: sphere, global id, selection value, padding.
constexpr std::uint64_t kHaloRecordBytes = 32;

struct MailboxHalo {
  std::vector<std::uint64_t> first;
  std::vector<std::uint64_t> count;
};

class RankStages {
 public:
  virtual ~RankStages() = default;

  // Copies a view's particles (host memory, or this backend's device memory) to the host, with
  // explicit ids (index + id_offset where the view has none): lit frames over ranks gather them.
  virtual void copy_to_host(const ParticleView& particles, HostParticles& out) = 0;

  // Copies a view's contact pairs (host memory, or this backend's device memory, by index into
  // the view's particles or given whole) to the host, given whole: ranks gather them (contract
  // 2g). Every pair is kept as given; a pair by index past the particles gets a broken sphere
  // (NaN) and the id ~0, so that whoever draws it leaves it out and counts it.
  virtual void copy_contacts_to_host(const ParticleView& particles, HostPairs& out) = 0;

  // A lit frame (contract 2a) across ranks by halo (mpi::render_distributed; why it is exact:
  // kernels/lit_exchange.h). Every rank, in order: halo_for gives, per rank r, this rank's
  // grains within reach of boxes[r] (none for its own); cast_with_halo casts this rank's samples
  // over its grains followed by `halo` (the other ranks' grains near its box), tests their
  // secondary rays against both, and lists the samples (`queries`, with the ranks to ask as bits
  // of target_words(ranks) 64-bit words each in `targets`) whose open rays cross other ranks'
  // boxes; answer_queries tests other ranks' queries against the same grains (mask words per
  // query); shade_with_answers ORs the answers (one per sample: `samples`, with their words) into
  // the samples' bits, shades, and fills the image with depth and ids (each pixel's first sample).
  // The samples of grains in the halo, and of walls unless `keep_walls`, are left to other ranks:
  // the image shows the background there.
  virtual std::vector<HostParticles> halo_for(const ParticleView& particles,
                                              const RenderSettings& settings,
                                              const RenderOptions& options,
                                              const std::vector<RankBox>& boxes, int rank) = 0;
  virtual FrameStats cast_with_halo(const ParticleView& particles, const RenderSettings& settings,
                                    const RenderOptions& options, const HostParticles& halo,
                                    const std::vector<RankBox>& boxes, int rank, bool keep_walls,
                                    std::vector<SecondaryQuery>& queries,
                                    std::vector<std::uint64_t>& targets) = 0;
  virtual double answer_queries(const std::vector<SecondaryQuery>& queries,
                                std::vector<std::uint32_t>& words) = 0;
  virtual void shade_with_answers(const RenderSettings& settings,
                                  const std::vector<std::uint32_t>& samples,
                                  const std::vector<std::uint32_t>& words, Image& image,
                                  FrameStats& stats) = 0;

  // The halos in GPU memory instead of messages (CUDA ranks of one host, once share_planes has
  // set them up; other backends throw Error): pick_halo picks what halo_for would and returns
  // how many grains go to each rank; halo_mailbox_capacity is how many this renderer's mailbox
  // holds while every rank's is mapped (0 before, and again after share_planes);
  // share_halo_mailbox makes it hold `grains` and returns its handle, open_halo_mailboxes maps
  // every rank's; post_halo writes the picked grains into it, rank after rank, and returns once
  // they are there; then cast_with_halo takes each rank's grains for this one straight from its
  // mailbox. A rank may post again only after every rank's cast has returned.
  virtual std::vector<std::uint64_t> pick_halo(const ParticleView& particles,
                                               const RenderSettings& settings,
                                               const RenderOptions& options,
                                               const std::vector<RankBox>& boxes, int rank) = 0;
  virtual std::size_t halo_mailbox_capacity() = 0;
  virtual std::vector<unsigned char> share_halo_mailbox(std::size_t grains) = 0;
  virtual void open_halo_mailboxes(const std::vector<std::vector<unsigned char>>& handles,
                                   int self) = 0;
  virtual void post_halo(void* cuda_stream) = 0;
  virtual FrameStats cast_with_halo(const ParticleView& particles, const RenderSettings& settings,
                                    const RenderOptions& options, const MailboxHalo& halo,
                                    const std::vector<RankBox>& boxes, int rank, bool keep_walls,
                                    std::vector<SecondaryQuery>& queries,
                                    std::vector<std::uint64_t>& targets) = 0;

  // With several samples per pixel, instead of shade_with_answers: every sample of the window
  // as this rank shows it (colour, depth, id), pixel by pixel, for a composite of samples.
  virtual HostSamples shade_samples_with_answers(const std::vector<std::uint32_t>& samples,
                                                 const std::vector<std::uint32_t>& words) = 0;

  // Sort-last compositing in GPU memory among the processes of one host (mpi::Compositor; CUDA
  // backend, others throw Error). share_planes makes this renderer's planes for frames of
  // `pixels` and returns the handle other processes map them by (CUDA IPC); open_shared_planes
  // maps every rank's by their handles (handles[self] is this renderer's own); a render with
  // RenderOptions::share_planes then leaves its frame in them, and once every rank's render has
  // returned, composite_shared_planes merges all of them into `image` (rgb, with depth and ids
  // when `with_hits`) as mpi::composite does. Throws DeviceError where a mapping fails.
  virtual std::vector<unsigned char> share_planes(std::size_t pixels) = 0;
  virtual void open_shared_planes(const std::vector<std::vector<unsigned char>>& handles,
                                  int self) = 0;
  virtual void composite_shared_planes(void* cuda_stream, const RenderSettings& settings,
                                       bool with_hits, Image& image, FrameStats& stats) = 0;
};

// The stages of the backend `renderer` renders on.
RankStages& rank_stages(Renderer& renderer);

}  // namespace granray
