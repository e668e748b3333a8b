// The snapshots of granray-render's inputs, read on a thread of its own a few ahead of the
// renderer: the next snapshot is parsed while the current one renders. A reading error reaches
// the renderer's thread at the snapshot where it happened.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bounded_channel.h"
#include "granray/io/particle_file.h"

namespace granray::tools {

struct NamedFrame {
  io::ParticleFrame frame;
  std::string source;
  std::int64_t number;  // the snapshot's step, or its index when the file has none
};

class FrameSource {
 public:
  FrameSource(const std::vector<std::string>& inputs, io::ParticleFormat format,
              io::FieldNames fields)
      : snapshots_(kAhead),
        thread_([this, inputs, format, fields] { read(inputs, format, fields); }) {}
  ~FrameSource() {
    snapshots_.abandon();
    thread_.join();
  }
  FrameSource(const FrameSource&) = delete;
  FrameSource& operator=(const FrameSource&) = delete;

  // The next snapshot, or nothing after the last; rethrows a reading error. `in_file` is how many
  // snapshots the snapshot's file holds.
  std::optional<NamedFrame> next(std::size_t* in_file = nullptr) {
    std::optional<Snapshot> item = snapshots_.pop();
    if (!item) {
      snapshots_.rethrow_failure();
      return std::nullopt;
    }
    snapshots_.done();
    if (in_file) *in_file = item->in_file;
    return std::move(item->frame);
  }

 private:
  struct Snapshot {
    NamedFrame frame;
    std::size_t in_file;
  };
  static constexpr std::size_t kAhead = 2;

  void read(const std::vector<std::string>& inputs, io::ParticleFormat format,
            const io::FieldNames& fields) {
    std::int64_t index = 0;
    try {
      for (const std::string& input : inputs) {
        auto frames = io::read_particle_file(input, format, fields);
        const std::size_t count = frames.size();
        for (auto& frame : frames) {
          const std::int64_t number = frame.step.value_or(index++);
          if (!snapshots_.push({{std::move(frame), input, number}, count})) return;
        }
      }
    } catch (...) {
      snapshots_.close(std::current_exception());
      return;
    }
    snapshots_.close();
  }

  BoundedChannel<Snapshot> snapshots_;
  std::thread thread_;
};

}  // namespace granray::tools
