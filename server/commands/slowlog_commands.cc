// SLOWLOG GET|LEN|RESET|HELP and LATENCY LATEST|HISTORY|RESET|DOCTOR|GRAPH|HISTOGRAM|HELP: the
// operator's views of slowlog.h and of the latency histograms of command_stats.h.
#include <cstdio>
#include <string>
#include <vector>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/errors.h"
#include "server/stats/latency_report.h"

namespace warden::server {
namespace {

// Redis's addReplySubcommandSyntaxError.
void SubcommandSyntaxError(CommandContext& ctx, std::string_view container) {
  ctx.reply.Error({"ERR unknown subcommand or wrong number of arguments for '",
                   ctx.arg(1).substr(0, 128), "'. Try ", container, " HELP."});
}

void SlowlogGetCommand(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    SubcommandSyntaxError(ctx, "SLOWLOG");
    return;
  }
  const auto& entries = ctx.server.slowlog.entries();
  std::int64_t count = 10;
  if (ctx.argc() == 3) {
    if (!protocol::ParseStrictInt64(ctx.arg(2), count) || count < -1) {
      ctx.reply.Error("ERR count should be greater than or equal to -1");
      return;
    }
    if (count == -1) count = static_cast<std::int64_t>(entries.size());
  }
  const std::size_t sent = std::min(entries.size(), static_cast<std::size_t>(count));
  ctx.reply.ArrayHeader(sent);
  for (std::size_t i = 0; i < sent; ++i) {
    const SlowlogEntry& e = entries[i];
    ctx.reply.ArrayHeader(6);
    ctx.reply.Integer(e.id);
    ctx.reply.Integer(e.unix_s);
    ctx.reply.Integer(e.duration_us);
    ctx.reply.ArrayHeader(e.args.size());
    for (const std::string& arg : e.args) ctx.reply.Bulk(arg);
    ctx.reply.Bulk(e.client_addr);
    ctx.reply.Bulk(e.client_name);
  }
}

void SlowlogLenCommand(CommandContext& ctx) {
  ctx.reply.Integer(static_cast<std::int64_t>(ctx.server.slowlog.entries().size()));
}

void SlowlogResetCommand(CommandContext& ctx) {
  ctx.server.slowlog.Reset();
  ctx.reply.Ok();
}

void SlowlogHelpCommand(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET [<count>]",
      "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
      "    Entries are made of:",
      "    id, timestamp, time in microseconds, arguments array, client IP and port,",
      "    client name",
      "LEN",
      "    Return the length of the slowlog.",
      "RESET",
      "    Reset the slowlog.",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.reply, kLines);
}

void LatencyLatestCommand(CommandContext& ctx) {
  const auto& events = ctx.server.latency.events();
  ctx.reply.ArrayHeader(events.size());
  for (const auto& [event, series] : events) {
    ctx.reply.ArrayHeader(4);
    ctx.reply.Bulk(event);
    ctx.reply.Integer(series.latest().unix_s);
    ctx.reply.Integer(series.latest().latency_ms);
    ctx.reply.Integer(series.max_ms);
  }
}

void LatencyHistoryCommand(CommandContext& ctx) {
  const LatencyMonitor::Series* series = ctx.server.latency.Find(ctx.arg(2));
  if (series == nullptr) {
    ctx.reply.ArrayHeader(0);
    return;
  }
  std::size_t samples = 0;
  for (const auto& s : series->samples) samples += s.unix_s != 0 ? 1 : 0;
  ctx.reply.ArrayHeader(samples);
  for (std::size_t j = 0; j < LatencyMonitor::kHistoryLen; ++j) {
    const auto& s = series->samples[(series->next + j) % LatencyMonitor::kHistoryLen];
    if (s.unix_s == 0) continue;
    ctx.reply.ArrayHeader(2);
    ctx.reply.Integer(s.unix_s);
    ctx.reply.Integer(s.latency_ms);
  }
}

void LatencyResetCommand(CommandContext& ctx) {
  if (ctx.argc() == 2) {
    ctx.reply.Integer(ctx.server.latency.ResetAll());
    return;
  }
  int dropped = 0;
  for (std::size_t j = 2; j < ctx.argc(); ++j) dropped += ctx.server.latency.Reset(ctx.arg(j));
  ctx.reply.Integer(dropped);
}

void LatencyGraphCommand(CommandContext& ctx) {
  const LatencyMonitor::Series* series = ctx.server.latency.Find(ctx.arg(2));
  if (series == nullptr) {
    ctx.reply.Error({"ERR No samples available for event '", ctx.arg(2), "'"});
    return;
  }
  ctx.reply.Verbatim(LatencyGraph(ctx.arg(2), *series, ctx.server.clock.NowMs() / 1000));
}

void LatencyDoctorCommand(CommandContext& ctx) {
  ctx.reply.Verbatim(LatencyDoctorReport(ctx.server));
}

// The cumulative distribution of one command's histogram: calls, then a map from each power of
// two of microseconds (from 1024 ns) to the calls at or below it (Redis's fillCommandCDF).
void ReplyCommandCdf(CommandContext& ctx, const CommandCounters& counters) {
  const LatencyHistogram& h = *counters.latency;
  ctx.reply.MapHeader(2);
  ctx.reply.Bulk("calls");
  ctx.reply.Integer(static_cast<std::int64_t>(h.total_count()));
  ctx.reply.Bulk("histogram_usec");
  const std::vector<std::pair<std::int64_t, std::uint64_t>> steps = h.LogSteps(1024, 2);
  ctx.reply.MapHeader(steps.size());
  for (const auto& [highest_ns, cumulative] : steps) {
    ctx.reply.Integer(highest_ns / 1000);
    ctx.reply.Integer(static_cast<std::int64_t>(cumulative));
  }
}

void LatencyHistogramCommand(CommandContext& ctx) {
  std::vector<const CommandSpec*> chosen;
  const auto add = [&](const CommandSpec& spec) {
    if (ctx.server.command_stats.For(spec).latency != nullptr) chosen.push_back(&spec);
  };
  if (ctx.argc() == 2) {
    ctx.server.command_stats.ForEach(
        [&](const CommandSpec& spec, const CommandCounters&) { add(spec); });
  }
  // Redis's order: as the names are given, a container standing for its subcommands; unknown
  // names are skipped.
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    const CommandSpec* spec = ctx.server.command_names.FindFullName(ctx.arg(j));
    if (spec == nullptr) continue;
    add(*spec);
    if (spec->is_container()) {
      for (const CommandSpec& sub : spec->subcommands()) add(sub);
    }
  }
  ctx.reply.MapHeader(chosen.size());
  for (const CommandSpec* spec : chosen) {
    ctx.reply.Bulk(spec->name);
    ReplyCommandCdf(ctx, ctx.server.command_stats.For(*spec));
  }
}

void LatencyHelpCommand(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DOCTOR",
      "    Return a human readable latency analysis report.",
      "GRAPH <event>",
      "    Return an ASCII latency graph for the <event> class.",
      "HISTORY <event>",
      "    Return time-latency samples for the <event> class.",
      "LATEST",
      "    Return the latest latency samples for all events.",
      "RESET [<event> ...]",
      "    Reset latency data of one or more <event> classes.",
      "    (default: reset all data for all event classes)",
      "HISTOGRAM [COMMAND ...]",
      "    Return a cumulative distribution of latencies in the format of a histogram for the "
      "specified command names.",
      "    If no commands are specified then all histograms are replied.",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.reply, kLines);
}

// clang-format off
constexpr CommandSpec kSlowlogTable[] = {
    {"slowlog|get",   -2, kAdmin | kLoading | kStale, SlowlogGetCommand,   0, 0, 0, "@admin @slow @dangerous"},
    {"slowlog|help",   2, kLoading | kStale,          SlowlogHelpCommand,  0, 0, 0, "@slow"},
    {"slowlog|len",    2, kAdmin | kLoading | kStale, SlowlogLenCommand,   0, 0, 0, "@admin @slow @dangerous"},
    {"slowlog|reset",  2, kAdmin | kLoading | kStale, SlowlogResetCommand, 0, 0, 0, "@admin @slow @dangerous"},
};

constexpr CommandSpec kLatencyTable[] = {
    {"latency|doctor",    2, kAdmin | kNoScript | kLoading | kStale, LatencyDoctorCommand,    0, 0, 0, "@admin @slow @dangerous"},
    {"latency|graph",     3, kAdmin | kNoScript | kLoading | kStale, LatencyGraphCommand,     0, 0, 0, "@admin @slow @dangerous"},
    {"latency|help",      2, kLoading | kStale,                      LatencyHelpCommand,      0, 0, 0, "@slow"},
    {"latency|histogram", -2, kAdmin | kNoScript | kLoading | kStale, LatencyHistogramCommand, 0, 0, 0, "@admin @slow @dangerous"},
    {"latency|history",   3, kAdmin | kNoScript | kLoading | kStale, LatencyHistoryCommand,   0, 0, 0, "@admin @slow @dangerous"},
    {"latency|latest",    2, kAdmin | kNoScript | kLoading | kStale, LatencyLatestCommand,    0, 0, 0, "@admin @slow @dangerous"},
    {"latency|reset",    -2, kAdmin | kNoScript | kLoading | kStale, LatencyResetCommand,     0, 0, 0, "@admin @slow @dangerous"},
};
// clang-format on

}  // namespace

std::span<const CommandSpec> SlowlogSubcommands() { return kSlowlogTable; }
std::span<const CommandSpec> LatencySubcommands() { return kLatencyTable; }

}  // namespace warden::server
