// Seeded randomness for everything that picks at random (hash seeds, expiry sampling,
// RANDOMKEY), so a run can be replayed from its seed.
#pragma once

#include <cstdint>

namespace warden::storage {

// SplitMix64: tiny state, good enough statistics for sampling, and trivially seeded.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}

  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, bound); bound > 0. Lemire's multiply-shift, bias below 2^-32 for our sizes.
  std::uint64_t Below(std::uint64_t bound) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(Next()) * bound) >> 64);
  }

  void Reseed(std::uint64_t seed) { state_ = seed; }

 private:
  std::uint64_t state_;
};

}  // namespace warden::storage
