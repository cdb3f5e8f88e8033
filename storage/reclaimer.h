// Frees large values a little at a time. A hash of ten million fields takes seconds to free;
// DEL, UNLINK, overwrites and FLUSHALL hand such values here instead, and the server drains the
// queue in short slices between I/O, as active expiry runs. Small values are freed at once.
//
// A deferred value is unreachable: nothing but the reclaimer points to it. Its memory still
// counts in the pool until it is freed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>

#include "storage/keyspace.h"

namespace warden::storage {

class Reclaimer {
 public:
  // Values with fewer entries than this are freed on the spot.
  static constexpr std::size_t kDeferAbove = 64;

  Reclaimer() = default;
  // Frees what is left; the pool the tables use must still be alive.
  ~Reclaimer() { Drain(); }
  Reclaimer(const Reclaimer&) = delete;
  Reclaimer& operator=(const Reclaimer&) = delete;

  // Takes ownership of a value no longer reachable from any key.
  void Defer(std::unique_ptr<LargeValue> value);
  // Frees up to about `max_entries` entries; returns whether work is left.
  bool Step(std::size_t max_entries);
  // Frees everything now (shutdown, tests).
  void Drain();
  bool idle() const { return queue_.empty(); }
  std::size_t pending() const { return queue_.size(); }
  // Values freed in slices so far (INFO's lazyfreed_objects).
  std::uint64_t freed() const { return freed_; }

 private:
  std::deque<std::unique_ptr<LargeValue>> queue_;
  std::uint64_t freed_ = 0;
};

}  // namespace warden::storage
