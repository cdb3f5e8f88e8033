// Active expiry: removes expired keys that nobody touches, by sampling, as Redis's
// activeExpireCycle does, but in short slices so that a mass expiry never stalls the loop.
//
// One RunOnce() samples `keys_per_loop` keys with a deadline, removes the expired ones, and
// repeats while more than `acceptable_stale_percent` of a sample was expired, until the real-time
// budget is spent. Each sample is O(1) and uniform over keys with a deadline, so the cost of a
// slice does not depend on how many keys there are. The server calls it from a timer (hz times a
// second) and, while the last slice ran out of budget, once per loop iteration: the work of an
// expiry storm is spread over many short slices with I/O served between them.
#pragma once

#include <cstdint>

#include "storage/clock.h"
#include "storage/databases.h"

namespace warden::storage {

struct ActiveExpiryOptions {
  int keys_per_loop = 20;             // ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP
  int acceptable_stale_percent = 10;  // ACTIVE_EXPIRE_CYCLE_ACCEPTABLE_STALE
};

class ActiveExpiry {
 public:
  ActiveExpiry(Databases& dbs, const Clock& clock, ActiveExpiryOptions options = {})
      : dbs_(dbs), clock_(clock), options_(options) {}

  // Runs one slice at `now_ms` for at most `budget_us` of real time, over every database in
  // turn (the next slice starts with the database after the one this slice ended in, as Redis
  // goes on from its current_db). Returns true when it stopped on the budget with expired keys
  // still being found, i.e. another slice should follow soon.
  bool RunOnce(std::int64_t now_ms, std::int64_t budget_us);
  // CONFIG SET active-expire-effort: applies from the next slice.
  void set_options(ActiveExpiryOptions options) { options_ = options; }

  // Running estimate of the share of sampled keys that were expired, in percent.
  double stale_percent() const { return stale_percent_; }
  // Running average of the remaining TTL of the keys sampled alive (INFO's avg_ttl).
  std::int64_t average_ttl_ms() const { return average_ttl_ms_; }
  std::uint64_t slices() const { return slices_; }
  // Forgets the running statistics (after FLUSHALL, as Redis resets avg_ttl).
  void ResetStats() {
    stale_percent_ = 0;
    average_ttl_ms_ = 0;
  }
  std::uint64_t slices_out_of_budget() const { return slices_out_of_budget_; }
  // Time spent in slices, in the clock's microseconds (INFO's expire_cycle_cpu_milliseconds).
  std::int64_t busy_us() const { return busy_us_; }

 private:
  enum class DbResult { kDone, kOutOfBudget };
  DbResult RunDb(Keyspace& keyspace, std::int64_t now_ms, std::int64_t start_us,
                 std::int64_t budget_us, std::int64_t& sampled_total, std::int64_t& expired_total);

  Databases& dbs_;
  const Clock& clock_;
  int next_db_ = 0;
  ActiveExpiryOptions options_;
  double stale_percent_ = 0;
  std::int64_t average_ttl_ms_ = 0;
  std::uint64_t slices_ = 0;
  std::uint64_t slices_out_of_budget_ = 0;
  std::int64_t busy_us_ = 0;
};

}  // namespace warden::storage
