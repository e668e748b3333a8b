// The pairs of a frame ordered by their grains' ids, the smaller then the larger, ties in the
// order given, where the ids are too wide to make the capsules' keys themselves
// (packed_capsule_key): a capsule's place in this order is then its key (the tie order of
// contract 2g, and its hit id), the same on any number of ranks and whatever order the pairs
// arrive in. Part of the backend (thrust_backend.inl).
#pragma once

#include <cstdint>

#include "backend_prelude.inl"
#include "contact_pairs.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

// The pair's smaller and larger grain id: the capsules are ordered by them, so that a capsule's
// index (the tie order of contract 2g, and its hit id) is the same on any number of ranks.
struct PairIdLow {
  PairSource pairs;
  GRANRAY_HD std::uint64_t operator()(std::uint32_t k) const {
    const std::uint64_t a = pairs.id(k, 0), b = pairs.id(k, 1);
    return a < b ? a : b;
  }
};
struct PairIdHigh {
  PairSource pairs;
  GRANRAY_HD std::uint64_t operator()(std::uint32_t k) const {
    const std::uint64_t a = pairs.id(k, 0), b = pairs.id(k, 1);
    return a < b ? b : a;
  }
};
// Both ids in one key of 2 * bits bits, the smaller above the larger, when each fits in `bits`
// bits: one sort then orders the pairs as the two stable sorts by the larger and then the smaller
// id do. A pair not drawn sorts last (its capsule is empty wherever it stands): its key has all
// 2 * bits bits set, which no drawn pair's has (its smaller id is below its larger).
struct PairIdKey {
  PairSource pairs;
  int bits;
  GRANRAY_HD std::uint64_t operator()(std::uint32_t k) const {
    if (!pairs.drawable(k))
      return bits >= 32 ? ~std::uint64_t{0} : (std::uint64_t{1} << (2 * bits)) - 1u;
    const std::uint64_t a = pairs.id(k, 0), b = pairs.id(k, 1);
    return a < b ? (a << bits) | b : (b << bits) | a;
  }
};

// The pairs by their smaller grain id without a sort (ContactOrder::by_buckets): one bucket
// per id from the frame's smallest, and one past them for the pairs not drawn. Each pair takes the
// next place in its bucket; the order inside a bucket is then made the stable sort's.
struct PairBucket {
  PairSource pairs;
  std::uint64_t bottom_id;
  std::uint32_t undrawn;  // the bucket of the pairs not drawn
  GRANRAY_HD std::uint32_t operator()(std::uint32_t k) const {
    if (!pairs.drawable(k)) return undrawn;
    const std::uint64_t a = pairs.id(k, 0), b = pairs.id(k, 1);
    return static_cast<std::uint32_t>((a < b ? a : b) - bottom_id);
  }
};

struct CountInBucket {
  PairBucket bucket_of;
  std::uint32_t* counts;
  std::uint32_t* place;  // each pair's place in its bucket, in no particular order
  GRANRAY_HD void operator()(std::uint32_t k) const {
    place[k] = atomic_fetch_add(counts + bucket_of(k), 1u);
  }
};

struct PlaceInBucket {
  PairBucket bucket_of;
  const std::uint32_t* offsets;
  const std::uint32_t* place;
  std::uint32_t* order;
  std::uint64_t* high;  // the larger grain id of each placed pair
  GRANRAY_HD void operator()(std::uint32_t k) const {
    const std::uint32_t at = offsets[bucket_of(k)] + place[k];
    order[at] = k;
    high[at] = PairIdHigh{bucket_of.pairs}(k);  // read only for pairs drawn
  }
};

// Bucket b's pairs by the larger id, then as given: what the stable sorts leave there. Insertion,
// since a grain has a few contacts (buckets of more than kMostPairsSortedInABucket take the sort).
struct SortBucket {
  const std::uint32_t* offsets;
  std::uint32_t* order;
  std::uint64_t* high;
  GRANRAY_HD void operator()(std::uint32_t b) const {
    const std::uint32_t first = offsets[b], end = offsets[b + 1];
    for (std::uint32_t i = first + 1; i < end; ++i) {
      const std::uint32_t k = order[i];
      const std::uint64_t h = high[i];
      std::uint32_t j = i;
      for (; j > first && (high[j - 1] > h || (high[j - 1] == h && order[j - 1] > k)); --j) {
        order[j] = order[j - 1];
        high[j] = high[j - 1];
      }
      order[j] = k;
      high[j] = h;
    }
  }
};

class ContactOrder {
  // Buckets of the bucketed order at most, per pair (the ids' span); and pairs in one bucket at
  // most (its insertion sort is one thread's).
  static constexpr std::uint64_t kMostBucketsPerPair = 4;
  static constexpr std::uint32_t kMostPairsSortedInABucket = 64;

 public:
  explicit ContactOrder(detail::MemoryAccount& account)
      : order_(account, "contact pairs by id"),
        keys_(account, "contact pair id keys"),
        sorted_keys_(account, "sorted contact pair id keys"),
        sorted_order_(account, "contact pairs by id, sorted"),
        bucket_offsets_(account, "contact pairs per grain id"),
        place_(account, "contact pair places") {}

  // The pairs by their grains' ids, the smaller then the larger, ties in the order given (the
  // sorts are stable). Where the ids span at most a few per pair (any frame whose grains are
  // numbered from some id on), by buckets of the smaller id, without a sort. Else ids below 2^32
  // make one 64-bit key of both and one sort, radix on the GPU; larger ids, two stable sorts.
  template <class E>
  const std::uint32_t* by_ids(const E& exec, const PairSource& source, std::uint32_t n,
                              const PairCensus& census) {
    const std::uint64_t span = census.top_id - census.bottom_id;
    if (span < kMostBucketsPerPair * std::uint64_t{n} + 1024u && span < 0xffff0000u) {
      const std::uint32_t* order = by_buckets(exec, source, n, census);
      if (order != nullptr) return order;
    }
    auto policy = exec.policy();
    order_.resize(n);
    keys_.resize(n);
    thrust::sequence(policy, order_.data(), order_.data() + n);
    const int bits = id_bits(census.top_id);
    if (bits > 32) {
      thrust::transform(policy, Index(0), Index(n), keys_.data(), PairIdHigh{source});
      thrust::stable_sort_by_key(policy, keys_.data(), keys_.data() + n, order_.data());
      thrust::transform(policy, order_.data(), order_.data() + n, keys_.data(), PairIdLow{source});
      thrust::stable_sort_by_key(policy, keys_.data(), keys_.data() + n, order_.data());
      return order_.data();
    }
    thrust::transform(policy, Index(0), Index(n), keys_.data(), PairIdKey{source, bits});
    if constexpr (E::lists_by_sorting) {
      sorted_keys_.resize(n);
      sorted_order_.resize(n);
      return exec
          .sort_pairs(keys_.data(), order_.data(), sorted_keys_.data(), sorted_order_.data(), n,
                      2 * bits)
          .second;
    } else {
      thrust::stable_sort_by_key(policy, keys_.data(), keys_.data() + n, order_.data());
      return order_.data();
    }
  }

 private:
  // by_ids by buckets: count each smaller id's pairs, scan, place, and sort each bucket
  // in place. Null when a bucket holds more than kMostPairsSortedInABucket pairs (a grain that
  // touches that many is no packing's: the sort then serves).
  template <class E>
  const std::uint32_t* by_buckets(const E& exec, const PairSource& source, std::uint32_t n,
                                  const PairCensus& census) {
    auto policy = exec.policy();
    const auto undrawn = static_cast<std::uint32_t>(census.top_id - census.bottom_id + 1u);
    const std::size_t buckets = std::size_t{undrawn} + 1u;
    const PairBucket bucket_of{source, census.bottom_id, undrawn};
    bucket_offsets_.resize(buckets + 1);
    place_.resize(n);
    thrust::fill_n(policy, bucket_offsets_.data(), buckets + 1, 0u);
    thrust::for_each_n(policy, Index(0), n,
                       CountInBucket{bucket_of, bucket_offsets_.data(), place_.data()});
    const std::uint32_t fullest =
        thrust::reduce(policy, bucket_offsets_.data(), bucket_offsets_.data() + undrawn, 0u,
                       thrust::maximum<std::uint32_t>());
    if (fullest > kMostPairsSortedInABucket) return nullptr;
    thrust::exclusive_scan(policy, bucket_offsets_.data(), bucket_offsets_.data() + buckets + 1,
                           bucket_offsets_.data());
    order_.resize(n);
    keys_.resize(n);
    thrust::for_each_n(policy, Index(0), n,
                       PlaceInBucket{bucket_of, bucket_offsets_.data(), place_.data(),
                                     order_.data(), keys_.data()});
    // The pairs not drawn stay as placed: their capsules are empty, whatever their order.
    thrust::for_each_n(policy, Index(0), undrawn,
                       SortBucket{bucket_offsets_.data(), order_.data(), keys_.data()});
    return order_.data();
  }

  // Bits that hold every id up to `top`.
  static int id_bits(std::uint64_t top) {
    int bits = 1;
    while (bits < 64 && (top >> bits) != 0) ++bits;
    return bits;
  }

  Array<std::uint32_t> order_;
  Array<std::uint64_t> keys_;
  Array<std::uint64_t> sorted_keys_;
  Array<std::uint32_t> sorted_order_;
  Array<std::uint32_t> bucket_offsets_;  // each bucket's count, then its start
  Array<std::uint32_t> place_;           // each pair's place in its bucket
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
