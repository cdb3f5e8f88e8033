#include "server/server_state.h"

#include <random>

#include "server/debug/debug_controls.h"
#include "server/eviction.h"
#include "server/log.h"
#include "server/scripting/script_engine.h"
#include "server/stats/memory_meter.h"

namespace warden::server {
namespace {

std::uint64_t InitialSeed(const Config& config) {
  if (config.seed.has_value()) return *config.seed;
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

}  // namespace

ServerState::ServerState(Config config_in, storage::Clock& clock_in)
    : config(std::move(config_in)),
      command_names(config.rename_commands),
      clock(clock_in),
      seed(InitialSeed(config)),
      random(seed),
      dbs(random, config.databases),
      active_expiry(dbs, clock,
                    storage::ActiveExpiryOptions{
                        .keys_per_loop = 20 + 5 * (config.active_expire_effort - 1),
                        .acceptable_stale_percent = 10 - (config.active_expire_effort - 1)}),
      start_ms(clock.NowMs()),
      start_monotonic_us(clock.MonotonicUs()),
      // The same seed: a run repeated with --seed <the logged one> draws the same faults too.
      debug(std::make_unique<DebugControls>(seed)) {
  if (!config.seed) config.seed_drawn = seed;
  static constexpr char kHex[] = "0123456789abcdef";
  run_id.resize(40);
  for (char& c : run_id) c = kHex[random.Below(16)];
  scripts = std::make_unique<ScriptEngine>(*this);
  dbs.SetExpiryListener(this);
  pause.set_on_change([this] { UpdateExpiryHold(); });
  ApplyEvictionConfig(*this);
  aof.set_policy(ParseAppendFsync(config.appendfsync));
  acl.pubsub_default_all = config.acl_pubsub_default_all;
  acl.SetDefaultPassword(config.requirepass);
}

ServerState::~ServerState() = default;

void ServerState::UpdateExpiryHold() {
  dbs.SetKeepExpired(pause.active() || (replication.is_replica() && config.repl.read_only));
}

void ServerState::EnterForkedChild() {
  if (log != nullptr) log->EnterChild();
  AdjustOomScore(/*child=*/true);
}

bool ServerState::AdjustOomScore(bool child) {
  const OomClass cls = child                             ? OomClass::kChild
                       : config.repl.master_host.empty() ? OomClass::kMaster
                                                         : OomClass::kReplica;
  const auto error = oom_score.Apply(config.oom_score_adj, config.oom_score_adj_values, cls);
  if (error && log != nullptr) log->Log(LogLevel::kWarning, "%s", error->c_str());
  return !error;
}

void ServerState::ResetStats() {
  const std::uint64_t expired = dbs.expired_keys();
  stats = ServerStats{};
  stats.expired_keys_before_reset = expired;
  stats.evicted_keys_before_reset = eviction.evicted_keys;
  stats.lazyfreed_before_reset = dbs.reclaimer().freed();
  command_stats.Reset();
  debug->unsupported.ResetCounts();
  info_metrics.reads_processed = 0;
  info_metrics.writes_processed = 0;
  info_metrics.ResetPeak(UsedMemory(*this));
}

}  // namespace warden::server
