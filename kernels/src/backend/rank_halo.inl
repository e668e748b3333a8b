// The buffers of a lit frame across ranks by halo (lit_across_ranks.inl): this rank's particles
// followed by its halo, the halo picked for the other ranks, and the queries and answers of
// secondary rays. Part of the backend (thrust_backend.inl).
#pragma once

#include "backend_prelude.inl"
#include "granray/kernels/lit_exchange.h"
#include "particle_residency.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// One grain of a halo as it waits in its rank's mailbox (HaloMailbox) for the rank whose box it
// reaches: the raw sphere, the global id and the selection value (0 where the frame has none).
struct HaloRecord {
  Vec4 xyzr;
  std::uint64_t id;
  float select;
  std::uint32_t unused;
};

static_assert(sizeof(HaloRecord) == kHaloRecordBytes, "a halo grain's bytes in a mailbox");

struct MakeHaloRecord {
  const std::uint32_t* picked;
  const Vec4* spheres;
  IdMap id_of;
  const float* select;
  GRANRAY_HD HaloRecord operator()(std::uint32_t k) const {
    const std::uint32_t i = picked[k];
    return {spheres[i], id_of(i), select != nullptr ? select[i] : 0.0f, 0u};
  }
};

// A rank's halo records, read out of another rank's mailbox into this rank's arrays.
struct UnpackHaloRecords {
  const HaloRecord* records;
  Vec4* spheres;
  std::uint64_t* ids;
  float* select;  // null: not asked for
  GRANRAY_HD void operator()(std::uint32_t k) const {
    const HaloRecord r = records[k];
    spheres[k] = r.xyzr;
    ids[k] = r.id;
    if (select != nullptr) select[k] = r.select;
  }
};

// The halos a rank picked for the others, in GPU memory that the other processes of the host map
// (CUDA IPC, as SharedPlanes): its records rank after rank, which each rank reads its part of
// straight into its particles, so no grain goes through host memory or a message.
class HaloMailbox {
 public:
  explicit HaloMailbox(detail::MemoryAccount& account) : own_(account, "halo mailbox") {}

  // This rank's mailbox for `records` grains (never fewer than before) and the handle other
  // processes map it by; the peers mapped before are let go (every rank makes its mailbox again
  // alike).
  std::vector<unsigned char> share(std::size_t records) {
    reset();
    own_.resize(std::max<std::size_t>({records, own_.size(), std::size_t{1}}));
    return PeerMemory::handle_of(own_.data());
  }

  // Maps every rank's mailbox (handles[self] is this rank's own, used in place).
  void open(const std::vector<std::vector<unsigned char>>& handles, int self) {
    reset();
    for (std::size_t q = 0; q < handles.size(); ++q) {
      if (static_cast<int>(q) == self) {
        records_.push_back(own_.data());
      } else {
        peers_.emplace_back(handles[q]);
        records_.push_back(static_cast<const HaloRecord*>(peers_.back().data()));
      }
    }
    capacity_ = own_.size();
  }

  // Lets the mapped peers go (a new set-up of the ranks' shared planes: share_planes).
  void reset() {
    peers_.clear();
    records_.clear();
    capacity_ = 0;
  }

  // Grains this rank's mailbox holds once every rank's is mapped; 0 before.
  std::size_t capacity() const { return capacity_; }
  HaloRecord* own() { return own_.data(); }
  const HaloRecord* of(int rank) const {
    if (rank < 0 || static_cast<std::size_t>(rank) >= records_.size()) {
      throw Error("granray: rank " + std::to_string(rank) + "'s halo mailbox is not mapped");
    }
    return records_[static_cast<std::size_t>(rank)];
  }

 private:
  Array<HaloRecord> own_;
  std::vector<PeerMemory> peers_;
  std::vector<const HaloRecord*> records_;  // every rank's, in rank order
  std::size_t capacity_ = 0;
};

// Where each rank's halo for this one lies in that rank's mailbox.
struct HaloInMailboxes {
  const HaloMailbox& mailboxes;
  const MailboxHalo& parts;
};

class RankHalo {
 public:
  explicit RankHalo(detail::MemoryAccount& account)
      : spheres_(account, "particles with their halo"),
        ids_(account, "ids of the particles with their halo"),
        select_(account, "selection values of the particles with their halo"),
        halo_spheres_(account, "halo particles"),
        halo_ids_(account, "halo particle ids"),
        halo_select_(account, "halo selection values"),
        picked_(account, "picked indices"),
        targets_(account, "ranks asked per sample"),
        picked_targets_(account, "ranks asked per query"),
        queries_(account, "secondary ray queries"),
        answers_(account, "secondary ray answers"),
        rays_answered_(account, "answered rays"),
        answered_(account, "answered samples"),
        shown_(account, "samples as shown"),
        holds_own_(account, "tiles holding this rank's grains") {}

  // This rank's grains within reach of `box`, as the receiving rank needs them: the raw sphere
  // (it hides them as this rank does), the global id, and the selection value when asked.
  // `shown`: the particles as drawn (hidden ones unrenderable), `all` as passed.
  void pick(const Executor& exec, const ResidentParticles& shown, const ResidentParticles& all,
            const IdMap& id_of, const RankBox& box, float reach, const float* select,
            HostParticles& out) {
    picked_.resize(shown.count);
    const auto end = thrust::copy_if(exec.policy(), Index(0), Index(shown.count), picked_.data(),
                                     ReachesBox{shown.spheres, box, reach});
    const std::size_t n = static_cast<std::size_t>(end - picked_.data());
    out.xyzr.resize(n);
    out.ids.resize(n);
    out.select.resize(select != nullptr ? n : 0);
    out.scalar.clear();
    if (n == 0) return;
    const std::uint32_t* first = picked_.data();
    halo_spheres_.resize(n);
    thrust::gather(exec.policy(), first, first + n, all.spheres, halo_spheres_.data());
    exec.download(halo_spheres_.data(), out.xyzr.data(), n);
    halo_ids_.resize(n);
    thrust::transform(exec.policy(), first, first + n, halo_ids_.data(), id_of);
    exec.download(halo_ids_.data(), out.ids.data(), n);
    if (select != nullptr) {
      halo_select_.resize(n);
      thrust::gather(exec.policy(), first, first + n, select, halo_select_.data());
      exec.download(halo_select_.data(), out.select.data(), n);
    }
  }

  // As pick, for every box at once, into the mailbox (post_picked): returns each box's count, and
  // keeps the picked grains, box after box, until then. Boxes beyond the reach, and `rank`'s own,
  // get none.
  std::vector<std::uint64_t> pick_for_mailbox(const Executor& exec, const ResidentParticles& shown,
                                              const ResidentParticles& all, const IdMap& id_of,
                                              const std::vector<RankBox>& boxes,
                                              const std::vector<bool>& near, float reach,
                                              const float* select) {
    std::vector<std::uint64_t> counts(boxes.size(), 0);
    const Index first(0), last(static_cast<std::uint32_t>(shown.count));
    std::size_t total = 0;
    for (std::size_t b = 0; b < boxes.size(); ++b) {
      if (!near[b]) continue;
      counts[b] = static_cast<std::uint64_t>(
          thrust::count_if(exec.policy(), first, last, ReachesBox{shown.spheres, boxes[b], reach}));
      total += counts[b];
    }
    picked_.resize(total);
    std::size_t at = 0;
    for (std::size_t b = 0; b < boxes.size(); ++b) {
      if (counts[b] == 0) continue;
      thrust::copy_if(exec.policy(), first, last, picked_.data() + at,
                      ReachesBox{shown.spheres, boxes[b], reach});
      at += counts[b];
    }
    posting_ = {all.spheres, id_of, select, total};
    return counts;
  }

  // The grains pick_for_mailbox kept, into this rank's mailbox; returns once they are there for
  // the others to read.
  void post_picked(const Executor& exec, HaloMailbox& mailbox) {
    if (posting_.count > mailbox.capacity()) {
      throw Error("granray: " + std::to_string(posting_.count) + " halo grains for a mailbox of " +
                  std::to_string(mailbox.capacity()));
    }
    if (posting_.count > 0) {
      thrust::transform(
          exec.policy(), Index(0), Index(static_cast<std::uint32_t>(posting_.count)), mailbox.own(),
          MakeHaloRecord{picked_.data(), posting_.spheres, posting_.id_of, posting_.select});
    }
    exec.synchronize();
  }

  // This rank's particles followed by its halo, in this backend's memory, with explicit ids.
  ParticleView combine(const Executor& exec, const ResidentParticles& own, std::uint64_t id_offset,
                       const float* own_select, const HostParticles& halo) {
    const std::size_t h = halo.xyzr.size();
    return combine_with(exec, own, id_offset, own_select, h, [&](std::size_t n) {
      append(exec, halo_spheres_, halo.xyzr, spheres_, n);
      append(exec, halo_ids_, halo.ids, ids_, n);
      if (own_select != nullptr && halo.select.size() == h) {
        append(exec, halo_select_, halo.select, select_, n);
      }
    });
  }

  // As combine, with each rank's part of the halo read from its mailbox.
  ParticleView combine(const Executor& exec, const ResidentParticles& own, std::uint64_t id_offset,
                       const float* own_select, const HaloInMailboxes& halo) {
    std::size_t h = 0;
    for (const std::uint64_t c : halo.parts.count) h += c;
    return combine_with(exec, own, id_offset, own_select, h, [&](std::size_t n) {
      std::size_t at = n;
      for (std::size_t q = 0; q < halo.parts.count.size(); ++q) {
        const std::uint64_t c = halo.parts.count[q];
        if (c == 0) continue;
        const HaloRecord* from = halo.mailboxes.of(static_cast<int>(q)) + halo.parts.first[q];
        thrust::for_each_n(
            exec.policy(), Index(0), static_cast<std::uint32_t>(c),
            UnpackHaloRecords{from, spheres_.data() + at, ids_.data() + at,
                              own_select != nullptr ? select_.data() + at : nullptr});
        at += c;
      }
    });
  }

 private:
  // This rank's `own` particles, then `h` halo grains that fill_halo(n) writes after the first n.
  template <class FillHalo>
  ParticleView combine_with(const Executor& exec, const ResidentParticles& own,
                            std::uint64_t id_offset, const float* own_select, std::size_t h,
                            FillHalo&& fill_halo) {
    const std::size_t n = own.count;
    spheres_.resize(n + h);
    ids_.resize(n + h);
    if (n > 0) {
      thrust::copy(exec.policy(), own.spheres, own.spheres + n, spheres_.data());
      if (own.ids != nullptr) {
        thrust::copy(exec.policy(), own.ids, own.ids + n, ids_.data());
      } else {
        thrust::sequence(exec.policy(), ids_.data(), ids_.data() + n, id_offset);
      }
    }
    if (own_select != nullptr) {
      select_.resize(n + h);
      if (n > 0) thrust::copy(exec.policy(), own_select, own_select + n, select_.data());
    }
    if (h > 0) fill_halo(n);
    ParticleView view;
    view.space = Executor::native_space;
    view.xyzr = spheres_.data();
    view.ids = ids_.data();
    view.count = n + h;
    if (own_select != nullptr) view.select_scalar = select_.data();
    return view;
  }

 public:
  // The samples with targets, as queries with their target words (`groups` each), on the host.
  void queries_to_host(const Executor& exec, const SurfaceSample* surfaces, std::size_t samples,
                       int groups, std::vector<SecondaryQuery>& queries,
                       std::vector<std::uint64_t>& targets) {
    picked_.resize(samples);
    const auto end =
        thrust::copy_if(exec.policy(), Index(0), Index(static_cast<std::uint32_t>(samples)),
                        picked_.data(), HasTargets{targets_.data(), groups});
    const std::size_t n = static_cast<std::size_t>(end - picked_.data());
    queries.resize(n);
    targets.resize(n * static_cast<std::size_t>(groups));
    if (n == 0) return;
    const std::uint32_t* first = picked_.data();
    queries_.resize(n);
    thrust::transform(exec.policy(), first, first + n, queries_.data(), QueryOfSample{surfaces});
    exec.download(queries_.data(), queries.data(), n);
    picked_targets_.resize(targets.size());
    thrust::transform(exec.policy(), Index(0), Index(static_cast<std::uint32_t>(targets.size())),
                      picked_targets_.data(), TargetWordOf{first, targets_.data(), groups});
    exec.download(picked_targets_.data(), targets.data(), targets.size());
  }

  // Per screen tile, whether it lists a grain of this rank (TileHoldsOwn).
  std::uint8_t* tiles_holding_own(std::size_t tiles) {
    holds_own_.resize(tiles);
    return holds_own_.data();
  }
  std::uint64_t* targets(std::size_t words) {
    targets_.resize(words);
    return targets_.data();
  }
  // Another rank's queries, uploaded; their answers' words.
  const SecondaryQuery* upload_queries(const Executor& exec,
                                       const std::vector<SecondaryQuery>& queries) {
    exec.upload(queries_, queries.data(), queries.size());
    return queries_.data();
  }
  std::uint32_t* answers(std::size_t words) {
    answers_.resize(words);
    return answers_.data();
  }
  // Whether each ray (or piece of a shadow ray) of the queries is blocked (lit_exchange.h).
  std::uint8_t* rays_answered(std::size_t count) {
    rays_answered_.resize(count);
    return rays_answered_.data();
  }
  void upload_answers(const Executor& exec, const std::vector<std::uint32_t>& samples,
                      const std::vector<std::uint32_t>& words) {
    exec.upload(answered_, samples.data(), samples.size());
    exec.upload(answers_, words.data(), words.size());
  }
  ShownSample* shown(std::size_t count) {
    shown_.resize(count);
    return shown_.data();
  }
  // Where shown samples in device memory are downloaded to, kept across frames.
  ShownSample* shown_on_host(std::size_t count) {
    shown_on_host_.resize(count);
    return shown_on_host_.data();
  }
  const std::uint32_t* answered() const { return answered_.data(); }
  const std::uint32_t* answer_words() const { return answers_.data(); }

 private:
  // Host values after the first `at` elements of `dst`, through `staging`.
  template <class T>
  static void append(const Executor& exec, Array<T>& staging, const std::vector<T>& values,
                     Array<T>& dst, std::size_t at) {
    if (values.empty()) return;
    exec.upload(staging, values.data(), values.size());
    thrust::copy(exec.policy(), staging.data(), staging.data() + values.size(), dst.data() + at);
  }

  // What pick_for_mailbox kept for post_picked.
  struct Posting {
    const Vec4* spheres = nullptr;
    IdMap id_of{nullptr, 0};
    const float* select = nullptr;
    std::size_t count = 0;
  };

  Posting posting_;
  Array<Vec4> spheres_;
  Array<std::uint64_t> ids_;
  Array<float> select_;
  Array<Vec4> halo_spheres_;
  Array<std::uint64_t> halo_ids_;
  Array<float> halo_select_;
  Array<std::uint32_t> picked_;
  Array<std::uint64_t> targets_;
  Array<std::uint64_t> picked_targets_;
  Array<SecondaryQuery> queries_;
  Array<std::uint32_t> answers_;
  Array<std::uint8_t> rays_answered_;
  Array<std::uint32_t> answered_;
  Array<ShownSample> shown_;
  std::vector<ShownSample> shown_on_host_;
  Array<std::uint8_t> holds_own_;
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
