#include "storage/active_expiry.h"

namespace warden::storage {

bool ActiveExpiry::RunOnce(std::int64_t now_ms, std::int64_t budget_us) {
  ++slices_;
  const std::int64_t start_us = clock_.MonotonicUs();
  std::int64_t sampled_total = 0;
  std::int64_t expired_total = 0;
  bool out_of_budget = false;
  const int count = dbs_.count();
  for (int visited = 0; visited < count && !out_of_budget; ++visited) {
    const int index = next_db_;
    Keyspace& keyspace = dbs_.db(index);
    if (keyspace.volatile_size() > 0) {
      std::int64_t db_expired = 0;
      std::int64_t db_sampled = 0;
      out_of_budget = RunDb(keyspace, now_ms, start_us, budget_us, db_sampled, db_expired) ==
                      DbResult::kOutOfBudget;
      sampled_total += db_sampled;
      expired_total += db_expired;
    }
    // A slice that ran out of budget resumes in the same database.
    if (!out_of_budget) next_db_ = (next_db_ + 1) % count;
  }
  if (sampled_total > 0) {
    const double current = static_cast<double>(expired_total) * 100 / sampled_total;
    stale_percent_ = current * 0.05 + stale_percent_ * 0.95;
  }
  if (out_of_budget) ++slices_out_of_budget_;
  busy_us_ += clock_.MonotonicUs() - start_us;
  return out_of_budget;
}

ActiveExpiry::DbResult ActiveExpiry::RunDb(Keyspace& keyspace, std::int64_t now_ms,
                                           std::int64_t start_us, std::int64_t budget_us,
                                           std::int64_t& sampled_total,
                                           std::int64_t& expired_total) {
  for (int loop = 1;; ++loop) {
    if (keyspace.volatile_size() == 0) return DbResult::kDone;
    const ExpireSample s = keyspace.SampleExpired(now_ms, options_.keys_per_loop);
    sampled_total += s.sampled;
    expired_total += s.expired;
    const int alive = s.sampled - s.expired;
    if (alive > 0) {
      // Redis weighs each new average by 2% (expire.c), smoothing over cycles.
      const std::int64_t avg = s.ttl_sum_ms / alive;
      average_ttl_ms_ = average_ttl_ms_ == 0 ? avg : (average_ttl_ms_ / 50) * 49 + avg / 50;
    }
    // Nothing with a deadline in the stretch swept: go on only while this slice has been
    // finding expired keys, and only until the sweep has covered the table.
    if (s.sampled == 0) {
      if (expired_total == 0 || s.wrapped) return DbResult::kDone;
    } else if (s.expired * 100 <= s.sampled * options_.acceptable_stale_percent) {
      return DbResult::kDone;
    }
    // Redis reads the clock every 16 loops. Here one loop can sweep hundreds of buckets when
    // keys with a deadline are sparse (late in a mass expiry, during a shrink), so 16 of them
    // could overrun the budget by milliseconds: read it every loop, which costs a few percent.
    if (clock_.MonotonicUs() - start_us >= budget_us) return DbResult::kOutOfBudget;
    // A manual clock does not move on its own: bound the slice by work as well.
    if (loop >= 100000) return DbResult::kOutOfBudget;
  }
}

}  // namespace warden::storage
