// Pub/sub and MONITOR through the dispatcher, with clients whose connections are fakes: what
// each client's output receives, byte for byte, and when a flush is asked for. The exchanges
// between real sockets are compared with redis-server in tests/clients/python/test_pubsub.py.
#include <memory>
#include <vector>

#include "server/monitor.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

class FakeConnection final : public BlockedClientHost {
 public:
  std::string& reply_buffer() override { return out; }
  void Unblocked() override {}
  void ScheduleFlush() override { ++flushes; }

  std::string out;
  int flushes = 0;
};

struct Client {
  Session session;
  FakeConnection connection;
};

std::string Frame(int proto, std::initializer_list<std::string> items) {
  std::string out = (proto == 2 ? "*" : ">") + std::to_string(items.size()) + "\r\n";
  for (const std::string& item : items) out += item;
  return out;
}

std::string Int(int n) { return ":" + std::to_string(n) + "\r\n"; }

class PubSubTest : public CommandTest {
 protected:
  Client& NewClient(int proto = 2) {
    auto& c = *clients_.emplace_back(std::make_unique<Client>());
    c.session.id = state_.NewClientId();
    c.session.host = &c.connection;
    c.session.resp = proto;
    c.session.addr = "127.0.0.1:" + std::to_string(40000 + c.session.id);
    return c;
  }

  // Runs a command as `c`; its reply goes to its connection's output, as on a socket. Returns
  // and clears that output.
  std::string RunAs(Client& c, std::initializer_list<std::string_view> args) {
    protocol::ReplyWriter writer(&c.connection.out, c.session.resp);
    Dispatch(state_, c.session, std::span<const std::string_view>(args.begin(), args.size()),
             writer);
    return Take(c);
  }

  static std::string Take(Client& c) {
    std::string out;
    out.swap(c.connection.out);
    return out;
  }

  std::vector<std::unique_ptr<Client>> clients_;
};

TEST_F(PubSubTest, SubscribeConfirmsEachNameWithTheClientsCount) {
  Client& a = NewClient();
  EXPECT_EQ(RunAs(a, {"SUBSCRIBE", "c1", "c2", "c1"}),
            Frame(2, {BulkReply("subscribe"), BulkReply("c1"), Int(1)}) +
                Frame(2, {BulkReply("subscribe"), BulkReply("c2"), Int(2)}) +
                Frame(2, {BulkReply("subscribe"), BulkReply("c1"), Int(2)}));
  EXPECT_EQ(RunAs(a, {"PSUBSCRIBE", "p*"}),
            Frame(2, {BulkReply("psubscribe"), BulkReply("p*"), Int(3)}));
  // Shard channels are counted apart.
  EXPECT_EQ(RunAs(a, {"SSUBSCRIBE", "s"}),
            Frame(2, {BulkReply("ssubscribe"), BulkReply("s"), Int(1)}));
  EXPECT_TRUE(a.session.subscribed());
  EXPECT_EQ(a.session.sub_channels, 2u);
  EXPECT_EQ(a.session.sub_patterns, 1u);
  EXPECT_EQ(a.session.sub_shard_channels, 1u);
}

TEST_F(PubSubTest, PublishAppendsOneFramePerSubscriberAndAsksForAFlush) {
  Client& a = NewClient(2);
  Client& b = NewClient(3);
  Client& p = NewClient(3);
  RunAs(a, {"SUBSCRIBE", "news"});
  RunAs(b, {"SUBSCRIBE", "news"});
  RunAs(p, {"PSUBSCRIBE", "n*", "*s", "x"});

  EXPECT_EQ(Run({"PUBLISH", "news", "hello"}), ":4\r\n");

  const std::string ch = BulkReply("news");
  const std::string msg = BulkReply("hello");
  EXPECT_EQ(Take(a), Frame(2, {BulkReply("message"), ch, msg}));
  EXPECT_EQ(Take(b), Frame(3, {BulkReply("message"), ch, msg}));
  const std::string out = Take(p);
  // One pmessage per matching pattern, in an unspecified order.
  EXPECT_NE(out.find(Frame(3, {BulkReply("pmessage"), BulkReply("n*"), ch, msg})),
            std::string::npos);
  EXPECT_NE(out.find(Frame(3, {BulkReply("pmessage"), BulkReply("*s"), ch, msg})),
            std::string::npos);
  EXPECT_EQ(out.size(), 2 * Frame(3, {BulkReply("pmessage"), BulkReply("n*"), ch, msg}).size());
  EXPECT_EQ(a.connection.flushes, 1);
  EXPECT_EQ(p.connection.flushes, 2);
  EXPECT_EQ(Run({"PUBLISH", "nobody", "x"}), ":1\r\n");  // n*
  EXPECT_EQ(Run({"PUBLISH", "zzz", "x"}), ":0\r\n");
}

TEST_F(PubSubTest, ShardChannelsAreApart) {
  Client& a = NewClient();
  Client& p = NewClient();
  RunAs(a, {"SSUBSCRIBE", "s"});
  RunAs(p, {"PSUBSCRIBE", "*"});
  EXPECT_EQ(Run({"PUBLISH", "s", "m"}), ":1\r\n");
  EXPECT_EQ(Take(a), "");
  Take(p);
  EXPECT_EQ(Run({"SPUBLISH", "s", "m"}), ":1\r\n");
  EXPECT_EQ(Take(a), Frame(2, {BulkReply("smessage"), BulkReply("s"), BulkReply("m")}));
  EXPECT_EQ(Take(p), "");
  EXPECT_EQ(Run({"PUBSUB", "SHARDNUMSUB", "s", "t"}), "*4\r\n$1\r\ns\r\n:1\r\n$1\r\nt\r\n:0\r\n");
  EXPECT_EQ(Run({"PUBSUB", "SHARDCHANNELS"}), "*1\r\n$1\r\ns\r\n");
  EXPECT_EQ(Run({"PUBSUB", "CHANNELS"}), "*0\r\n");
}

TEST_F(PubSubTest, UnsubscribeWithoutNamesDropsAllInSubscriptionOrder) {
  Client& a = NewClient(3);
  EXPECT_EQ(RunAs(a, {"UNSUBSCRIBE"}), Frame(3, {BulkReply("unsubscribe"), "_\r\n", Int(0)}));
  RunAs(a, {"SUBSCRIBE", "b", "a"});
  RunAs(a, {"PSUBSCRIBE", "p"});
  EXPECT_EQ(RunAs(a, {"UNSUBSCRIBE"}),
            Frame(3, {BulkReply("unsubscribe"), BulkReply("b"), Int(2)}) +
                Frame(3, {BulkReply("unsubscribe"), BulkReply("a"), Int(1)}));
  EXPECT_TRUE(a.session.subscribed());
  EXPECT_EQ(RunAs(a, {"PUNSUBSCRIBE", "p", "q"}),
            Frame(3, {BulkReply("punsubscribe"), BulkReply("p"), Int(0)}) +
                Frame(3, {BulkReply("punsubscribe"), BulkReply("q"), Int(0)}));
  EXPECT_FALSE(a.session.subscribed());
  EXPECT_EQ(Run({"PUBSUB", "NUMSUB", "a", "b"}), "*4\r\n$1\r\na\r\n:0\r\n$1\r\nb\r\n:0\r\n");
  EXPECT_EQ(Run({"PUBSUB", "NUMPAT"}), ":0\r\n");
}

TEST_F(PubSubTest, Resp2SubscribedModeAllowsOnlyAFewCommands) {
  Client& a = NewClient();
  RunAs(a, {"SUBSCRIBE", "c"});
  EXPECT_EQ(RunAs(a, {"GET", "k"}),
            "-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / "
            "RESET are allowed in this context\r\n");
  EXPECT_EQ(RunAs(a, {"CLIENT", "ID"}).substr(0, 33), "-ERR Can't execute 'client|id': o");
  // Lookup and arity come first.
  EXPECT_EQ(RunAs(a, {"NOSUCH"}), "-ERR unknown command 'NOSUCH', with args beginning with: \r\n");
  EXPECT_EQ(RunAs(a, {"SUBSCRIBE"}), "-ERR wrong number of arguments for 'subscribe' command\r\n");
  EXPECT_EQ(RunAs(a, {"PING"}), "*2\r\n$4\r\npong\r\n$0\r\n\r\n");
  EXPECT_EQ(RunAs(a, {"PING", "x"}), "*2\r\n$4\r\npong\r\n$1\r\nx\r\n");
  EXPECT_EQ(RunAs(a, {"RESET"}), "+RESET\r\n");
  EXPECT_FALSE(a.session.subscribed());
  EXPECT_EQ(RunAs(a, {"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(Run({"PUBLISH", "c", "x"}), ":0\r\n");
}

TEST_F(PubSubTest, Resp3SubscriberRunsEverythingAndSeesItsOwnMessageFirst) {
  Client& a = NewClient(3);
  RunAs(a, {"SUBSCRIBE", "c"});
  EXPECT_EQ(RunAs(a, {"GET", "k"}), "_\r\n");
  EXPECT_EQ(RunAs(a, {"PING"}), "+PONG\r\n");
  EXPECT_EQ(RunAs(a, {"PUBLISH", "c", "me"}),
            Frame(3, {BulkReply("message"), BulkReply("c"), BulkReply("me")}) + ":1\r\n");
  EXPECT_EQ(RunAs(a, {"EVAL", "return redis.call('publish', 'c', 'lua')", "0"}),
            Frame(3, {BulkReply("message"), BulkReply("c"), BulkReply("lua")}) + ":1\r\n");
}

TEST_F(PubSubTest, ScriptsMayPublishButNotSubscribe) {
  EXPECT_EQ(Run({"EVAL", "return redis.pcall('subscribe', 'c')", "0"}),
            "-ERR This Redis command is not allowed from script\r\n");
  EXPECT_EQ(Run({"EVAL", "return redis.call('pubsub', 'numpat')", "0"}), ":0\r\n");
}

TEST_F(PubSubTest, RemovingAClientForgetsItsSubscriptions) {
  Client& a = NewClient();
  RunAs(a, {"SUBSCRIBE", "c"});
  RunAs(a, {"PSUBSCRIBE", "*"});
  state_.pubsub.RemoveClient(a.session);
  EXPECT_EQ(Run({"PUBLISH", "c", "x"}), ":0\r\n");
  EXPECT_EQ(Run({"PUBSUB", "CHANNELS"}), "*0\r\n");
  EXPECT_EQ(Take(a), "");
}

TEST_F(PubSubTest, InfoStatsCountsChannelsAndPatterns) {
  Client& a = NewClient();
  RunAs(a, {"SUBSCRIBE", "c1", "c2"});
  RunAs(a, {"PSUBSCRIBE", "p"});
  RunAs(a, {"SSUBSCRIBE", "s"});
  EXPECT_NE(Run({"INFO", "stats"})
                .find("\r\npubsub_channels:2\r\npubsub_patterns:1\r\npubsubshard_channels:1\r\n"),
            std::string::npos);
}

TEST_F(PubSubTest, PubsubSubcommandErrors) {
  EXPECT_EQ(Run({"PUBSUB", "CHANNELS", "a", "b"}),
            "-ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB "
            "HELP.\r\n");
  EXPECT_EQ(Run({"PUBSUB", "NUMPAT", "x"}),
            "-ERR wrong number of arguments for 'pubsub|numpat' command\r\n");
  EXPECT_EQ(Run({"PUBSUB", "FOO"}), "-ERR unknown subcommand 'FOO'. Try PUBSUB HELP.\r\n");
  EXPECT_EQ(Run({"PUBSUB", "NUMSUB"}), "*0\r\n");
}

TEST_F(PubSubTest, ClientListShowsModesAndCounts) {
  Client& a = NewClient();
  RunAs(a, {"SUBSCRIBE", "c1", "c2"});
  RunAs(a, {"PSUBSCRIBE", "p"});
  // CLIENT INFO is refused while subscribed in RESP2: ask in RESP3.
  a.session.resp = 3;
  const std::string info = RunAs(a, {"CLIENT", "INFO"});
  EXPECT_NE(info.find(" flags=P db=0 sub=2 psub=1 ssub=0 "), std::string::npos) << info;
}

// --- MONITOR ----------------------------------------------------------------------------------

TEST(MonitorQuoting, EscapesAsSdscatrepr) {
  std::string out;
  AppendQuoted(out, std::string_view("a\"b\\c\r\n\t\a\b\x01\x7f\xc3 'x'", 17));
  EXPECT_EQ(out, R"("a\"b\\c\r\n\t\a\b\x01\x7f\xc3 'x'")");
}

TEST_F(PubSubTest, MonitorShowsCommandsAfterTheyRanAndScriptsBeforeTheirCommands) {
  Client& m = NewClient();
  Client& c = NewClient();
  clock_.SetMs(1'796'158'992'993);
  EXPECT_EQ(RunAs(m, {"MONITOR"}), "+OK\r\n");
  EXPECT_TRUE(m.session.monitoring());
  RunAs(c, {"SELECT", "3"});
  RunAs(c, {"EVAL", "return redis.call('set', 'k', '1')", "0"});
  RunAs(c, {"CONFIG", "GET", "maxmemory"});  // admin: not shown
  RunAs(c, {"NOSUCH"});                      // rejected: not shown
  RunAs(c, {"AUTH", "pw"});
  const std::string addr = c.session.addr;
  EXPECT_EQ(Take(m), "+1796158992.993000 [3 " + addr + "] \"SELECT\" \"3\"\r\n" +
                         "+1796158992.993000 [3 " + addr +
                         "] \"EVAL\" \"return redis.call('set', 'k', '1')\" \"0\"\r\n" +
                         "+1796158992.993000 [3 lua] \"set\" \"k\" \"1\"\r\n" +
                         "+1796158992.993000 [3 " + addr + "] \"AUTH\" \"(redacted)\"\r\n");
  EXPECT_GT(m.connection.flushes, 0);
}

TEST_F(PubSubTest, AMonitorCannotTouchTheKeyspaceAndResetEndsIt) {
  Client& m = NewClient();
  RunAs(m, {"MONITOR"});
  EXPECT_EQ(RunAs(m, {"GET", "k"}), "-ERR Replica can't interact with the keyspace\r\n");
  EXPECT_EQ(RunAs(m, {"PUBLISH", "c", "x"}), "-ERR Replica can't interact with the keyspace\r\n");
  EXPECT_EQ(RunAs(m, {"PING"}),
            "+PONG\r\n+1700000000.000000 [0 " + m.session.addr + "] \"PING\"\r\n");
  EXPECT_EQ(RunAs(m, {"MONITOR"}), "");  // ignored, unanswered, as in Redis
  EXPECT_EQ(RunAs(m, {"RESET"}), "+RESET\r\n");
  EXPECT_FALSE(state_.monitors.active());
  Run({"SET", "k", "v"});
  EXPECT_EQ(Take(m), "");
}

}  // namespace
}  // namespace warden::server
