// The bounce pass level by level (kernels/bounce_levels.h), for one backend: each level's rays
// packed by a scan of the surfaces' counts, traced, then the colours gathered from the deepest
// level up. Included by backend/thrust_backend.inl inside namespace
// granray::GRANRAY_BACKEND_NAMESPACE, after its Executor, Memory and Array.

class BounceLevels {
 public:
  explicit BounceLevels(detail::MemoryAccount& account) : account_(&account) {}

  // Each sample's mix into `mixes` and, when `ray_counts` is given, each pixel's bounce rays and
  // their secondary rays there; false (then neither is complete) when the rays outgrow the
  // bound.
  template <class Scene, class Occluder>
  bool trace(const Executor& exec, const Scene& scene, const Occluder& occluded,
             const CameraFrame& camera, const ShadingParams& shading,
             const LightingParams& lighting, const SurfaceSample* surfaces,
             const std::uint8_t* slots, std::size_t samples, Vec4* mixes,
             std::uint32_t* ray_counts) {
    const auto policy = exec.policy();
    const SampleOrder order{camera, lighting.side * lighting.side};
    if (order.positions() > std::numeric_limits<std::uint32_t>::max()) return false;
    const auto n0 = static_cast<std::uint32_t>(order.positions());
    // Past kLevelRaysPerSample the frame takes the depth-first pass (frame_bytes_per_pixel
    // counts the levels' buffers up to that bound).
    const std::size_t most = kLevelRaysPerSample * samples;
    if (ray_counts != nullptr) {
      thrust::fill_n(policy, ray_counts, std::size_t(camera.width) * std::size_t(camera.height),
                     0u);
    }
    Level& roots = level(0);
    roots.nodes.resize(n0);
    roots.first.resize(std::size_t{n0} + 1);
    exec.for_each_index(n0, SplitSampleSurfaces{order, lighting, scene.table.params, surfaces,
                                                slots, roots.nodes.data(), roots.first.data() + 1});
    std::uint32_t counts[kMaxBounce + 1] = {n0};
    std::uint32_t next_count = scan_counts(exec, roots, n0);
    std::size_t total = 0;
    int depth = 0;
    while (next_count > 0 && depth < scene.table.bounces) {
      total += next_count;
      if (total > most) return false;
      Level& from = level(depth);
      Level& to = level(depth + 1);
      to.rays.resize(next_count);
      to.nodes.resize(next_count);
      to.values.resize(next_count);
      to.first.resize(std::size_t{next_count} + 1);
      exec.for_each_index(counts[depth], EmitLevelRays{order, from.nodes.data(),
                                                       depth == 0 ? nullptr : from.rays.data(),
                                                       from.first.data(), to.rays.data()});
      ++depth;
      counts[depth] = next_count;
      exec.for_each_index(next_count, TraceLevel<Scene, Occluder>{scene, occluded, camera, shading,
                                                                  lighting, to.rays.data(), depth,
                                                                  to.nodes.data(), to.values.data(),
                                                                  to.first.data() + 1, ray_counts});
      next_count = depth < scene.table.bounces ? scan_counts(exec, to, next_count) : 0u;
    }
    for (int d = depth - 1; d >= 1; --d) {
      exec.for_each_index(counts[d],
                          GatherLevel{level(d).nodes.data(), level(d).first.data(),
                                      level(d + 1).values.data(), level(d).values.data()});
    }
    exec.for_each_index(n0, FinishMixes{order, roots.nodes.data(), roots.first.data(),
                                        depth >= 1 ? level(1).values.data() : nullptr, mixes});
    return true;
  }

 private:
  struct Level {
    explicit Level(detail::MemoryAccount& account)
        : rays(account, "bounce rays of a level"),
          nodes(account, "bounce surfaces of a level"),
          values(account, "bounce colours of a level"),
          first(account, "bounce rays' offsets of a level") {}
    Array<LevelRay> rays;
    Array<BounceNode> nodes;
    Array<Vec3> values;
    Array<std::uint32_t> first;  // count + 1: first[e] the next level's first ray of surface e
  };

  Level& level(int d) {
    while (static_cast<int>(levels_.size()) <= d) {
      levels_.push_back(std::make_unique<Level>(*account_));
    }
    return *levels_[static_cast<std::size_t>(d)];
  }

  // first[1..n] holds the surfaces' ray counts: scanned in place behind first[0] = 0; returns
  // the next level's size.
  static std::uint32_t scan_counts(const Executor& exec, Level& l, std::uint32_t n) {
    const auto policy = exec.policy();
    std::uint32_t* first = l.first.data();
    thrust::fill_n(policy, first, 1, 0u);
    thrust::inclusive_scan(policy, first + 1, first + 1 + n, first + 1);
    std::uint32_t total = 0;
    exec.download(first + n, &total, 1);
    return total;
  }

  detail::MemoryAccount* account_;
  std::vector<std::unique_ptr<Level>> levels_;
};
