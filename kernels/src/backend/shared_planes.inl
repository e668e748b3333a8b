// A rank's frame planes (hit ids, depths, colours) in GPU memory that the other processes of the
// host map (CUDA IPC), for sort-last compositing without a pixel leaving the GPUs
// (mpi::Compositor): every rank copies its frame in, and rank 0 merges all of them straight out
// of each rank's memory into its own frame, then delivers that as a one-rank frame. Part of the
// backend (thrust_backend.inl). The backend file defines PeerMemory: handle_of(base) gives an
// allocation's handle, and an object made from a handle maps that memory until destroyed (the CPU's
// throws Error).
#pragma once

#include "backend_prelude.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// One rank's planes, each plane's start aligned for its type: ids, then depths, then colours.
struct RankPlanes {
  std::uint64_t* ids;
  float* depth;
  Rgb8* rgb;
};

inline std::size_t shared_plane_bytes(std::size_t pixels) {
  return pixels * (sizeof(std::uint64_t) + sizeof(float) + sizeof(Rgb8));
}

inline RankPlanes rank_planes_at(void* base, std::size_t pixels) {
  auto* bytes = static_cast<unsigned char*>(base);
  return {reinterpret_cast<std::uint64_t*>(bytes),
          reinterpret_cast<float*>(bytes + sizeof(std::uint64_t) * pixels),
          reinterpret_cast<Rgb8*>(bytes + (sizeof(std::uint64_t) + sizeof(float)) * pixels)};
}

// Per pixel the nearest hit over the ranks in rank order, at equal depth the smaller id (a
// primary ray's rule, `closer`, which every other compositor follows too), else the background:
// the one-rank image.
struct MergeRankPlanes {
  const RankPlanes* ranks;
  int count;
  Rgb8 background;
  Rgb8* rgb;
  float* depth;  // null: the colours alone
  std::uint64_t* ids;
  GRANRAY_HD void operator()(std::uint32_t i) const {
    Hit nearest = no_hit();
    Rgb8 color = background;
    for (int q = 0; q < count; ++q) {
      const float d = ranks[q].depth[i];
      const std::uint64_t id = ranks[q].ids[i];
      if (closer(d, id, nearest)) {
        nearest = {d, id, static_cast<std::uint32_t>(q)};
        color = ranks[q].rgb[i];
      }
    }
    rgb[i] = color;
    if (depth != nullptr) {
      depth[i] = nearest.t;
      ids[i] = nearest.id;
    }
  }
};

class SharedPlanes {
 public:
  explicit SharedPlanes(detail::MemoryAccount& account)
      : own_(account, "shared frame planes"), ranks_(account, "ranks' shared planes") {}

  // This rank's planes for frames of `pixels`, and the handle other processes map them by.
  // The peers mapped before are let go: their planes are made again alike.
  std::vector<unsigned char> share(std::size_t pixels) {
    peers_.clear();
    count_ = 0;
    own_.resize(shared_plane_bytes(pixels));
    pixels_ = pixels;
    return PeerMemory::handle_of(own_.data());
  }

  // Maps every rank's planes (handles[self] is this rank's own, used in place).
  void open(const Executor& exec, const std::vector<std::vector<unsigned char>>& handles,
            int self) {
    peers_.clear();
    peers_.reserve(handles.size());
    std::vector<RankPlanes> planes;
    for (std::size_t q = 0; q < handles.size(); ++q) {
      if (static_cast<int>(q) == self) {
        planes.push_back(rank_planes_at(own_.data(), pixels_));
      } else {
        peers_.emplace_back(handles[q]);
        planes.push_back(rank_planes_at(peers_.back().data(), pixels_));
      }
    }
    exec.upload(ranks_, planes.data(), planes.size());
    exec.synchronize();
    count_ = static_cast<int>(planes.size());
  }

  // This rank's frame into its planes; returns once they are there for the others to read.
  void publish(const Executor& exec, const Rgb8* rgb, const float* depth, const std::uint64_t* ids,
               std::size_t pixels) {
    check_size(pixels);
    const RankPlanes mine = rank_planes_at(own_.data(), pixels_);
    thrust::copy_n(exec.policy(), ids, pixels, mine.ids);
    thrust::copy_n(exec.policy(), depth, pixels, mine.depth);
    thrust::copy_n(exec.policy(), rgb, pixels, mine.rgb);
    exec.synchronize();
  }

  // Every rank's planes merged into `rgb` (and `depth`, `ids` unless null); returns once done,
  // so the other ranks may overwrite their planes afterwards.
  void merge(const Executor& exec, Rgb8 background, Rgb8* rgb, float* depth, std::uint64_t* ids,
             std::size_t pixels) {
    check_size(pixels);
    if (count_ == 0) throw Error("granray: the ranks' shared planes are not mapped");
    thrust::for_each_n(exec.policy(), Index(0), pixels,
                       MergeRankPlanes{ranks_.data(), count_, background, rgb, depth, ids});
    exec.synchronize();
  }

 private:
  void check_size(std::size_t pixels) const {
    if (pixels != pixels_) {
      throw Error("granray: a frame of " + std::to_string(pixels) +
                  " pixels, but the shared planes were made for " + std::to_string(pixels_));
    }
  }

  Array<unsigned char> own_;
  Array<RankPlanes> ranks_;        // every rank's, in rank order, for the merge
  std::vector<PeerMemory> peers_;  // the other ranks' planes, mapped
  std::size_t pixels_ = 0;
  int count_ = 0;
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
