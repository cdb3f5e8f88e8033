// Fault rules: parsing DEBUG FAULT ADD, matching and scheduling (FaultRules), and what the
// dispatcher does with each action. Timing (DELAY) and closed sockets are the python scenario's
// (tests/clients/python/test_debug_faults.py).
#include "server/debug/faults.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/command_table.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

std::optional<std::string> Parse(std::initializer_list<std::string_view> args, FaultRule& out) {
  return ParseFaultRule(std::span<const std::string_view>(args.begin(), args.size()), out);
}

FaultRule Rule(std::initializer_list<std::string_view> args) {
  FaultRule rule;
  const std::optional<std::string> error = Parse(args, rule);
  EXPECT_EQ(error, std::nullopt);
  return rule;
}

const CommandSpec& Spec(std::string_view name) { return *FindTopLevelCommand(name); }

// Whether the request fires a rule, shown as its action ("ERROR <text>", "DROP", ...) or "-".
class FaultRulesTest : public ::testing::Test {
 protected:
  std::string Show(std::initializer_list<std::string_view> args, std::string_view client = "") {
    std::span<const std::string_view> view(args.begin(), args.size());
    const CommandSpec* spec = FindTopLevelCommand(view[0]);
    if (spec->is_container()) spec = FindCommand(spec->subcommands(), view[1]);
    const std::optional<FaultHit> hit = rules_.Match(*spec, view, client);
    if (!hit) return "-";
    switch (hit->action) {
      case FaultAction::kError:
        return hit->error;
      case FaultAction::kDelay:
        return "DELAY " + std::to_string(hit->delay_ms);
      case FaultAction::kDrop:
        return "DROP";
      case FaultAction::kDropAfter:
        return "DROP-AFTER";
    }
    return "?";
  }

  FaultRules rules_{42};
};

TEST(ParseFaultRuleTest, ReadsMatchersScheduleAndAction) {
  const FaultRule rule = Rule({"command", "SET", "KEY", "lock:*", "CLIENT-NAME", "w?", "AFTER", "2",
                               "TIMES", "3", "PROBABILITY", "0.25", "DELAY", "10", "JITTER", "5"});
  EXPECT_EQ(rule.command, "set");
  EXPECT_EQ(rule.key_glob, "lock:*");
  EXPECT_EQ(rule.client_name_glob, "w?");
  EXPECT_EQ(rule.after, 2);
  EXPECT_EQ(rule.times, 3);
  EXPECT_EQ(rule.probability, 0.25);
  EXPECT_EQ(rule.probability_text, "0.25");
  EXPECT_EQ(DescribeFaultAction(rule), "DELAY 10 JITTER 5");
}

TEST(ParseFaultRuleTest, ErrorTextIsTheWholeLastArgument) {
  const FaultRule rule = Rule({"ERROR", "MOVED 3999 127.0.0.1:6381"});
  EXPECT_EQ(rule.action, FaultAction::kError);
  EXPECT_EQ(rule.error, "MOVED 3999 127.0.0.1:6381");
  EXPECT_EQ(rule.times, -1);
  EXPECT_FALSE(rule.command.has_value());
}

TEST(ParseFaultRuleTest, SubcommandNames) {
  EXPECT_EQ(Rule({"COMMAND", "Client|Kill", "DROP"}).command, "client|kill");
  FaultRule rule;
  EXPECT_EQ(Parse({"COMMAND", "client|nosuch", "DROP"}, rule),
            "ERR unknown command 'client|nosuch' in DEBUG FAULT ADD");
}

struct BadRule {
  std::vector<std::string_view> args;
  std::string error;
};

class ParseFaultRuleErrorTest : public ::testing::TestWithParam<BadRule> {};

TEST_P(ParseFaultRuleErrorTest, Refused) {
  FaultRule rule;
  EXPECT_EQ(ParseFaultRule(GetParam().args, rule), GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    Errors, ParseFaultRuleErrorTest,
    ::testing::Values(
        BadRule{{},
                "ERR DEBUG FAULT ADD needs an action: ERROR <text>, DELAY <ms> [JITTER <ms>], DROP "
                "or DROP-AFTER"},
        BadRule{{"KEY", "k"},
                "ERR DEBUG FAULT ADD needs an action: ERROR <text>, DELAY <ms> [JITTER <ms>], DROP "
                "or DROP-AFTER"},
        BadRule{{"COMMAND", "nosuch", "DROP"}, "ERR unknown command 'nosuch' in DEBUG FAULT ADD"},
        BadRule{{"COMMAND", "debug", "DROP"}, "ERR DEBUG commands are never faulted"},
        BadRule{{"TIMES", "0", "DROP"}, "ERR TIMES must be positive"},
        BadRule{{"AFTER", "-1", "DROP"}, "ERR AFTER must not be negative"},
        BadRule{{"AFTER", "x", "DROP"}, "ERR value is not an integer or out of range"},
        BadRule{{"PROBABILITY", "1.5", "DROP"}, "ERR PROBABILITY must be a number between 0 and 1"},
        BadRule{{"PROBABILITY", "nan", "DROP"}, "ERR PROBABILITY must be a number between 0 and 1"},
        BadRule{{"PROBABILITY", "0.5x", "DROP"},
                "ERR PROBABILITY must be a number between 0 and 1"},
        BadRule{{"DELAY", "-5"}, "ERR DELAY must not be negative"},
        BadRule{{"DELAY", "86400001"}, "ERR DELAY and JITTER must be at most 86400000 ms"},
        BadRule{{"DELAY", "1", "JITTER", "9223372036854775807"},
                "ERR DELAY and JITTER must be at most 86400000 ms"},
        BadRule{{"DELAY", "5", "JITTER"}, "ERR syntax error"},
        BadRule{{"DROP", "now"}, "ERR syntax error"}, BadRule{{"ERROR"}, "ERR syntax error"},
        BadRule{{"ERROR", ""}, "ERR the ERROR text must be one non-empty line"},
        BadRule{{"ERROR", "a\r\nb"}, "ERR the ERROR text must be one non-empty line"},
        BadRule{{"EXPLODE"}, "ERR syntax error"}));

TEST_F(FaultRulesTest, CommandMatchesByNameOrContainer) {
  rules_.Add(Rule({"COMMAND", "client", "ERROR", "ERR any client"}));
  rules_.Add(Rule({"COMMAND", "get", "DROP"}));
  EXPECT_EQ(Show({"CLIENT", "LIST"}), "ERR any client");
  EXPECT_EQ(Show({"get", "k"}), "DROP");
  EXPECT_EQ(Show({"GETDEL", "k"}), "-");
}

TEST_F(FaultRulesTest, KeyGlobMatchesAnyKeyPosition) {
  rules_.Add(Rule({"KEY", "lock:*", "DROP"}));
  EXPECT_EQ(Show({"SET", "lock:1", "v"}), "DROP");
  EXPECT_EQ(Show({"MSET", "a", "1", "lock:2", "v"}), "DROP");
  EXPECT_EQ(Show({"MSET", "a", "lock:1", "b", "v"}), "-");  // lock:1 is a value
  EXPECT_EQ(Show({"PING"}), "-");
}

TEST_F(FaultRulesTest, KeyGlobSeesScriptKeysNotArguments) {
  rules_.Add(Rule({"KEY", "lock:*", "DROP"}));
  EXPECT_EQ(Show({"EVAL", "return 1", "1", "lock:1", "lock:2"}), "DROP");
  EXPECT_EQ(Show({"EVALSHA", "abc", "0", "lock:1"}), "-");
  EXPECT_EQ(Show({"EVAL", "return 1", "1", "x", "lock:1"}), "-");
}

TEST_F(FaultRulesTest, ClientNameGlob) {
  rules_.Add(Rule({"CLIENT-NAME", "worker-*", "DROP"}));
  EXPECT_EQ(Show({"PING"}, "worker-7"), "DROP");
  EXPECT_EQ(Show({"PING"}, "web-1"), "-");
  EXPECT_EQ(Show({"PING"}, ""), "-");
}

TEST_F(FaultRulesTest, AfterLetsMatchingCommandsPassThenTimesRemovesTheRule) {
  rules_.Add(Rule({"COMMAND", "incr", "AFTER", "2", "TIMES", "2", "ERROR", "ERR x"}));
  std::vector<std::string> seen;
  for (int i = 0; i < 3; ++i) {
    seen.push_back(Show({"INCR", "n"}));
    seen.push_back(Show({"GET", "n"}));  // not matching: not counted
  }
  seen.push_back(Show({"INCR", "n"}));
  seen.push_back(Show({"INCR", "n"}));
  EXPECT_EQ(seen, (std::vector<std::string>{"-", "-", "-", "-", "ERR x", "-", "ERR x", "-"}));
  EXPECT_FALSE(rules_.armed());
}

TEST_F(FaultRulesTest, FirstFiringRuleWinsAndHidesTheRequestFromLaterRules) {
  rules_.Add(Rule({"COMMAND", "get", "TIMES", "1", "ERROR", "ERR first"}));
  rules_.Add(Rule({"AFTER", "1", "ERROR", "ERR second"}));
  EXPECT_EQ(Show({"GET", "k"}), "ERR first");
  EXPECT_EQ(Show({"GET", "k"}), "-");  // the second rule's first match
  EXPECT_EQ(Show({"GET", "k"}), "ERR second");
  EXPECT_EQ(rules_.rules()[0].matched, 2);
}

TEST_F(FaultRulesTest, DebugIsNeverShown) {
  rules_.Add(Rule({"DROP"}));
  EXPECT_EQ(Show({"DEBUG", "FAULT", "CLEAR"}), "-");
  EXPECT_EQ(rules_.rules()[0].matched, 0);
}

TEST_F(FaultRulesTest, JitterStaysWithinItsRange) {
  rules_.Add(Rule({"DELAY", "100", "JITTER", "10"}));
  for (int i = 0; i < 50; ++i) {
    const std::string shown = Show({"PING"});
    const int ms = std::stoi(shown.substr(6));
    EXPECT_GE(ms, 100);
    EXPECT_LE(ms, 110);
  }
}

// What a rule fires on depends only on the seed, its id and the requests it matched.
std::string Pattern(std::uint64_t seed, bool other_traffic) {
  FaultRules rules(seed);
  rules.Add(Rule({"COMMAND", "get", "PROBABILITY", "0.5", "DELAY", "1", "JITTER", "4"}));
  rules.Add(Rule({"COMMAND", "incr", "PROBABILITY", "0.3", "DROP"}));
  std::string out;
  const std::string_view incr[] = {"INCR", "n"};
  const std::string_view get[] = {"GET", "n"};
  for (int i = 0; i < 64; ++i) {
    if (other_traffic && i % 2 == 0) rules.Match(Spec("get"), get, "");
    out += rules.Match(Spec("incr"), incr, "") ? 'x' : '.';
  }
  return out;
}

TEST(FaultRulesSeedTest, SameSeedReplaysWhateverElseMatchesOtherRules) {
  const std::string quiet = Pattern(7, false);
  EXPECT_NE(quiet.find('x'), std::string::npos);
  EXPECT_NE(quiet.find('.'), std::string::npos);
  EXPECT_EQ(Pattern(7, true), quiet);
  EXPECT_NE(Pattern(8, false), quiet);
}

TEST(FaultRulesSeedTest, ClearRestartsIdsAndDraws) {
  FaultRules rules(3);
  rules.Add(Rule({"PROBABILITY", "0.5", "DROP"}));
  const std::string_view ping[] = {"PING"};
  std::string first;
  for (int i = 0; i < 32; ++i) first += rules.Match(Spec("ping"), ping, "") ? 'x' : '.';
  EXPECT_EQ(rules.Clear(), 1u);
  EXPECT_EQ(rules.Add(Rule({"PROBABILITY", "0.5", "DROP"})), 1);
  std::string second;
  for (int i = 0; i < 32; ++i) second += rules.Match(Spec("ping"), ping, "") ? 'x' : '.';
  EXPECT_EQ(second, first);
}

TEST(FaultRulesSeedTest, ShorthandReplacesItsOwnRule) {
  FaultRules rules(1);
  rules.Add(Rule({"DROP"}));
  rules.ReplaceShorthand(rules.fail_next_id, Rule({"TIMES", "1", "ERROR", "ERR a"}));
  rules.ReplaceShorthand(rules.fail_next_id, Rule({"TIMES", "2", "ERROR", "ERR b"}));
  ASSERT_EQ(rules.rules().size(), 2u);
  EXPECT_EQ(rules.rules()[1].error, "ERR b");
  rules.ReplaceShorthand(rules.fail_next_id, std::nullopt);
  EXPECT_EQ(rules.rules().size(), 1u);
  EXPECT_EQ(rules.fail_next_id, 0);
}

// Through the dispatcher.
class FaultCommandTest : public CommandTest {
 protected:
  FaultCommandTest() : CommandTest(DebugEnabled()) {}
  static Config DebugEnabled() {
    Config config = TestConfig();
    config.enable_debug_command = DebugCommandPolicy::kYes;
    return config;
  }
};

TEST_F(FaultCommandTest, ErrorAnswersAndSkipsTheCommand) {
  ASSERT_EQ(Run({"DEBUG", "FAULT", "ADD", "COMMAND", "set", "ERROR", "LOADING not yet"}), ":1\r\n");
  EXPECT_EQ(Run({"SET", "k", "v"}), "-LOADING not yet\r\n");
  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
}

TEST_F(FaultCommandTest, ErrorWhileQueuedAbortsExec) {
  ASSERT_EQ(Run({"DEBUG", "FAULT", "ADD", "COMMAND", "set", "ERROR", "OOM no room"}), ":1\r\n");
  ASSERT_EQ(Run({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "k", "v"}), "-OOM no room\r\n");
  EXPECT_EQ(Run({"EXEC"}), "-EXECABORT Transaction discarded because of previous errors.\r\n");
}

TEST_F(FaultCommandTest, DropClosesWithoutRunning) {
  ASSERT_EQ(Run({"DEBUG", "FAULT", "ADD", "DROP"}), ":1\r\n");
  EXPECT_EQ(Run({"SET", "k", "v"}), "");
  EXPECT_TRUE(session_.close_after_reply);
  session_.close_after_reply = false;
  ASSERT_EQ(Run({"DEBUG", "FAULT", "CLEAR"}), ":1\r\n");
  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
}

TEST_F(FaultCommandTest, DropAfterRunsButLosesTheReply) {
  ASSERT_EQ(Run({"DEBUG", "FAULT", "ADD", "TIMES", "1", "DROP-AFTER"}), ":1\r\n");
  EXPECT_EQ(Run({"SET", "k", "v", "NX"}), "");
  EXPECT_TRUE(session_.close_after_reply);
  session_.close_after_reply = false;
  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nv\r\n");
}

TEST_F(FaultCommandTest, FailNextIsAListedRule) {
  ASSERT_EQ(Run({"DEBUG", "FAIL-NEXT", "1", "boom"}), "+OK\r\n");
  EXPECT_EQ(Run({"DEBUG", "FAULT", "LIST"}),
            "*1\r\n*22\r\n$2\r\nid\r\n:1\r\n$7\r\ncommand\r\n$-1\r\n$3\r\nkey\r\n$-1\r\n"
            "$11\r\nclient-name\r\n$-1\r\n$5\r\nafter\r\n:0\r\n$5\r\ntimes\r\n:1\r\n"
            "$11\r\nprobability\r\n$1\r\n1\r\n$6\r\naction\r\n$14\r\nERROR ERR boom\r\n"
            "$7\r\nmatched\r\n:0\r\n$4\r\nhits\r\n:0\r\n$9\r\nremaining\r\n:1\r\n");
  EXPECT_EQ(Run({"PING"}), "-ERR boom\r\n");
  EXPECT_EQ(Run({"DEBUG", "FAULT", "LIST"}), "*0\r\n");
}

TEST_F(FaultCommandTest, RuleCountIsCapped) {
  state_.config.debug_fault_max_rules = 1;
  ASSERT_EQ(Run({"DEBUG", "FAULT", "ADD", "DROP"}), ":1\r\n");
  EXPECT_EQ(Run({"DEBUG", "FAULT", "ADD", "DROP"}),
            "-ERR too many fault rules: 1 installed, the most debug-fault-max-rules allows\r\n");
  EXPECT_EQ(Run({"DEBUG", "FAULT", "DEL", "1"}), ":1\r\n");
  EXPECT_EQ(Run({"DEBUG", "FAULT", "DEL", "1"}), ":0\r\n");
  EXPECT_EQ(Run({"DEBUG", "FAULT", "NOPE"}),
            "-ERR unknown subcommand or wrong number of arguments for 'FAULT NOPE'. Try DEBUG "
            "HELP.\r\n");
}

}  // namespace
}  // namespace warden::server
