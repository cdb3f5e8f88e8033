// The only place warden reads time.
//
// NowMs() is the unix time that expiry, TTLs and TIME follow. It is injected: SystemClock in
// production, ManualClock in tests and for the DEBUG CLOCK commands, so a test can move a 30 s
// lease forward in a millisecond. MonotonicUs() is real elapsed time, for work budgets and
// latency; it never follows a frozen clock.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>

namespace warden::storage {

class Clock {
 public:
  virtual ~Clock() = default;
  // Unix time in milliseconds.
  virtual std::int64_t NowMs() const = 0;
  // Unix time in microseconds (TIME).
  virtual std::int64_t NowUs() const = 0;
  // What a command's duration is measured in: by default MonotonicUs(); the system's unix time
  // for the production clocks, whatever a test did to NowUs() (Redis's call() uses ustime()).
  virtual std::int64_t RealUs() const { return MonotonicUs(); }
  // NowUs() as it was when RealUs() read `real_us`, so that one reading gives a command both its
  // start and the time it sees; by default a reading of its own.
  virtual std::int64_t NowUsAt(std::int64_t real_us) const {
    (void)real_us;
    return NowUs();
  }
  // Real elapsed time in microseconds from an arbitrary origin.
  virtual std::int64_t MonotonicUs() const {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

class SystemClock final : public Clock {
 public:
  std::int64_t NowMs() const override { return NowUs() / 1000; }
  std::int64_t NowUs() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  std::int64_t RealUs() const override { return NowUs(); }
  std::int64_t NowUsAt(std::int64_t real_us) const override { return real_us; }
};

// Time that moves only when told to. Starts at a fixed, plausible unix time so tests are
// reproducible.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(std::int64_t start_ms = 1'700'000'000'000) : now_us_(start_ms * 1000) {}
  std::int64_t NowMs() const override { return now_us_ / 1000; }
  std::int64_t NowUs() const override { return now_us_; }
  std::int64_t MonotonicUs() const override { return now_us_; }
  void SetMs(std::int64_t now_ms) { now_us_ = now_ms * 1000; }
  void AdvanceMs(std::int64_t delta_ms) { now_us_ += delta_ms * 1000; }

 private:
  std::int64_t now_us_;
};

// The production clock, with the controls a test suite needs over the wire (DEBUG CLOCK) or in
// process (EmbeddedServer): it follows the system clock plus an offset moved by AdvanceMs();
// Freeze() stops it at one instant until Real(). AdvanceMs() never moves time backwards. The
// state is atomic so an embedding test thread may read it while the server thread, the only
// writer, runs. DEBUG CLOCK passes any 64-bit number here: time saturates at the last instant
// whose microseconds fit in 64 bits (the year 294247) instead of overflowing.
class ControllableClock final : public Clock {
 public:
  std::int64_t NowMs() const override { return NowUs() / 1000; }
  std::int64_t NowUs() const override { return NowUsAt(system_.NowUs()); }
  std::int64_t RealUs() const override { return system_.NowUs(); }
  std::int64_t NowUsAt(std::int64_t real_us) const override {
    return frozen_.load(std::memory_order_acquire)
               ? frozen_us_.load(std::memory_order_relaxed)
               : AddUs(real_us, offset_us_.load(std::memory_order_relaxed));
  }
  bool frozen() const { return frozen_.load(std::memory_order_acquire); }
  // Stops time at `now_ms`.
  void Freeze(std::int64_t now_ms) {
    frozen_us_.store(MsToUs(now_ms), std::memory_order_relaxed);
    frozen_.store(true, std::memory_order_release);
  }
  // Moves time forward by `delta_ms` (ignored if negative), frozen or not.
  void AdvanceMs(std::int64_t delta_ms) {
    if (delta_ms <= 0) return;
    std::atomic<std::int64_t>& us = frozen() ? frozen_us_ : offset_us_;
    us.store(AddUs(us.load(std::memory_order_relaxed), MsToUs(delta_ms)),
             std::memory_order_relaxed);
  }
  // Back to the system clock, without offset.
  void Real() {
    offset_us_.store(0, std::memory_order_relaxed);
    frozen_.store(false, std::memory_order_release);
  }

 private:
  static constexpr std::int64_t kMaxUs = std::numeric_limits<std::int64_t>::max();
  static std::int64_t MsToUs(std::int64_t ms) {
    return std::clamp(ms, -kMaxUs / 1000, kMaxUs / 1000) * 1000;
  }
  // a + b for b >= 0, saturating.
  static std::int64_t AddUs(std::int64_t a, std::int64_t b) {
    return a > kMaxUs - b ? kMaxUs : a + b;
  }

  SystemClock system_;
  std::atomic<bool> frozen_{false};
  std::atomic<std::int64_t> frozen_us_{0};
  std::atomic<std::int64_t> offset_us_{0};
};

}  // namespace warden::storage
