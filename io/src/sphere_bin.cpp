// Output files of the "sphere" CUDA DEM code (Damsgaard), format versions 2.11 to 2.15:
// native little-endian, no padding. Only the header and the particle positions and radii are
// kept, but every section is walked so a truncated file is reported, never half-read.
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include "granray/errors.h"
#include "granray/io/particle_file.h"

namespace granray::io {
namespace {

class ByteCursor {
 public:
  ByteCursor(const std::string& path, std::vector<char> bytes)
      : path_(path), bytes_(std::move(bytes)) {}

  template <class T>
  T read(const char* what) {
    need(sizeof(T), what);
    T value;
    std::memcpy(&value, bytes_.data() + offset_, sizeof(T));
    offset_ += sizeof(T);
    return value;
  }

  void skip(std::uint64_t count, std::size_t element_size, const char* what) {
    need(count * element_size, what);
    offset_ += count * element_size;
  }

  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(path_ + ": byte offset " + std::to_string(offset_) + ": " + message);
  }

  std::size_t offset() const { return offset_; }

  // Fails unless `bytes` more are there: a header's count is checked against the file's size
  // before anything is sized by it.
  void need(std::uint64_t bytes, const char* what) const {
    if (bytes > bytes_.size() - offset_) {
      fail(std::string("file truncated while reading ") + what + " (" + std::to_string(bytes) +
           " bytes needed, " + std::to_string(bytes_.size() - offset_) + " left)");
    }
  }

 private:
  std::string path_;
  std::vector<char> bytes_;
  std::size_t offset_ = 0;
};

}  // namespace

std::vector<ParticleFrame> read_sphere_bin(const std::string& path, const std::string& scalar) {
  if (!scalar.empty() && scalar != "speed") {
    throw InputError(path + ": sphere files give only 'speed' to colour by, not '" + scalar + "'");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open for reading");
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ByteCursor cur(path, std::move(bytes));

  const double version = cur.read<double>("the format version");
  const long hundredths = std::lround(version * 100.0);
  if (!(std::isfinite(version) && std::fabs(version * 100.0 - hundredths) < 1e-6 &&
        hundredths >= 211 && hundredths <= 215)) {
    throw InputError(path + ": byte offset 0: unsupported sphere format version " +
                     std::to_string(version) + " (2.11 to 2.15 are read)");
  }
  const auto nd = cur.read<std::uint32_t>("the dimension count");
  if (nd != 3) cur.fail("expected 3 dimensions, got " + std::to_string(nd));
  const auto np = cur.read<std::uint32_t>("the particle count");

  ParticleFrame frame;
  cur.read<double>("dt");
  frame.time = cur.read<double>("the current time");
  cur.read<double>("the total time");
  cur.read<double>("file_dt");
  frame.step = cur.read<std::uint32_t>("step_count");

  cur.skip(6, sizeof(double), "origo and L");
  cur.skip(3, sizeof(std::uint32_t), "num");
  cur.skip(1, sizeof(std::int32_t), "periodic");
  if (hundredths >= 214) cur.skip(1, sizeof(std::int32_t), "adaptive");

  cur.need(std::uint64_t{np} * 4 * sizeof(double), "particle positions and radii");
  frame.xyzr.reserve(np);
  for (std::uint32_t i = 0; i < np; ++i) {
    const double x = cur.read<double>("particle positions");
    const double y = cur.read<double>("particle positions");
    const double z = cur.read<double>("particle positions");
    const double r = cur.read<double>("particle radii");
    frame.xyzr.push_back({static_cast<float>(x), static_cast<float>(y), static_cast<float>(z),
                          static_cast<float>(r)});
  }
  cur.skip(std::uint64_t{np} * 3, sizeof(double), "xyzsum");
  for (std::uint32_t i = 0; i < np; ++i) {
    const double vx = cur.read<double>("particle velocities");
    const double vy = cur.read<double>("particle velocities");
    const double vz = cur.read<double>("particle velocities");
    cur.read<double>("fixvel");
    if (!scalar.empty())
      frame.scalar.push_back(static_cast<float>(std::sqrt(vx * vx + vy * vy + vz * vz)));
  }
  // force, angpos, angvel, torque (3 each), es_dot, es, ev_dot, ev, p.
  cur.skip(std::uint64_t{np} * (3 + 3 + 3 + 3 + 5), sizeof(double), "particle state");
  cur.skip(3 + 3, sizeof(double), "gravity and stiffnesses");
  if (hundredths >= 213) cur.skip(1, sizeof(double), "E");
  cur.skip(11, sizeof(double), "damping and friction parameters");
  cur.skip(1, sizeof(std::uint32_t), "contactmodel");
  cur.skip(3, sizeof(double), "kappa, db, V_b");
  const auto nw = cur.read<std::uint32_t>("the wall count");
  cur.skip(nw, sizeof(std::int32_t), "wall modes");
  cur.skip(std::uint64_t{nw} * 8, sizeof(double), "wall state");
  cur.skip(3, sizeof(double), "wall loading");
  cur.skip(1, sizeof(double), "lambda_bar");
  const auto nb0 = cur.read<std::uint32_t>("the bond count");
  cur.skip(2, sizeof(double), "bond strengths");
  cur.skip(std::uint64_t{nb0} * 2, sizeof(std::uint32_t), "bond pairs");
  cur.skip(std::uint64_t{nb0} * 8, sizeof(double), "bond state");
  cur.skip(np, sizeof(std::int32_t), "particle colours");
  return {std::move(frame)};
}

}  // namespace granray::io
