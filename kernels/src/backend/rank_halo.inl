// The buffers of a lit frame across ranks by halo (lit_across_ranks.inl): this rank's particles
// followed by its halo, the halo picked for the other ranks, and the queries and answers of
// secondary rays. Part of the backend (thrust_backend.inl); included inside namespace
// granray::GRANRAY_BACKEND_NAMESPACE.

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
        answered_(account, "answered samples"),
        shown_(account, "samples as shown") {}

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

  // This rank's particles followed by its halo, in this backend's memory, with explicit ids.
  ParticleView combine(const Executor& exec, const ResidentParticles& own, std::uint64_t id_offset,
                       const float* own_select, const HostParticles& halo) {
    const std::size_t n = own.count, h = halo.xyzr.size();
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
    append(exec, halo_spheres_, halo.xyzr, spheres_, n);
    append(exec, halo_ids_, halo.ids, ids_, n);
    ParticleView view;
    view.space = Executor::native_space;
    view.xyzr = spheres_.data();
    view.ids = ids_.data();
    view.count = n + h;
    if (own_select != nullptr) {
      select_.resize(n + h);
      if (n > 0) thrust::copy(exec.policy(), own_select, own_select + n, select_.data());
      if (halo.select.size() == h) append(exec, halo_select_, halo.select, select_, n);
      view.select_scalar = select_.data();
    }
    return view;
  }

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
  void upload_answers(const Executor& exec, const std::vector<std::uint32_t>& samples,
                      const std::vector<std::uint32_t>& words) {
    exec.upload(answered_, samples.data(), samples.size());
    exec.upload(answers_, words.data(), words.size());
  }
  ShownSample* shown(std::size_t count) {
    shown_.resize(count);
    return shown_.data();
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
  Array<std::uint32_t> answered_;
  Array<ShownSample> shown_;
};
