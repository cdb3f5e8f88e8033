// A point in time a test stops waiting at. Waits in the tests are bounded by one of these and
// block in poll() until a descriptor is ready or the time is up, so no test ever sleeps blindly.
#ifndef WARDEN_TESTS_SUPPORT_DEADLINE_H_
#define WARDEN_TESTS_SUPPORT_DEADLINE_H_

#include <chrono>

namespace warden::testing {

class Deadline {
 public:
  explicit Deadline(int timeout_ms)
      : at_(std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms)) {}

  // Milliseconds left, rounded up so that a poll() never returns before the deadline; 0 once past.
  int RemainingMs() const {
    const auto left = at_ - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) return 0;
    return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(left).count());
  }
  bool Expired() const { return RemainingMs() == 0; }

 private:
  std::chrono::steady_clock::time_point at_;
};

}  // namespace warden::testing

#endif  // WARDEN_TESTS_SUPPORT_DEADLINE_H_
