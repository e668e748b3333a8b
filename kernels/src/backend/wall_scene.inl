// The frame's walls (contract 2b) as the kernels see them: the opaque and see-through trees over
// the triangles this camera shows, the see-through facets, their shades and per-tile lists, and the
// clip planes (contract 2c). Part of the backend (thrust_backend.inl).
#pragma once

#include "backend_prelude.inl"
#include "material_setup.h"
#include "see_through_binning.h"
#include "wall_tree.inl"

namespace granray::GRANRAY_BACKEND_NAMESPACE {

class WallScene {
 public:
  explicit WallScene(detail::MemoryAccount& account)
      : uploaded_(account, "wall triangle upload"),
        unsorted_(account, "wall triangles"),
        shown_(account, "wall triangles shown"),
        opaque_(account),
        see_through_(account),
        facets_(account, "see-through facets"),
        shades_(account, "see-through facet shades"),
        colors_(account, "wall colours"),
        opacity_(account, "wall opacities"),
        planes_(account, "clip planes"),
        material_slots_(account, "wall material slots"),
        every_opaque_triangles_(account, "opaque wall triangles of either facing"),
        every_opaque_(account),
        bin_offsets_(account, "see-through tile offsets"),
        bin_slots_(account, "see-through tile lists"),
        bin_nearest_(account, "see-through tile distances") {}

  // The walls and clip planes of this frame; a wall list seen in the previous frame is not read
  // again unless it reads triangles in place (they may have moved). The tree waits for the
  // camera (build_for).
  void prepare(const Executor& exec, const RenderSettings& settings) {
    // The planes travel only when they change (an upload waits for the device).
    if (!same_clip_planes(settings.clip, uploaded_planes_)) {
      exec.upload(planes_, settings.clip.data(), settings.clip.size());
      uploaded_planes_ = settings.clip;
    }
    plane_count_ = static_cast<int>(settings.clip.size());
    // contract 2e: each wall's material, for the bounce pass and the surfaces' slots.
    const std::vector<std::uint8_t> slots = detail::wall_material_slots(settings);
    if (slots != uploaded_material_slots_) {
      exec.upload(material_slots_, slots.data(), slots.size());
      uploaded_material_slots_ = slots;
    }
    materials_on_ = materials_on(settings) && !slots.empty();
    bounces_wanted_ = materials_on(settings) || path_traced(settings);
    build_ms_ = 0.0;
    const std::shared_ptr<const WallList>& walls = settings.walls;
    const bool reads_in_place =
        walls && std::any_of(walls->begin(), walls->end(),
                             [](const Wall& w) { return w.in_place != nullptr; });
    if (walls == built_from_ && !reads_in_place) return;
    built_from_ = walls;
    total_ = 0;
    opaque_.clear();
    see_through_.clear();
    every_opaque_.clear();
    tree_built_ = false;
    every_built_ = false;
    box_ = empty_wall_box();
    if (!walls || walls->empty()) return;
    const auto start = std::chrono::steady_clock::now();
    assemble(exec, *walls);
    if (total_ > 0) {
      box_ = thrust::transform_reduce(exec.policy(), Index(0), Index(total_),
                                      TriangleBoxOf{unsorted_.data()}, empty_wall_box(),
                                      JoinWallBoxes{});
    }
    build_ms_ += ms_since(start);
  }

  // The tree over the triangles this camera shows: the far side of a back-faces-only wall
  // alone (a container's near side is not there for any ray, so it is left out of the tree
  // rather than met and rejected by every ray that crosses it). Built again when the walls or,
  // for back-faces-only walls, the camera change.
  void build_for(const Executor& exec, const CameraFrame& camera, const ShadingParams& shading) {
    if (total_ == 0) {
      bins_valid_ = false;
      return;
    }
    build_trees_for(exec, camera);
    build_every_opaque_for(exec);
    shade_facets_for(exec, shading);
    bin_see_through_for(exec, camera);
  }

  // contract 2g: this frame's contact capsules, which the kernels meet with the walls.
  void set_capsules(const CapsuleView& capsules) { capsules_ = capsules; }

  // The triangles this frame shows, opaque or see-through.
  std::uint32_t count() const { return opaque_.count() + see_through_.count(); }
  std::uint32_t opaque_count() const { return opaque_.count(); }
  std::uint32_t see_through_count() const { return see_through_.count(); }
  std::uint32_t total() const { return total_; }
  double build_ms() const { return build_ms_; }  // this frame's work on the walls (0: kept)

  // Merges the walls' box into a scene's (contract 2b: the auto camera frames the walls too).
  SceneBounds scene_with_walls(SceneBounds scene) const {
    if (total_ == 0) return scene;
    scene.lo = {nan_ignoring_min(scene.lo.x, box_.lo.x), nan_ignoring_min(scene.lo.y, box_.lo.y),
                nan_ignoring_min(scene.lo.z, box_.lo.z)};
    scene.hi = {nan_ignoring_max(scene.hi.x, box_.hi.x), nan_ignoring_max(scene.hi.y, box_.hi.y),
                nan_ignoring_max(scene.hi.z, box_.hi.z)};
    return scene;
  }

  const ClipPlane* planes() const { return planes_.data(); }
  int plane_count() const { return plane_count_; }

  WallView view(bool linear) const {
    // The reference walks every triangle: no lists.
    const SeeThroughTiles tiles = bins_valid_ && !linear
                                      ? SeeThroughTiles{bins_tiles_, bin_offsets_.data(),
                                                        bin_slots_.data(), bin_nearest_.data()}
                                      : SeeThroughTiles{{0, 0}, nullptr, nullptr, nullptr};
    return {opaque_.view(),
            see_through_.view(),
            facets_.data(),
            colors_.data(),
            opacity_.data(),
            shades_apply_ ? shades_.data() : nullptr,
            planes_.data(),
            plane_count_,
            linear,
            tiles,
            materials_on_ ? material_slots_.data() : nullptr,
            with_linear(capsules_, linear)};
  }

  // The tree of the opaque triangles this camera shows (WallView::opaque of view()).
  WallTree shown_opaque() const { return opaque_.view(); }

  // contract 2e: the walls that bounce rays meet: every opaque triangle of either facing, since
  // faces = "back" hides the near side of a container from primary rays only (its shadow and
  // occlusion rays keep to view's tree, as contract 2a's do).
  template <class Body>
  void with_bounce_walls(const RenderOptions& options, Body&& body) const {
    if (!(any_back_only_ && every_built_)) {
      with_opaque(options, std::forward<Body>(body));
      return;
    }
    if (every_opaque_.count() == 0 && capsules_.count == 0) {
      body(NoWalls{});
      return;
    }
    WallView walls = view(options.method == RenderMethod::brute_force);
    walls.opaque = every_opaque_.view();
    body(walls);
  }

  // Runs `body` with the frame's walls as the kernels see them, or with NoWalls when it has
  // none (the kernels then compile the wall tests away). The brute-force reference tests every
  // triangle too.
  template <class Body>
  void with_all(const RenderOptions& options, Body&& body) const {
    if (count() > 0 || capsules_.count > 0) {
      body(view(options.method == RenderMethod::brute_force));
    } else {
      body(NoWalls{});
    }
  }

  // As with_all, for the lit passes that see only opaque walls (surfaces, secondary rays) or
  // only see-through ones (their composite): see-through walls hide no surface and block no
  // secondary ray, and a pass compiled without walls keeps fewer registers (a see-through box
  // slowed the lit surfaces and shadow passes on the GPU by a quarter though they met no wall).
  template <class Body>
  void with_opaque(const RenderOptions& options, Body&& body) const {
    if (opaque_count() > 0 || capsules_.count > 0) {
      with_all(options, std::forward<Body>(body));
    } else {
      body(NoWalls{});
    }
  }
  template <class Body>
  void with_see_through(const RenderOptions& options, Body&& body) const {
    if (see_through_count() > 0) {
      with_all(options, std::forward<Body>(body));
    } else {
      body(NoWalls{});
    }
  }

 private:
  // Sets of at most this many see-through triangles are binned into screen tiles (a box is 12,
  // a cylinder of 64 segments 252); larger ones, and lists of more than kSeeThroughEntriesPerTile
  // slots a tile on average, keep the tree walk.
  static constexpr std::uint32_t kMaxBinnedSeeThrough = 1024;
  static constexpr std::uint64_t kSeeThroughEntriesPerTile = 16;

  // The reference tests every capsule, as it does every triangle.
  static CapsuleView with_linear(CapsuleView capsules, bool linear) {
    capsules.linear = capsules.linear || linear;
    return capsules;
  }

  void build_trees_for(const Executor& exec, const CameraFrame& camera) {
    const Vec3 view_dir = camera.w * -1.0f;
    const bool same_view = camera.eye.x == eye_.x && camera.eye.y == eye_.y &&
                           camera.eye.z == eye_.z && view_dir.x == view_dir_.x &&
                           view_dir.y == view_dir_.y && view_dir.z == view_dir_.z &&
                           camera.orthographic == orthographic_;
    if (tree_built_ && (same_view || !any_back_only_)) return;
    const auto start = std::chrono::steady_clock::now();
    eye_ = camera.eye;
    view_dir_ = view_dir;
    orthographic_ = camera.orthographic;
    shown_.resize(total_);
    WallTriangle* end = thrust::copy_if(exec.policy(), unsorted_.data(), unsorted_.data() + total_,
                                        shown_.data(), ShownFrom{eye_, view_dir_, orthographic_});
    // Opaque triangles first, the see-through ones (contract 2d) after: a tree each.
    WallTriangle* middle = thrust::stable_partition(exec.policy(), shown_.data(), end, IsOpaque{});
    opaque_.build(exec, shown_.data(), static_cast<std::uint32_t>(middle - shown_.data()));
    see_through_.build(exec, middle, static_cast<std::uint32_t>(end - middle));
    const WallTree glass = see_through_.view();
    facets_.resize(glass.count);
    thrust::transform(exec.policy(), glass.triangles, glass.triangles + glass.count, facets_.data(),
                      FacetOf{});
    exec.synchronize();
    tree_built_ = true;
    ++tree_version_;
    build_ms_ += ms_since(start);
  }

  // The tree of every opaque triangle whatever its facing, for bounce rays (with_bounce_walls):
  // built once per wall list, only where a back-faces-only wall would leave some out.
  void build_every_opaque_for(const Executor& exec) {
    if (!bounces_wanted_ || !any_back_only_ || every_built_) return;
    const auto start = std::chrono::steady_clock::now();
    every_opaque_triangles_.resize(total_);
    WallTriangle* end = thrust::copy_if(exec.policy(), unsorted_.data(), unsorted_.data() + total_,
                                        every_opaque_triangles_.data(), IsOpaque{});
    every_opaque_.build(exec, every_opaque_triangles_.data(),
                        static_cast<std::uint32_t>(end - every_opaque_triangles_.data()));
    exec.synchronize();
    every_built_ = true;
    build_ms_ += ms_since(start);
  }

  // The colours of the see-through facets' sides under this frame's light (FacetShade), worked
  // out again when the tree or the light changes (the light turns with the camera). Only a
  // parallel light shades a facet alike all over; under another each layer is lit where it is.
  void shade_facets_for(const Executor& exec, const ShadingParams& shading) {
    const std::uint32_t n = see_through_.count();
    shades_apply_ = shading.light.parallel();
    if (n == 0 || !shades_apply_) return;
    if (shaded_tree_ == tree_version_ && same_point(shading.light.direction, shaded_light_) &&
        shading.ambient == shaded_ambient_ && shading.diffuse == shaded_diffuse_) {
      return;
    }
    shaded_tree_ = 0;  // until the shades are whole
    shades_.resize(n);
    thrust::transform(exec.policy(), facets_.data(), facets_.data() + n, shades_.data(),
                      ShadeOfFacet{colors_.data(), opacity_.data(), shading});
    shaded_tree_ = tree_version_;
    shaded_light_ = shading.light.direction;
    shaded_ambient_ = shading.ambient;
    shaded_diffuse_ = shading.diffuse;
  }

  // Lists of the see-through tree's triangles per screen tile of this camera's window, built on
  // the host from a copy of the tree's triangles, again when the tree or the camera changes.
  void bin_see_through_for(const Executor& exec, const CameraFrame& camera) {
    const std::uint32_t n = see_through_.count();
    if (n == 0 || n > kMaxBinnedSeeThrough) {
      bins_valid_ = false;
      return;
    }
    if (bins_built_ && binned_tree_ == tree_version_ && same_camera(binned_camera_, camera)) {
      if (bins_valid_ && !bounded_) bound_see_through_for(exec, camera);
      return;
    }
    const auto start = std::chrono::steady_clock::now();
    // Marked built only once the lists are whole on the device: a frame whose upload fails (out
    // of memory) is skipped, and the next one bins again.
    bins_valid_ = false;
    bins_built_ = false;
    bounded_ = false;
    binned_triangles_.resize(n);
    exec.download(see_through_.view().triangles, binned_triangles_.data(), n);
    const std::uint64_t most =
        kSeeThroughEntriesPerTile * screen_tile_count(camera, kSeeThroughTileShift) + n;
    const bool binned = detail::bin_see_through(camera, binned_triangles_.data(), n, most, bins_);
    if (binned) {
      bins_tiles_ = screen_tiles_of(camera, kSeeThroughTileShift);
      exec.upload(bin_offsets_, bins_.offsets.data(), bins_.offsets.size());
      exec.upload(bin_slots_, bins_.slots.data(), bins_.slots.size());
      exec.upload(bin_nearest_, bins_.nearest.data(), bins_.nearest.size());
      exec.synchronize();
    }
    bins_valid_ = binned;
    bins_built_ = true;
    binned_tree_ = tree_version_;
    binned_camera_ = camera;
    build_ms_ += ms_since(start);
  }

  // The lists' distance bounds (detail::bound_see_through), worked out on the second frame that
  // uses the lists: a camera or walls that move every frame never pay for them.
  void bound_see_through_for(const Executor& exec, const CameraFrame& camera) {
    const auto start = std::chrono::steady_clock::now();
    // Until the bounds are whole on the device; a failed upload bins again next frame.
    bins_valid_ = false;
    bins_built_ = false;
    detail::bound_see_through(camera, binned_triangles_.data(),
                              static_cast<std::uint32_t>(binned_triangles_.size()), bins_);
    exec.upload(bin_nearest_, bins_.nearest.data(), bins_.nearest.size());
    exec.synchronize();
    bins_valid_ = true;
    bins_built_ = true;
    bounded_ = true;
    build_ms_ += ms_since(start);
  }

  static bool same_point(Vec3 p, Vec3 q) { return p.x == q.x && p.y == q.y && p.z == q.z; }

  static bool same_camera(const CameraFrame& a, const CameraFrame& b) {
    return same_point(a.eye, b.eye) && same_point(a.u, b.u) && same_point(a.v, b.v) &&
           same_point(a.w, b.w) && a.half_height == b.half_height && a.aspect == b.aspect &&
           a.width == b.width && a.height == b.height && a.orthographic == b.orthographic &&
           a.column_step == b.column_step && a.row_step == b.row_step && a.x0 == b.x0 &&
           a.y0 == b.y0 && a.full_width == b.full_width && a.full_height == b.full_height;
  }

  // Every wall's triangles, in order, into unsorted_: uploaded from host memory, or converted
  // where they lie.
  void assemble(const Executor& exec, const WallList& walls) {
    std::size_t total = 0;
    for (const Wall& w : walls) total += w.triangle_count();
    if (total >= kNoHit) {
      throw Error("granray: " + std::to_string(total) +
                  " wall triangles exceed the 32-bit index range");
    }
    total_ = static_cast<std::uint32_t>(total);
    unsorted_.resize(total);
    any_back_only_ = std::any_of(walls.begin(), walls.end(),
                                 [](const Wall& w) { return w.faces == WallFaces::back; });
    // Host triangles travel in one upload; triangles in the backend's memory are read there.
    std::vector<Triangle> host;
    for (const Wall& w : walls) {
      if (w.in_place == nullptr) {
        host.insert(host.end(), w.triangles.begin(), w.triangles.end());
      } else if (w.in_place_space != Executor::native_space) {
        if (w.in_place_space != MemorySpace::host) {
          throw DeviceError(std::string("granray ") + Executor::name +
                            " backend cannot read wall triangles held in device memory");
        }
        host.insert(host.end(), w.in_place, w.in_place + w.in_place_count);
      }
    }
    exec.upload(uploaded_, host.data(), host.size());
    std::vector<Vec3> colors;
    std::vector<float> opacity;
    std::uint32_t first = 0;
    std::size_t uploaded = 0;
    for (std::size_t k = 0; k < walls.size(); ++k) {
      const Wall& w = walls[k];
      colors.push_back(w.color);
      opacity.push_back(w.opacity);
      const auto n = static_cast<std::uint32_t>(w.triangle_count());
      if (n == 0) continue;
      const Triangle* from = w.in_place;
      if (from == nullptr || w.in_place_space != Executor::native_space) {
        from = uploaded_.data() + uploaded;
        uploaded += n;
      }
      const std::uint32_t wall = static_cast<std::uint32_t>(k) |
                                 (w.faces == WallFaces::back ? kBackFacesOnly : 0u) |
                                 (w.opacity < 1.0f ? kSeeThrough : 0u);
      thrust::for_each_n(exec.policy(), Index(0), n,
                         ToWallTriangles{from, first, wall, unsorted_.data()});
      first += n;
    }
    exec.upload(colors_, colors.data(), colors.size());
    exec.upload(opacity_, opacity.data(), opacity.size());
  }

  Array<Triangle> uploaded_;
  Array<WallTriangle> unsorted_;  // every triangle of the walls
  Array<WallTriangle> shown_;     // those this camera shows
  WallTreeArrays opaque_;
  WallTreeArrays see_through_;
  Array<SeeThroughFacet> facets_;  // per slot of see_through_
  Array<FacetShade> shades_;       // per slot of see_through_
  Array<Vec3> colors_;
  Array<float> opacity_;
  Array<ClipPlane> planes_;
  std::vector<ClipPlane> uploaded_planes_;  // what planes_ holds
  Array<std::uint8_t> material_slots_;      // per wall (contract 2e)
  std::vector<std::uint8_t> uploaded_material_slots_;
  bool materials_on_ = false;
  Array<WallTriangle> every_opaque_triangles_;  // for bounce rays (build_every_opaque_for)
  WallTreeArrays every_opaque_;
  bool bounces_wanted_ = false;  // the frame has metal or glass, or is path-traced
  bool every_built_ = false;
  std::shared_ptr<const WallList> built_from_;
  std::uint32_t total_ = 0;
  bool any_back_only_ = false;
  bool tree_built_ = false;
  Vec3 eye_{0.0f, 0.0f, 0.0f};
  Vec3 view_dir_{0.0f, 0.0f, 0.0f};
  bool orthographic_ = false;
  WallBox box_ = empty_wall_box();
  std::uint64_t tree_version_ = 0;  // bumped by each build of the trees (the first is 1)
  // What shades_ was worked out for (shade_facets_for); tree 0: nothing yet.
  std::uint64_t shaded_tree_ = 0;
  Vec3 shaded_light_{0.0f, 0.0f, 0.0f};
  bool shades_apply_ = true;  // under this frame's light (shade_facets_for)
  float shaded_ambient_ = 0.0f, shaded_diffuse_ = 0.0f;
  // The see-through lists (bin_see_through_for) and what they were built for.
  detail::SeeThroughBins bins_;
  Array<std::uint32_t> bin_offsets_;
  Array<std::uint32_t> bin_slots_;
  Array<float> bin_nearest_;
  ScreenTiles bins_tiles_{0, 0};
  bool bins_valid_ = false, bins_built_ = false;
  bool bounded_ = false;                        // bins_.nearest holds the bounds
  std::vector<WallTriangle> binned_triangles_;  // what bins_ was made of, for the bounds
  std::uint64_t binned_tree_ = 0;
  CameraFrame binned_camera_{};
  int plane_count_ = 0;
  double build_ms_ = 0.0;
  CapsuleView capsules_{};
};

}  // namespace granray::GRANRAY_BACKEND_NAMESPACE
