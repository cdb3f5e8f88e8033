// The periodic work of the loop: the cron tick (Redis's serverCron: active expiry, rehashing,
// freeing, persistence and replication upkeep, the clients' checks, INFO's samples) and the
// idle-time slices of expiry and reclaiming that run between I/O.
#include <chrono>

#include "server/debug/debug_controls.h"
#include "server/scripting/script_engine.h"
#include "server/server.h"
#include "server/stats/memory_meter.h"

namespace warden::server {
namespace {

// Real time one active-expiry slice may take: short enough that a mass expiry never delays a
// reply by more than about this much.
constexpr std::int64_t kExpirySliceUs = 1000;
// While a resize is in progress, each cron tick moves buckets for this long, in batches of this
// many, on top of those moved per command.
constexpr std::int64_t kCronRehashBudgetUs = 500;
constexpr int kCronRehashBatch = 100;
// Empty 64 KiB slabs unmapped per cron tick: at hz 10, 5 MB a second. A munmap costs tens of
// microseconds, so a larger batch shows up in the latency of the tick that runs it.
constexpr int kCronTrimSlabs = 8;
// ClientsCron looks at this many connections a tick even when connection_count / hz is fewer
// (Redis's CLIENTS_CRON_MIN_ITERATIONS).
constexpr std::size_t kClientsCronMinVisits = 5;
// Entries a reclaimer step frees between two looks at the clock.
constexpr std::size_t kReclaimBatch = 2000;

}  // namespace

void Server::SampleInfoMetrics() {
  ServerState& s = state_;
  s.info_metrics.NotePeak(UsedMemory(s));
  // Real time, as Redis samples by mstime(): a frozen DEBUG CLOCK must not stop the rates.
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  s.info_metrics.Sample(now_ms, {s.stats.total_commands, s.stats.total_net_input_bytes,
                                 s.stats.total_net_output_bytes, s.stats.total_net_repl_input_bytes,
                                 s.stats.total_net_repl_output_bytes});
}

void Server::RunExpirySlice() {
  bool more = false;
  // Redis keeps the dataset still while clients are paused.
  // A replica waits for its master's DELs (Redis's replicas run no active expiry).
  if (state_.debug->active_expire_enabled && !state_.pause.active() &&
      !state_.replication.is_replica()) {
    const std::int64_t start_us = state_.clock.MonotonicUs();
    more = state_.active_expiry.RunOnce(state_.clock.NowMs(), kExpirySliceUs);
    // LATENCY's "expire-cycle" event, as Redis's activeExpireCycle records it.
    const std::int64_t elapsed_ms = (state_.clock.MonotonicUs() - start_us) / 1000;
    const std::int64_t threshold_ms = state_.config.latency_monitor_threshold_ms;
    if (threshold_ms != 0 && elapsed_ms >= threshold_ms) {
      state_.latency.AddSample("expire-cycle", elapsed_ms, state_.clock.NowMs() / 1000);
    }
  }
  // Large values deleted or flushed are freed in slices of the same length.
  storage::Reclaimer& reclaimer = state_.dbs.reclaimer();
  if (!reclaimer.idle()) {
    const std::int64_t start = state_.clock.MonotonicUs();
    while (reclaimer.Step(kReclaimBatch) && state_.clock.MonotonicUs() - start < kExpirySliceUs) {
    }
    more |= !reclaimer.idle();
  }
  // An eviction pass that ran out of time goes on here, between I/O (Redis's evictionTimeProc).
  if (state_.eviction.running) {
    PerformEvictions(state_);
    more |= state_.eviction.running;
  }
  if (more && !expire_idle_active_) {
    uv_idle_start(&expire_idle_, OnExpireIdle);
    expire_idle_active_ = true;
  } else if (!more && expire_idle_active_) {
    uv_idle_stop(&expire_idle_);
    expire_idle_active_ = false;
  }
}

void Server::OnExpireIdle(uv_idle_t* idle) { static_cast<Server*>(idle->data)->RunExpirySlice(); }

// As Redis's clientsCron: each tick looks at connection_count / hz connections (at least five),
// so every connection is seen about once a second whatever hz is, and 10,000 idle connections
// cost a thousand checks a tick rather than ten thousand.
void Server::ClientsCron() {
  const std::int64_t timeout_ms = state_.config.timeout_s * 1000;
  const std::int64_t now = state_.clock.NowMs();
  std::size_t visits = connection_count_ / static_cast<std::size_t>(state_.config.hz);
  visits = std::max(visits, std::min<std::size_t>(connection_count_, kClientsCronMinVisits));
  for (; visits > 0 && connections_ != nullptr; --visits) {
    Connection* c = cron_cursor_ != nullptr ? cron_cursor_ : connections_;
    cron_cursor_ = c->next;
    // A client over the soft output limit is closed once it has been for soft-seconds, even if
    // no new reply comes to trigger the check.
    // A blocked client is waiting by request, as in Redis: the idle timeout spares it.
    if (!c->EnforceOutputLimit() && timeout_ms > 0 && !c->session().blocked &&
        now - c->session().last_interaction_ms > timeout_ms) {
      c->Close();
    } else if (!c->closing()) {
      c->CloseIfHandshakeOverdue(uv_now(&loop_));
    }
  }
}

void Server::OnCron(uv_timer_t* timer) {
  auto* self = static_cast<Server*>(timer->data);
  if (self->state_.debug->cron_paused) return;
  self->RunExpirySlice();
  // Like Redis's incrementallyRehash: buckets in small batches for a bounded time, since moving
  // a bucket rehashes its keys and may miss cache on each.
  const std::int64_t start = self->state_.clock.MonotonicUs();
  while (self->state_.dbs.RehashSteps(kCronRehashBatch) &&
         self->state_.clock.MonotonicUs() - start < kCronRehashBudgetUs) {
  }
  self->state_.dbs.pool().Trim(kCronTrimSlabs);
  self->state_.aof.Cron();
  self->state_.snapshots.Cron();
  self->state_.migrate_sockets.CloseIdle(self->state_.clock.NowMs());
  self->state_.scripts->debug_children().Reap();
  self->state_.replication.Cron();
  self->state_.tracking.LimitTable();
  self->ClientsCron();
  self->SampleInfoMetrics();
  // CONFIG SET hz takes effect from the next tick.
  const std::uint64_t period_ms = 1000 / static_cast<std::uint64_t>(self->state_.config.hz);
  if (uv_timer_get_repeat(timer) != period_ms) uv_timer_set_repeat(timer, period_ms);
}

}  // namespace warden::server
