// The only place warden reads time.
//
// NowMs() is the unix time that expiry, TTLs and TIME follow. It is injected: SystemClock in
// production, ManualClock in tests and for the DEBUG CLOCK commands, so a test can move a 30 s
// lease forward in a millisecond. MonotonicUs() is real elapsed time, for work budgets and
// latency; it never follows a frozen clock.
#pragma once

#include <chrono>
#include <cstdint>

namespace warden::storage {

class Clock {
 public:
  virtual ~Clock() = default;
  // Unix time in milliseconds.
  virtual std::int64_t NowMs() const = 0;
  // Unix time in microseconds (TIME).
  virtual std::int64_t NowUs() const = 0;
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

}  // namespace warden::storage
