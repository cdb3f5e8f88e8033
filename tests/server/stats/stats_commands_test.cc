// INFO commandstats/errorstats/latencystats, CONFIG RESETSTAT, SLOWLOG and LATENCY through the
// dispatcher (Redis 7.0's slowlog.c, latency.c and server.c). The ManualClock stands still while a
// command runs, so every duration is 0 and the counts and entries are exact.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/stats/command_stats.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

class StatsCommandsTest : public CommandTest {
 protected:
  // The body of one INFO section, without its header and the bulk framing.
  std::string Section(std::string_view name) {
    const std::string reply = Run({"INFO", name});
    const std::size_t body = reply.find("\r\n", reply.find('#')) + 2;
    return reply.substr(body, reply.size() - 2 - body);
  }

  // The line of INFO `section` that starts with `prefix`, without CRLF; "" if none.
  std::string Line(std::string_view section, std::string_view prefix) {
    const std::string body = "\r\n" + Section(section);
    const std::size_t at = body.find("\r\n" + std::string(prefix));
    if (at == std::string::npos) return "";
    return body.substr(at + 2, body.find("\r\n", at + 2) - at - 2);
  }

  std::string Cmdstat(std::string_view name) {
    return Line("commandstats", "cmdstat_" + std::string(name) + ":");
  }
};

std::string Counts(int calls, int rejected, int failed) {
  return "calls=" + std::to_string(calls) +
         ",usec=0,usec_per_call=0.00,rejected_calls=" + std::to_string(rejected) +
         ",failed_calls=" + std::to_string(failed);
}

TEST_F(StatsCommandsTest, CommandstatsCountsCallsAndFailedCalls) {
  Run({"SET", "s", "v"});
  Run({"GET", "s"});
  Run({"LPUSH", "s", "x"});

  EXPECT_EQ(Cmdstat("set"), "cmdstat_set:" + Counts(1, 0, 0));
  EXPECT_EQ(Cmdstat("get"), "cmdstat_get:" + Counts(1, 0, 0));
  EXPECT_EQ(Cmdstat("lpush"), "cmdstat_lpush:" + Counts(1, 0, 1));
}

TEST_F(StatsCommandsTest, CommandstatsListsOnlyCommandsThatRan) {
  Run({"CONFIG", "RESETSTAT"});

  EXPECT_EQ(Section("commandstats"), "cmdstat_config|resetstat:" + Counts(1, 0, 0) + "\r\n");
}

TEST_F(StatsCommandsTest, WrongArityIsARejectedCall) {
  Run({"GET"});

  EXPECT_EQ(Cmdstat("get"), "cmdstat_get:" + Counts(0, 1, 0));
}

TEST_F(StatsCommandsTest, ContainerWithoutSubcommandIsRejectedOnTheContainer) {
  Run({"CONFIG"});

  EXPECT_EQ(Cmdstat("config"), "cmdstat_config:" + Counts(0, 1, 0));
}

TEST_F(StatsCommandsTest, SubcommandsAreNamedWithABar) {
  Run({"CLIENT", "SETNAME", "x"});

  EXPECT_EQ(Cmdstat("client|setname"), "cmdstat_client|setname:" + Counts(1, 0, 0));
}

TEST_F(StatsCommandsTest, UnknownCommandCountsOnlyAsAnError) {
  Run({"NOSUCH"});
  Run({"CLIENT", "NOSUCH"});

  EXPECT_EQ(Section("commandstats"), "");
  EXPECT_EQ(Section("errorstats"), "errorstat_ERR:count=2\r\n");
}

TEST_F(StatsCommandsTest, ScriptCallsAreCountedOnTheirCommand) {
  Run({"EVAL", "redis.call('set','k','v') return redis.call('lpush','k','x')", "0"});

  EXPECT_EQ(Cmdstat("set"), "cmdstat_set:" + Counts(1, 0, 0));
  EXPECT_EQ(Cmdstat("lpush"), "cmdstat_lpush:" + Counts(1, 0, 1));
  EXPECT_EQ(Cmdstat("eval"), "cmdstat_eval:" + Counts(1, 0, 1));
  // The script fails with its redis.call's error: one error reply, counted once.
  EXPECT_EQ(Section("errorstats"), "errorstat_WRONGTYPE:count=1\r\n");
}

TEST_F(StatsCommandsTest, ReturnedPcallErrorIsCountedOnce) {
  Run({"SET", "k", "v"});
  Run({"EVAL", "return redis.pcall('lpush','k','x')", "0"});

  EXPECT_EQ(Cmdstat("eval"), "cmdstat_eval:" + Counts(1, 0, 1));
  EXPECT_EQ(Line("stats", "total_error_replies:"), "total_error_replies:1");
}

TEST_F(StatsCommandsTest, SwallowedUnknownCommandInScriptDoesNotFailTheScript) {
  Run({"EVAL", "redis.pcall('nosuch')", "0"});

  EXPECT_EQ(Cmdstat("eval"), "cmdstat_eval:" + Counts(1, 0, 0));
  EXPECT_EQ(Section("errorstats"), "errorstat_ERR:count=1\r\n");
}

TEST_F(StatsCommandsTest, ScriptArityErrorIsARejectedCall) {
  Run({"EVAL", "redis.pcall('get')", "0"});

  EXPECT_EQ(Cmdstat("get"), "cmdstat_get:" + Counts(0, 1, 0));
  EXPECT_EQ(Cmdstat("eval"), "cmdstat_eval:" + Counts(1, 0, 0));
}

TEST_F(StatsCommandsTest, ErrorTableCodesKeepCaseAndDashes) {
  Run({"EVAL", "return {err='lowercase x'}", "0"});
  Run({"EVAL", "return {err='-DASH x'}", "0"});
  Run({"EVAL", "return {err='nospace'}", "0"});

  EXPECT_EQ(Section("errorstats"),
            "errorstat_-DASH:count=1\r\nerrorstat_ERR:count=1\r\nerrorstat_lowercase:count=1\r\n");
}

TEST_F(StatsCommandsTest, ErrorCodeIsLookedForInTheFirst31Bytes) {
  const std::string code30(30, 'C');
  const std::string code31(31, 'D');
  Run({"EVAL", "return {err='" + code30 + " x'}", "0"});
  Run({"EVAL", "return {err='" + code31 + " x'}", "0"});

  EXPECT_EQ(Section("errorstats"), "errorstat_" + code30 + ":count=1\r\nerrorstat_ERR:count=1\r\n");
}

TEST_F(StatsCommandsTest, NoauthIsARejectedCall) {
  Run({"CONFIG", "SET", "requirepass", "secret"});
  session_.authenticated = false;
  Run({"GET", "k"});
  session_.authenticated = true;

  EXPECT_EQ(Cmdstat("get"), "cmdstat_get:" + Counts(0, 1, 0));
  EXPECT_EQ(Section("errorstats"), "errorstat_NOAUTH:count=1\r\n");
}

TEST_F(StatsCommandsTest, ResetstatClearsCountersButNotTheSlowlog) {
  Run({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
  Run({"GET"});
  Run({"SET", "k", "v"});
  Run({"CONFIG", "RESETSTAT"});

  EXPECT_EQ(Line("stats", "total_commands_processed:"), "total_commands_processed:1");
  EXPECT_EQ(Line("stats", "total_error_replies:"), "total_error_replies:0");
  EXPECT_EQ(Section("errorstats"), "");
  // CONFIG SET, SET, CONFIG RESETSTAT and the three INFOs.
  EXPECT_EQ(Run({"SLOWLOG", "LEN"}), ":6\r\n");
}

TEST_F(StatsCommandsTest, LatencystatsReportsConfiguredPercentiles) {
  Run({"SET", "k", "v"});
  Run({"CONFIG", "SET", "latency-tracking-info-percentiles", "50 99.99 100"});

  // A zero duration is recorded as 1 ns, whose bucket ends at 1 ns.
  EXPECT_EQ(Line("latencystats", "latency_percentiles_usec_set:"),
            "latency_percentiles_usec_set:p50=0.001,p99.99=0.001,p100=0.001");
}

TEST_F(StatsCommandsTest, LatencyTrackingOffEmptiesLatencystats) {
  Run({"SET", "k", "v"});
  Run({"CONFIG", "SET", "latency-tracking", "no"});

  EXPECT_EQ(Section("latencystats"), "");
}

TEST_F(StatsCommandsTest, DefaultInfoLeavesOutCommandAndLatencyStats) {
  const std::string info = Run({"INFO"});

  EXPECT_EQ(info.find("# Commandstats"), std::string::npos);
  EXPECT_EQ(info.find("# Latencystats"), std::string::npos);
  EXPECT_NE(info.find("# Errorstats"), std::string::npos);
}

TEST_F(StatsCommandsTest, InfoEverythingIncludesCommandAndLatencyStats) {
  for (std::string_view arg : {"everything", "all", "ALL"}) {
    const std::string info = Run({"INFO", arg});
    EXPECT_NE(info.find("# Commandstats\r\n"), std::string::npos) << arg;
    EXPECT_NE(info.find("# Latencystats\r\n"), std::string::npos) << arg;
  }
}

TEST_F(StatsCommandsTest, InfoTakesSeveralSections) {
  EXPECT_EQ(Run({"INFO", "errorstats", "commandstats"}),
            "$32\r\n# Commandstats\r\n\r\n# Errorstats\r\n\r\n");
}

TEST_F(StatsCommandsTest, SlowlogLogsEveryCommandAtThresholdZero) {
  Run({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
  Run({"CLIENT", "SETNAME", "me"});
  session_.addr = "127.0.0.1:5000";
  Run({"SET", "k", "v"});

  EXPECT_EQ(Run({"SLOWLOG", "GET", "1"}),
            "*1\r\n*6\r\n:2\r\n:1700000000\r\n:0\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"
            "$14\r\n127.0.0.1:5000\r\n$2\r\nme\r\n");
}

TEST_F(StatsCommandsTest, SlowlogIsOffByDefaultForFastCommands) {
  Run({"SET", "k", "v"});

  EXPECT_EQ(Run({"SLOWLOG", "LEN"}), ":0\r\n");
}

TEST_F(StatsCommandsTest, SlowlogNegativeThresholdDisablesIt) {
  Run({"CONFIG", "SET", "slowlog-log-slower-than", "-1"});
  Run({"SET", "k", "v"});

  EXPECT_EQ(Run({"SLOWLOG", "LEN"}), ":0\r\n");
}

TEST_F(StatsCommandsTest, SlowlogCutsLongArgumentsAndArgumentLists) {
  Run({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
  const std::string long_value(130, 'x');
  Run({"SET", "k", long_value});
  Run({"DEL", "1",  "2",  "3",  "4",  "5",  "6",  "7",  "8",  "9",  "10", "11",
       "12",  "13", "14", "15", "16", "17", "18", "19", "20", "21", "22", "23",
       "24",  "25", "26", "27", "28", "29", "30", "31", "32", "33"});

  const std::string got = Run({"SLOWLOG", "GET", "2"});
  EXPECT_NE(got.find("$22\r\n... (3 more arguments)\r\n"), std::string::npos) << got;
  EXPECT_NE(got.find("$2\r\n30\r\n$22\r\n..."), std::string::npos) << got;
  EXPECT_NE(got.find(std::string(128, 'x') + "... (2 more bytes)\r\n"), std::string::npos) << got;
}

TEST_F(StatsCommandsTest, SlowlogRedactsSecrets) {
  Run({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
  Run({"AUTH", "pw"});

  const std::string got = Run({"SLOWLOG", "GET", "1"});
  EXPECT_NE(got.find("*2\r\n$4\r\nAUTH\r\n$10\r\n(redacted)\r\n"), std::string::npos) << got;
}

TEST_F(StatsCommandsTest, SlowlogIdsSurviveReset) {
  Run({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
  Run({"PING"});
  Run({"SLOWLOG", "RESET"});
  Run({"PING"});

  // 0: CONFIG SET, 1: PING, 2: SLOWLOG RESET (logged after it ran), 3: PING, 4: SLOWLOG LEN.
  EXPECT_EQ(Run({"SLOWLOG", "LEN"}), ":2\r\n");
  EXPECT_EQ(Run({"SLOWLOG", "GET", "1"}).substr(0, 12), "*1\r\n*6\r\n:4\r\n");
}

TEST_F(StatsCommandsTest, SlowlogMaxLenKeepsTheNewest) {
  Run({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
  Run({"CONFIG", "SET", "slowlog-max-len", "2"});
  Run({"PING"});

  EXPECT_EQ(Run({"SLOWLOG", "LEN"}), ":2\r\n");
}

TEST_F(StatsCommandsTest, SlowlogGetCountErrors) {
  EXPECT_EQ(Run({"SLOWLOG", "GET", "-2"}),
            ErrorReply("ERR count should be greater than or equal to -1"));
  EXPECT_EQ(Run({"SLOWLOG", "GET", "x"}),
            ErrorReply("ERR count should be greater than or equal to -1"));
  EXPECT_EQ(Run({"SLOWLOG", "GET", "1", "2"}),
            ErrorReply("ERR unknown subcommand or wrong number of arguments for 'GET'. Try "
                       "SLOWLOG HELP."));
  EXPECT_EQ(Run({"SLOWLOG", "GET", "0"}), "*0\r\n");
}

TEST_F(StatsCommandsTest, ScriptCommandsAreLoggedWithTheScriptClient) {
  Run({"CONFIG", "SET", "slowlog-log-slower-than", "0"});
  Run({"EVAL", "return redis.call('ping')", "0"});

  const std::string got = Run({"SLOWLOG", "GET", "2"});
  // Newest first: the EVAL, then the PING it ran.
  EXPECT_EQ(got.find("$4\r\nEVAL\r\n") < got.find("$4\r\nping\r\n"), true) << got;
  EXPECT_NE(got.find("$3\r\n?:0\r\n$0\r\n\r\n"), std::string::npos) << got;
}

TEST_F(StatsCommandsTest, LatencyMonitorIsOffByDefault) {
  Run({"SET", "k", "v"});

  EXPECT_EQ(Run({"LATENCY", "LATEST"}), "*0\r\n");
  EXPECT_EQ(Run({"LATENCY", "HISTORY", "command"}), "*0\r\n");
}

TEST_F(StatsCommandsTest, LatencyLatestAndHistoryShowSamples) {
  state_.latency.AddSample("command", 12, 1'700'000'000);
  state_.latency.AddSample("command", 15, 1'700'000'000);  // same second: raises the sample
  state_.latency.AddSample("command", 7, 1'700'000'001);

  EXPECT_EQ(Run({"LATENCY", "LATEST"}),
            "*1\r\n*4\r\n$7\r\ncommand\r\n:1700000001\r\n:7\r\n:15\r\n");
  EXPECT_EQ(Run({"LATENCY", "HISTORY", "command"}),
            "*2\r\n*2\r\n:1700000000\r\n:15\r\n*2\r\n:1700000001\r\n:7\r\n");
  EXPECT_EQ(Run({"LATENCY", "RESET", "COMMAND", "nosuch"}), ":1\r\n");
  EXPECT_EQ(Run({"LATENCY", "LATEST"}), "*0\r\n");
}

TEST_F(StatsCommandsTest, LatencyGraphDrawsTheSamples) {
  state_.latency.AddSample("command", 10, now_ms() / 1000 - 3);
  state_.latency.AddSample("command", 20, now_ms() / 1000);

  // Four rows of bars, a blank row, then each label written downwards: "3s" and "0s" ago.
  EXPECT_EQ(Run({"LATENCY", "GRAPH", "command"}),
            "$156\r\ncommand - high 20 ms, low 10 ms (all time high 20 ms)\n" +
                std::string(80, '-') + "\n #\n |\n |\n_|\n  \n30\nss\n\r\n");
}

TEST_F(StatsCommandsTest, LatencyGraphWithoutSamplesIsAnError) {
  EXPECT_EQ(Run({"LATENCY", "GRAPH", "command"}),
            ErrorReply("ERR No samples available for event 'command'"));
}

TEST_F(StatsCommandsTest, LatencyDoctorWhenDisabled) {
  EXPECT_NE(Run({"LATENCY", "DOCTOR"}).find("I'm sorry, Dave, I can't do that."),
            std::string::npos);
}

TEST_F(StatsCommandsTest, ConfigSetValidatesStatsOptions) {
  EXPECT_EQ(Run({"CONFIG", "SET", "slowlog-max-len", "-1"}),
            ErrorReply("ERR CONFIG SET failed (possibly related to argument 'slowlog-max-len') - "
                       "argument must be between 0 and 9223372036854775807 inclusive"));
  EXPECT_EQ(Run({"CONFIG", "SET", "slowlog-log-slower-than", "-2"}),
            ErrorReply("ERR CONFIG SET failed (possibly related to argument "
                       "'slowlog-log-slower-than') - argument must be between -1 and "
                       "9223372036854775807 inclusive"));
  EXPECT_EQ(Run({"CONFIG", "SET", "latency-tracking-info-percentiles", "101"}),
            ErrorReply("ERR CONFIG SET failed (possibly related to argument "
                       "'latency-tracking-info-percentiles') - latency-tracking-info-percentiles "
                       "parameters should sit between [0.0,100.0]"));
}

TEST_F(StatsCommandsTest, ConfigGetShowsStatsOptions) {
  EXPECT_EQ(Run({"CONFIG", "GET", "latency-tracking-info-percentiles"}),
            "*2\r\n$33\r\nlatency-tracking-info-percentiles\r\n$10\r\n50 99 99.9\r\n");
}

TEST(LatencyHistogramTest, PercentileIsTheHighestValueOfItsBucket) {
  LatencyHistogram h;
  h.Record(13'000);

  EXPECT_EQ(h.ValueAtPercentile(50), 13'055);
}

TEST(LatencyHistogramTest, SmallValuesAreExact) {
  LatencyHistogram h;
  for (int v = 1; v <= 100; ++v) h.Record(v);

  EXPECT_EQ(h.ValueAtPercentile(50), 50);
  EXPECT_EQ(h.ValueAtPercentile(99), 99);
  EXPECT_EQ(h.ValueAtPercentile(100), 100);
}

TEST(LatencyHistogramTest, ValuesPastTheMaximumAreClamped) {
  LatencyHistogram h;
  h.Record(5'000'000'000);

  EXPECT_GE(h.ValueAtPercentile(100), LatencyHistogram::kMaxValue);
  EXPECT_LT(h.ValueAtPercentile(100), LatencyHistogram::kMaxValue * 101 / 100);
}

TEST(LatencyHistogramTest, LogStepsReportEachPowerOfTwoWhereTheCountGrew) {
  LatencyHistogram h;
  for (int i = 0; i < 4; ++i) h.Record(1'000);
  h.Record(9'000);

  // LATENCY HISTOGRAM prints these as 1 -> 4 and 16 -> 5 microseconds.
  const std::vector<std::pair<std::int64_t, std::uint64_t>> expected = {{1'031, 4}, {16'511, 5}};
  EXPECT_EQ(h.LogSteps(1024, 2), expected);
}

}  // namespace
}  // namespace warden::server
