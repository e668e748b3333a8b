// contract 2g: the contact network drawn as capsules. The grid and the screen tiles against the
// brute-force loop on packings with their true contacts and random segments, unlit and lit, with
// clip planes and walls; the brute-force frame against the double-precision reference; the
// threshold, grains = false and broken pairs. Built once per backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "contact_reference.h"
#include "env_refusal.h"
#include "granray/kernels/contact_capsules.h"
#include "granray/kernels/walls.h"
#include "granray/rank_stages.h"
#include "reference_math.h"
#include "test_support.h"
#include "wall_scenes.h"

namespace granray::test {
namespace {

class ContactsTest : public OnEachBackend {};

// A frame's pairs as the renderer takes them (indices and a value), owning their arrays.
struct Pairs {
  std::vector<std::uint32_t> first, second;
  std::vector<float> value;

  explicit Pairs(const std::vector<RefContact>& contacts) {
    for (const RefContact& c : contacts) {
      first.push_back(c.first);
      second.push_back(c.second);
      value.push_back(static_cast<float>(c.value));
    }
  }
  ParticleView with(ParticleView view) const {
    view.contacts = {first.data(), second.data(), value.data(), first.size()};
    return view;
  }
};

// A packing's true contacts and some longer random segments between grains three diameters
// apart at most (capsules that leave their grains), a pair now and then listed twice, both ways.
std::vector<RefContact> packing_pairs(Rng& rng, const std::vector<Vec4>& grains) {
  std::vector<RefContact> pairs = true_contacts(rng, grains, 4.0f);
  std::uniform_int_distribution<std::uint32_t> pick(0, std::uint32_t(grains.size() - 1));
  for (int added = 0; added < 40;) {
    const std::uint32_t i = pick(rng), j = pick(rng);
    const Vec4 a = grains[i], b = grains[j];
    const float d = std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) +
                              (a.z - b.z) * (a.z - b.z));
    if (i == j || d > 3.0f * (a.w + b.w)) continue;
    pairs.push_back({i, j, uniform(rng, 0.0f, 4.0f)});
    ++added;
  }
  return pairs;
}

// A dense packing of n grains and its pairs (packing_pairs).
struct PackingWithPairs {
  std::vector<Vec4> grains;
  Pairs pairs;
};
PackingWithPairs packing_with_pairs(Rng& rng, std::size_t n) {
  std::vector<Vec4> grains = dense_bed(rng, n, 0.3f, 0.5f);
  Pairs pairs(packing_pairs(rng, grains));
  return {std::move(grains), std::move(pairs)};
}

// A frame against its brute-force twin: the same surface and colour in every pixel but a few at
// silhouettes, where float rounding may pick the other surface.
void expect_same_surfaces(const Image& image, const Image& brute) {
  const ImageDiff d = compare_images(image, brute);
  const std::size_t allowed = 3u + d.pixels / 1000;
  EXPECT_LE(d.differing_hit, allowed) << "pixels that show another surface";
  EXPECT_LE(d.rgb_differs_same_hit, allowed) << "max level " << d.max_level;
}

ContactSettings random_contacts(Rng& rng) {
  ContactSettings c;
  c.width = uniform(rng, 0.2f, 0.9f);
  c.scale_by_force = std::uniform_int_distribution<int>(0, 1)(rng) == 0;
  c.colormap = std::uniform_int_distribution<int>(0, 6)(rng);
  c.threshold = std::uniform_int_distribution<int>(0, 2)(rng) * 0.5f;
  return c;
}

// The pairs a rank hands to the gather across ranks (contract 2g under mpirun): by index, with
// or without ids, a few naming grains past the frame's, come to the host given whole; pairs given
// whole come back as they were.
TEST_F(ContactsTest, PairsGoToTheHostGivenWhole) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  for (int round = 0; round < 3; ++round) {
    const std::size_t n = std::uniform_int_distribution<std::size_t>(500, 3000)(rng);
    const std::vector<Vec4> grains = dense_bed(rng, n, 0.3f, 0.5f);
    Pairs pairs(packing_pairs(rng, grains));
    std::uniform_int_distribution<std::uint32_t> pick(0, std::uint32_t(n - 1));
    for (int k = 0; k < 5; ++k) {
      pairs.first.push_back(k % 2 == 0 ? std::uint32_t(n) + pick(rng) : pick(rng));
      pairs.second.push_back(k % 2 == 0 ? pick(rng) : std::uint32_t(n + k));
      pairs.value.push_back(uniform(rng, 0.0f, 4.0f));
    }
    std::vector<std::uint64_t> ids;
    ParticleView view;
    view.xyzr = grains.data();
    view.count = grains.size();
    view.id_offset = std::uniform_int_distribution<std::uint64_t>(0, 1u << 30)(rng);
    if (round > 0) {  // scattered global ids
      ids.resize(n);
      for (std::size_t i = 0; i < n; ++i) ids[i] = 7u + 3u * std::uint64_t(i);
      std::shuffle(ids.begin(), ids.end(), rng);
      view.ids = ids.data();
    }
    view = pairs.with(view);
    HostPairs got;
    rank_stages(renderer).copy_contacts_to_host(view, got);
    expect_pairs_given_whole(got, grains, ids, view.id_offset, pairs.first, pairs.second,
                             pairs.value);
    ParticleView whole;
    whole.contacts = {
        nullptr,        nullptr, got.value.data(), got.value.size(), got.spheres.data(),
        got.ids.data(), true};
    HostPairs again;
    rank_stages(renderer).copy_contacts_to_host(whole, again);
    ASSERT_EQ(again.value.size(), got.value.size());
    EXPECT_EQ(std::memcmp(again.spheres.data(), got.spheres.data(), got.spheres.size() * 16), 0);
    EXPECT_EQ(again.ids, got.ids);
    EXPECT_EQ(std::memcmp(again.value.data(), got.value.data(), got.value.size() * 4), 0);
  }
}

// The capsules' grid lists each capsule where its box lies (the default) or once by its midpoint
// (GRANRAY_CAPSULE_LISTING=midpoints), named either way, with a random count of cells a capsule and
// its corner moved out by a random length (GRANRAY_CAPSULE_GRID_SHIFT) in every round. The env set
// for as long as it lives.
class CapsuleListingForRound {
 public:
  CapsuleListingForRound(Rng& rng, bool midpoints) {
    const std::string shift = std::to_string(uniform(rng, 0.0f, 3.0f));
    EXPECT_EQ(setenv("GRANRAY_CAPSULE_GRID_SHIFT", shift.c_str(), 1), 0);
    const std::string cells = std::to_string(uniform(rng, 0.5f, 4.0f));
    EXPECT_EQ(setenv("GRANRAY_CAPSULE_LISTING", midpoints ? "midpoints" : "boxes", 1), 0);
    EXPECT_EQ(setenv("GRANRAY_CELLS_PER_CAPSULE", cells.c_str(), 1), 0);
  }
  ~CapsuleListingForRound() {
    unsetenv("GRANRAY_CAPSULE_GRID_SHIFT");
    unsetenv("GRANRAY_CAPSULE_LISTING");
    unsetenv("GRANRAY_CELLS_PER_CAPSULE");
  }
  CapsuleListingForRound(const CapsuleListingForRound&) = delete;
  CapsuleListingForRound& operator=(const CapsuleListingForRound&) = delete;
};

TEST_F(ContactsTest, MethodsMatchBruteForceOnPackingsWithTheirContacts) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  for (int round = 0; round < 8; ++round) {
    const auto [grains, pairs] = packing_with_pairs(rng, 500);
    const SceneBounds box = box_of(grains);
    // Listed by midpoints in rounds with grains = false (whole capsules), a clip plane, walls and
    // light.
    const CapsuleListingForRound listing(rng, round % 4 == 1 || round % 4 == 2);
    RenderSettings s = small_random_settings(rng, round % 4 >= 2);
    s.contacts = random_contacts(rng);
    s.contacts->grains = round != 1 && round != 5;
    if (round % 2 == 0) s.clip = random_clip(rng, box);  // grains only: the network stays
    if (round >= 6) s.walls = random_walls(rng, box, 60);
    if (round >= 4) {  // lit: capsules cast and receive shadows and occlusion
      s.shading.shadows = true;
      s.shading.ao_samples = std::uniform_int_distribution<int>(0, 8)(rng);
      s.shading.ao_distance = uniform(rng, 0.3f, 2.0f);
      s.shading.samples = std::uniform_int_distribution<int>(0, 1)(rng) ? 4 : 1;
    }
    const std::size_t pair_count = pairs.first.size();  // a lambda takes no structured binding
    against_brute_force(
        renderer, pairs.with(view_of(grains)), s,
        [&](RenderMethod method, const Image& image, const FrameStats& stats, const Image& brute,
            const FrameStats& brute_stats) {
          SCOPED_TRACE(::testing::Message()
                       << "round " << round << ", " << render_method_name(method) << ": "
                       << pair_count << " pairs, " << stats.contacts << " drawn");
          EXPECT_EQ(stats.contacts, brute_stats.contacts);
          EXPECT_GT(brute_stats.contacts, 0u);
          if (!s.contacts->grains) {
            EXPECT_GT(capsule_pixels(brute), 0u) << "the network shows";
            EXPECT_EQ(std::count_if(brute.hit_id.begin(), brute.hit_id.end(),
                                    [](std::uint64_t id) { return id < kCapsuleIdBase; }),
                      0)
                << "grains = false: no grain shows";
          }
          expect_same_surfaces(image, brute);
        });
  }
}

// Every pair of a few grains scattered through a box: capsules that cross the box, which at one
// cell a capsule would list far more references than the grid allows, so their grid is made
// coarser and counted again (choose_grid_layout's refinement); the grid and the tiles still match
// brute force.
TEST_F(ContactsTest, LongCapsulesCoarsenTheirGridAndMatchBruteForce) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  for (int round = 0; round < 4; ++round) {
    const std::vector<Vec4> grains = dilute_gas(rng, 30, 0.2f, 0.4f, 10.0f);
    std::vector<RefContact> every_pair;
    for (std::uint32_t i = 0; i < grains.size(); ++i) {
      for (std::uint32_t j = i + 1; j < grains.size(); ++j) {
        every_pair.push_back({i, j, uniform(rng, 0.0f, 4.0f)});
      }
    }
    const Pairs pairs(every_pair);
    // By midpoints, capsules longer than a cell are still listed where their boxes lie.
    const CapsuleListingForRound listing(rng, round >= 2);
    RenderSettings s = small_random_settings(rng, round % 2 == 1);
    s.contacts = random_contacts(rng);
    s.contacts->threshold = 0.0f;
    s.contacts->grains = round != 1;
    if (round >= 2) {
      s.shading.shadows = true;
      s.shading.ao_samples = 4;
      s.shading.ao_distance = uniform(rng, 0.5f, 3.0f);
    }
    against_brute_force(renderer, pairs.with(view_of(grains)), s,
                        [&](RenderMethod method, const Image& image, const FrameStats& stats,
                            const Image& brute, const FrameStats& brute_stats) {
                          SCOPED_TRACE(::testing::Message()
                                       << "round " << round << ", " << render_method_name(method));
                          EXPECT_EQ(stats.contacts, every_pair.size());
                          EXPECT_EQ(brute_stats.contacts, every_pair.size());
                          expect_same_surfaces(image, brute);
                        });
  }
}

// Metal and glass grains reflect and refract the network, and the path tracer draws it as matte
// capsules: the grid (and the tiles) against brute force, and the network changes the picture.
TEST_F(ContactsTest, BouncesAndThePathTracerMeetTheNetwork) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  const std::vector<Vec4> grains = dense_bed(rng, 400, 0.3f, 0.5f);
  const std::vector<float> kinds = kinds_of(rng, grains.size());
  const Pairs pairs(packing_pairs(rng, grains));
  ParticleView view = pairs.with(view_of(grains));
  view.scalar = kinds.data();
  RenderSettings s = sized_random_settings(rng, false, 72, 54);
  s.materials = steel_and_glass(rng);
  s.shading.bounces = 3;
  s.shading.shadows = true;
  s.contacts = random_contacts(rng);
  s.contacts->width = uniform(rng, 0.6f, 1.0f);  // wide enough to show between the grains
  against_brute_force(
      renderer, view, s,
      [&](RenderMethod method, const Image& image, const FrameStats&, const Image& brute) {
        SCOPED_TRACE(render_method_name(method));
        const ImageDiff d = compare_images(image, brute);
        EXPECT_LE(d.differing_rgb, 3u + d.pixels / 400) << d.max_level;
      });
  s.model = ImageModel::path;
  s.path.samples = 8;
  s.path.sun_intensity = 1.0f;
  Image brute, grid, without;
  renderer.render(view, s, brute, {RenderMethod::brute_force});
  renderer.render(view, s, grid, {RenderMethod::grid});
  const ImageDiff d = compare_images(grid, brute);
  EXPECT_LE(d.differing_rgb, 2u + d.pixels / 100) << "max level " << d.max_level;
  ParticleView no_pairs = view;
  no_pairs.contacts = {};
  renderer.render(no_pairs, s, without, {RenderMethod::grid});
  EXPECT_GT(compare_images(grid, without).differing_rgb, d.pixels / 100)
      << "the network shows in the path-traced still";
}

// The brute-force frame shows, pixel by pixel, what the double-precision reference finds, except
// where a nudge of the ray a ten-thousandth of a pixel changes the reference's answer or two
// surfaces lie within float rounding of each other along it. (A hundred-thousandth was too
// little for the hub's capsules, which span the bed: the float quadratic's terms grow with the
// square of a capsule's length, and seed 17440001799505883237 grazed one that the reference
// missed.)
TEST_F(ContactsTest, BruteForceFollowsTheReference) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  // Each way to a capsule's key (CapsuleView::keys) is taken: both grains' ids packed (rounds 0
  // and 2), and the pairs' order by ids past 2^31: by buckets from an id offset (1), the sort of
  // both ids in one 64-bit key (3, the hub) and the two stable sorts of ids past 32 bits (4, the
  // hub and the offset).
  // Rounds 0, 1 and 5 draw the grains, which hide the capsules' parts inside them (the renderer
  // cuts those off: capsule_outside_spheres); round 5 with a clip plane (a clipped grain hides
  // nothing).
  const std::uint64_t id_offsets[] = {
      0, std::uint64_t{1} << 33, 0, std::uint64_t{1} << 31, std::uint64_t{1} << 33, 0};
  for (int round = 0; round < 6; ++round) {
    const std::vector<Vec4> grains = dense_bed(rng, 200, 0.3f, 0.5f);
    // In the renderer's order (by the pairs' smaller, then larger grain id, stable): the
    // reference's index is then the capsule's place among equal distances, and its key where
    // the ids are not packed.
    std::vector<RefContact> contacts = packing_pairs(rng, grains);
    if (round >= 2) {
      // A hub: one grain paired with 70 others, more than the pairs of one grain id that are put
      // in order without a sort (ContactOrder::by_buckets): the sort orders this frame's.
      // Its partners' ids all above its own, so all 70 pairs fall in its bucket. Some of them
      // pair the same grains as a pair of the packing: their capsules share a key.
      const std::uint32_t hub = std::uniform_int_distribution<std::uint32_t>(0, 59)(rng);
      for (std::uint32_t k = 0; k < 70; ++k) {
        const std::uint32_t other = (hub + 1 + k * 2) % 200;
        contacts.push_back(
            {k % 2 == 0 ? hub : other, k % 2 == 0 ? other : hub, uniform(rng, 0.0f, 4.0f)});
      }
    }
    std::stable_sort(
        contacts.begin(), contacts.end(), [](const RefContact& a, const RefContact& b) {
          return std::make_pair(std::min(a.first, a.second), std::max(a.first, a.second)) <
                 std::make_pair(std::min(b.first, b.second), std::max(b.first, b.second));
        });
    const Pairs pairs(contacts);
    RenderSettings s = sized_random_settings(rng, round % 2 == 1, 80, 60);
    s.contacts = random_contacts(rng);
    s.contacts->grains = round < 2 || round == 5;
    if (round == 5) s.clip = random_clip(rng, box_of(grains));
    Image image;
    ParticleView view = pairs.with(view_of(grains));
    view.id_offset = id_offsets[round];
    const std::uint64_t first_id = view.id_offset;
    const bool packed = first_id + grains.size() - 1 <= kMostPackedGrainId;
    const auto key_of = [&](std::size_t contact) {
      if (!packed) return std::uint64_t{contact};
      const RefContact& c = contacts[contact];
      return packed_capsule_key(first_id + std::min(c.first, c.second),
                                first_id + std::max(c.first, c.second));
    };
    const FrameStats stats = renderer.render(view, s, image, {RenderMethod::brute_force, true});
    const std::vector<RefCapsule> capsules = reference_capsules(
        grains, contacts, s.contacts->width, s.contacts->scale_by_force, s.contacts->threshold);
    EXPECT_EQ(stats.contacts, capsules.size());
    std::vector<Vec4> shown;  // the grains drawn (clipped ones are not), and their indices
    std::vector<std::uint64_t> shown_index;
    for (std::size_t k = 0; k < grains.size(); ++k) {
      const bool clipped = clipped_by(s.clip.data(), int(s.clip.size()), center_of(grains[k]));
      if (s.contacts->grains && !clipped) {
        shown.push_back(grains[k]);
        shown_index.push_back(k);
      }
    }
    const DoubleCamera camera(stats.camera, s);
    // The reference's hit through (x, y), its ray in o and d, and the id the frame should show.
    const auto hit_at = [&](double x, double y, D3& o, D3& d) {
      camera.ray(x, y, o, d);
      return nearest_hit(o, d, shown, capsules);
    };
    const auto id_of = [&](const RefHit& hit) {
      if (hit.kind == RefHit::sphere) return first_id + shown_index[hit.index];
      if (hit.kind == RefHit::capsule) return kCapsuleIdBase + key_of(capsules[hit.index].contact);
      return ~std::uint64_t{0};
    };
    const auto answer = [&](double x, double y) {
      D3 o, d;
      return id_of(hit_at(x, y, o, d));
    };
    // Two surfaces within float rounding of each other along the ray (a capsule's side and its
    // neighbour's end where they meet at a grain; the hub's long capsules round the most): which
    // one float shows is rounding. Capsules of the same segment and radius (a hub pair of the
    // same grains as a packing pair, scale "fixed") tie exactly in float too: the contract's
    // order picks between them, and the pixel is checked.
    // `hit`: the reference's along the ray o + t d.
    const auto near_tie = [&](D3 o, D3 d, const RefHit& hit) {
      const double best = hit.t;
      const RefCapsule* best_capsule = hit.kind == RefHit::capsule ? &capsules[hit.index] : nullptr;
      const auto twin = [&](const RefCapsule& c) {
        const RefCapsule* b = best_capsule;
        return b != nullptr && c.radius == b->radius && dot(c.a - b->a, c.a - b->a) == 0.0 &&
               dot(c.b - b->b, c.b - b->b) == 0.0;
      };
      double second = INFINITY;
      for (const Vec4& g : shown) {
        const double t = sphere_entry(o, d, {g.x, g.y, g.z}, g.w);
        if (t > best || best_capsule != nullptr) second = std::min(second, t);
      }
      for (const RefCapsule& c : capsules) {
        if (&c != best_capsule && !twin(c)) {
          second = std::min(second, capsule_entry(o, d, c.a, c.b, c.radius));
        }
      }
      return second - best < 1e-4 * best;
    };
    // A ray that passes a capsule's surface within the float test's rounding, whose terms grow
    // with the square of the capsule's length and of its distance, in front of what the ray hits:
    // a grazed silhouette, which float may hit and double miss. The hub's long, thin capsules
    // made 1 run in 40 fail so.
    const auto grazes = [&](D3 o, D3 d, const RefHit& hit) {
      const double hit_t = hit.t * std::sqrt(dot(d, d));
      d = unit(d);
      for (const RefCapsule& c : capsules) {
        const D3 e = c.b - c.a, w = c.a - o;
        const double ed = dot(e, d), wd = dot(w, d);
        const double qa = dot(e, e) - ed * ed, qb = dot(w, e) - wd * ed;
        const double along = qa > 0.0 ? std::clamp(-qb / qa, 0.0, 1.0) : 0.0;
        const D3 p = w + e * along;  // the segment's point nearest the ray's line
        const double gap2 = dot(p, p) - dot(p, d) * dot(p, d);
        const double reach = std::sqrt(dot(w, w)) + std::sqrt(dot(e, e));
        if (dot(p, d) - c.radius > hit_t * (1.0 + 1e-4)) continue;  // behind the hit
        if (std::abs(gap2 - c.radius * c.radius) < 2e-7 * reach * reach) return true;
      }
      return false;
    };
    std::size_t checked = 0, capsules_seen = 0, capsules_shown = 0;
    for (int j = 0; j < s.height; ++j) {
      for (int i = 0; i < s.width; ++i) {
        D3 o, d;
        const RefHit centre = hit_at(i + 0.5, j + 0.5, o, d);
        const std::uint64_t want = id_of(centre);
        capsules_shown += shows_capsule(want);
        const double e = 1e-4;
        if (answer(i + 0.5 + e, j + 0.5) != want || answer(i + 0.5 - e, j + 0.5) != want ||
            answer(i + 0.5, j + 0.5 + e) != want || answer(i + 0.5, j + 0.5 - e) != want ||
            near_tie(o, d, centre) || grazes(o, d, centre)) {
          continue;
        }
        ASSERT_EQ(image.hit_id[std::size_t(j) * s.width + i], want)
            << "round " << round << ", pixel " << i << ", " << j;
        ++checked;
        capsules_seen += shows_capsule(want);
      }
    }
    EXPECT_GT(checked, std::size_t(s.width) * s.height * 9 / 10) << "round " << round;
    // With the grains drawn, a view may show no capsule at all (1 run in about 500): the
    // capsules then need not be checked, but where they show they must be.
    if (!s.contacts->grains || capsules_shown >= 20) {
      EXPECT_GT(capsules_seen, 0u) << "round " << round;
    }
  }
}

// A pair given whole one of whose spheres is no drawn grain (a periodic half's midpoint:
// ContactView::ends_are_grains false) keeps the part of its capsule inside that sphere: seen from
// above, the half capsule's end shows beyond its one drawn grain. Taken for a grain, the sphere
// would hide that part, and the renderer cuts it off.
TEST_F(ContactsTest, WholePairsWhoseSpheresAreNoGrainsKeepWhatLiesInside) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  for (int round = 0; round < 4; ++round) {
    const float r = uniform(rng, 0.3f, 1.0f);
    const Vec4 grain{uniform(rng, -5, 5), uniform(rng, -5, 5), uniform(rng, -5, 5), r};
    // A partner of the same radius touching it across a periodic face: the half ends halfway.
    const Vec4 pair_spheres[2] = {grain, {grain.x + r, grain.y, grain.z, r}};
    const std::uint64_t pair_ids[2] = {0, 1};
    const float value = uniform(rng, 0.5f, 2.0f);
    const std::vector<Vec4> grains = {grain};
    ParticleView view = view_of(grains);
    view.contacts.value = &value;
    view.contacts.count = 1;
    view.contacts.spheres = pair_spheres;
    view.contacts.ids = pair_ids;
    view.contacts.on_host = true;
    RenderSettings s;
    s.width = s.height = 64;
    s.camera.projection = Projection::orthographic;
    s.camera.position = Vec3{grain.x + r, grain.y, grain.z + 10.0f};  // above the half's end
    s.camera.target = Vec3{grain.x + r, grain.y, grain.z};
    s.camera.up = {0.0f, 1.0f, 0.0f};
    s.camera.ortho_height = 2.0f * r;
    s.contacts = ContactSettings{};
    s.contacts->scale_by_force = false;  // rho = 0.4 r: the end cap reaches 1.4 r from the grain
    // Pixel (38, 32) looks down at about 1.2 r from the grain's centre along x: past its
    // silhouette, inside the cap about the half's end.
    const std::size_t pixel = 32u * 64u + 38u;
    for (const bool ends_are_grains : {false, true}) {
      view.contacts.ends_are_grains = ends_are_grains;
      Image image;
      RenderOptions options;
      options.with_hits = true;
      const FrameStats stats = renderer.render(view, s, image, options);
      EXPECT_EQ(stats.contacts, 1u);
      ASSERT_EQ(image.hit_id.size(), 64u * 64u);
      EXPECT_EQ(is_capsule_id(image.hit_id[pixel]), !ends_are_grains)
          << "round " << round
          << (ends_are_grains ? ": taken for a grain, the end is cut off"
                              : ": no grain there, the end shows");
    }
  }
}

// A grain hides the part of a capsule inside it only where no primary ray starts inside it
// (GrainsHidingCapsules). Two touching grains and their capsule, seen along the capsule's axis from
// inside grain a (half its radius behind its centre, in perspective and orthographic views): the
// first thing met is the capsule's end sphere about a's centre, at 0.5 r_a - rho. Were a taken for
// a hiding grain, the capsule would start 0.99 r_a - rho past a's centre instead. From outside
// (three radii behind a), grain a itself is met at 2 r_a and hides the capsule.
TEST_F(ContactsTest, AnEyeInsideAGrainSeesTheCapsuleWithin) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  for (int round = 0; round < 6; ++round) {
    const float ra = uniform(rng, 0.3f, 1.0f), rb = uniform(rng, 0.3f, 1.0f);
    const Vec3 u = normalize(Vec3{uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)});
    const Vec3 a{uniform(rng, -5, 5), uniform(rng, -5, 5), uniform(rng, -5, 5)};
    const Vec3 b = a + u * (ra + rb);
    const std::vector<Vec4> grains = {{a.x, a.y, a.z, ra}, {b.x, b.y, b.z, rb}};
    const std::vector<RefContact> contacts = {{0, 1, 1.0}};
    const Pairs pairs(contacts);
    const float rho = 0.4f * std::min(ra, rb);  // the default width, not scaled by force
    RenderSettings s;
    s.width = s.height = 33;  // the centre pixel's ray runs along the capsule's axis
    s.camera.target = a + u;
    s.camera.up = std::fabs(u.z) < 0.9f ? Vec3{0.0f, 0.0f, 1.0f} : Vec3{1.0f, 0.0f, 0.0f};
    s.camera.ortho_height = 4.0f * ra;
    s.contacts = ContactSettings{};
    s.contacts->scale_by_force = false;
    RenderOptions options;
    options.with_hits = true;
    const std::size_t centre = 16u * 33u + 16u;
    for (const Projection projection : {Projection::perspective, Projection::orthographic}) {
      s.camera.projection = projection;
      for (const float behind : {0.5f, 3.0f}) {
        s.camera.position = a - u * (behind * ra);
        Image image;
        renderer.render(pairs.with(view_of(grains)), s, image, options);
        ASSERT_EQ(image.depth.size(), 33u * 33u);
        const bool inside = behind < 1.0f;
        SCOPED_TRACE(testing::Message()
                     << "round " << round << ", "
                     << (projection == Projection::orthographic ? "orthographic" : "perspective")
                     << ", the eye " << behind << " r_a behind a's centre");
        EXPECT_EQ(is_capsule_id(image.hit_id[centre]), inside);
        EXPECT_NEAR(image.depth[centre], inside ? behind * ra - rho : (behind - 1.0f) * ra,
                    2e-3f * ra);
      }
    }
  }
}

// Pairs that name no grain, a broken grain, or carry a value that is not a finite f >= 0 are left
// out and counted; the rest draw as they would alone.
TEST_F(ContactsTest, BrokenPairsAreLeftOutAndCounted) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  std::vector<Vec4> grains = dense_bed(rng, 300, 0.3f, 0.5f);
  const std::vector<RefContact> good = true_contacts(rng, grains, 3.0f);
  ASSERT_GT(good.size(), 20u);
  const auto n = static_cast<std::uint32_t>(grains.size());
  grains.push_back({NAN, 0.0f, 0.0f, 0.4f});  // a broken particle, last
  std::vector<RefContact> with_broken = good;
  const std::vector<RefContact> broken = {
      {0, n + 7, 1.0}, {n, 1, 1.0}, {2, 3, -1.0}, {4, 5, double(NAN)}, {6, 6, 1.0}};
  std::uniform_int_distribution<std::size_t> where(0, good.size());
  for (const RefContact& b : broken) with_broken.insert(with_broken.begin() + where(rng), b);
  // The good pairs in the same relative order, so that capsule indices differ but images do not.
  RenderSettings s = sized_random_settings(rng, false, 96, 72);
  s.contacts = random_contacts(rng);
  s.contacts->threshold = 0.0f;
  Image alone, mixed;
  const RenderOptions options{RenderMethod::grid, true};
  const FrameStats a = renderer.render(Pairs(good).with(view_of(grains)), s, alone, options);
  const FrameStats m = renderer.render(Pairs(with_broken).with(view_of(grains)), s, mixed, options);
  EXPECT_EQ(a.contacts, good.size());
  EXPECT_EQ(m.contacts, good.size());
  EXPECT_EQ(m.contacts_skipped, broken.size());
  EXPECT_EQ(alone.rgb, mixed.rgb);
}

// threshold = 1: only pairs at or above the frame's mean value are drawn; the range of their
// colours is the frame's, over every drawable pair.
TEST_F(ContactsTest, TheStrongNetworkKeepsPairsAboveTheMean) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  const std::vector<Vec4> grains = dense_bed(rng, 400, 0.3f, 0.5f);
  const std::vector<RefContact> contacts = true_contacts(rng, grains, 10.0f);
  double sum = 0.0, lo = INFINITY, hi = -INFINITY;
  for (const RefContact& c : contacts) {
    sum += float(c.value);
    lo = std::min(lo, double(float(c.value)));
    hi = std::max(hi, double(float(c.value)));
  }
  const float mean = static_cast<float>(sum / contacts.size());
  std::size_t strong = 0;
  for (const RefContact& c : contacts) strong += float(c.value) >= mean;
  RenderSettings s = sized_random_settings(rng, false, 64, 48);
  s.contacts = ContactSettings{};
  s.contacts->threshold = 1.0f;
  Image image;
  const FrameStats stats =
      renderer.render(Pairs(contacts).with(view_of(grains)), s, image, {RenderMethod::grid, false});
  EXPECT_EQ(stats.contacts, strong);
  EXPECT_LT(strong, contacts.size());
  EXPECT_FLOAT_EQ(stats.contact_lo, float(lo));
  EXPECT_FLOAT_EQ(stats.contact_hi, float(hi));
}

// Listed by their boxes or by their midpoints, the capsules' grid finds the same nearest surface
// for every ray (the same capsule tests, the same tie rule): the same pixels, bit for bit, unlit
// and lit, with and without the grains drawn.
TEST_F(ContactsTest, BothListingsDrawTheSameImage) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  for (int round = 0; round < 4; ++round) {
    const auto [grains, pairs] = packing_with_pairs(rng, 600);
    RenderSettings s = sized_random_settings(rng, round % 2 == 1, 96, 64);
    s.contacts = random_contacts(rng);
    s.contacts->grains = round != 2;
    if (round >= 1) {
      s.shading.shadows = true;
      s.shading.ao_samples = std::uniform_int_distribution<int>(1, 8)(rng);
      s.shading.ao_distance = uniform(rng, 0.3f, 2.0f);
    }
    Image by_boxes, by_midpoints;
    {
      const CapsuleListingForRound listing(rng, false);
      renderer.render(pairs.with(view_of(grains)), s, by_boxes, {RenderMethod::grid, true});
    }
    {
      const CapsuleListingForRound listing(rng, true);
      renderer.render(pairs.with(view_of(grains)), s, by_midpoints, {RenderMethod::grid, true});
    }
    SCOPED_TRACE(::testing::Message() << "round " << round);
    EXPECT_GT(capsule_pixels(by_boxes), 0u) << "the network shows";
    EXPECT_EQ(by_boxes.hit_id, by_midpoints.hit_id);
    EXPECT_EQ(by_boxes.rgb, by_midpoints.rgb);
  }
}

// The capsules' listing, cells a capsule and grid shift named in the environment are checked: a
// value that is neither is refused by its name, not taken as the default.
TEST_F(ContactsTest, ABadCapsuleListingIsRefusedByName) {
  Rng rng(fresh_seed());
  Renderer renderer(test_backend());
  const std::vector<Vec4> grains = dense_bed(rng, 200, 0.3f, 0.5f);
  const Pairs pairs(true_contacts(rng, grains, 4.0f));
  RenderSettings s = sized_random_settings(rng, false, 32, 24);
  s.contacts = ContactSettings{};
  const auto render = [&] {
    Image image;
    renderer.render(pairs.with(view_of(grains)), s, image, {RenderMethod::grid, false});
  };
  expect_env_values_refused("GRANRAY_CAPSULE_LISTING", {"centres", ""}, render);
  expect_env_values_refused("GRANRAY_CELLS_PER_CAPSULE", {"two", "0", "1e9"}, render);
  expect_env_values_refused("GRANRAY_CAPSULE_GRID_SHIFT", {"-0.5", "far", "1e7"}, render);
}

}  // namespace
}  // namespace granray::test
