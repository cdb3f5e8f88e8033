// The ACL model without sockets: key positions from the key specs, SETUSER's all-or-nothing,
// the log's grouping and length, acl-pubsub-default, and the checks a session goes through.
// Replies that Redis gives the same way are compared with redis-server in
// tests/differential/cases/acl.txt and tests/clients/python/test_acl.py.
#include "server/acl/acl.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "server/command_table.h"
#include "server/key_specs.h"
#include "storage/glob.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

std::vector<std::pair<int, std::uint16_t>> Keys(std::vector<std::string_view> args) {
  const CommandSpec* spec = FindTopLevelCommand(args[0]);
  std::vector<KeyRef> refs;
  FindCommandKeys(CommandId(*spec), args, refs);
  std::vector<std::pair<int, std::uint16_t>> out;
  for (const KeyRef& r : refs) out.emplace_back(r.pos, r.flags);
  return out;
}

TEST(KeySpecsTest, FindsKeysAsRedisDoes) {
  using P = std::pair<int, std::uint16_t>;
  EXPECT_EQ(Keys({"get", "k"}), (std::vector<P>{{1, kKeyRO | kKeyAccess}}));
  EXPECT_EQ(Keys({"set", "k", "v"}), (std::vector<P>{{1, kKeyOW | kKeyUpdate}}));
  EXPECT_EQ(Keys({"set", "k", "v", "NX", "get"}),
            (std::vector<P>{{1, kKeyRW | kKeyAccess | kKeyUpdate}}));
  EXPECT_EQ(Keys({"mset", "a", "1", "b", "2"}),
            (std::vector<P>{{1, kKeyOW | kKeyUpdate}, {3, kKeyOW | kKeyUpdate}}));
  EXPECT_EQ(Keys({"del", "a", "b"}),
            (std::vector<P>{{1, kKeyRM | kKeyDelete}, {2, kKeyRM | kKeyDelete}}));
  EXPECT_EQ(Keys({"eval", "s", "2", "a", "b", "x"}).size(), 2u);
  EXPECT_EQ(Keys({"blmpop", "0", "2", "a", "b", "LEFT"}).size(), 2u);
  // A numkeys past the arguments, or not a number, names no keys: the command itself refuses.
  EXPECT_TRUE(Keys({"eval", "s", "5", "a"}).empty());
  EXPECT_TRUE(Keys({"eval", "s", "x", "a"}).empty());
  EXPECT_TRUE(Keys({"eval", "s", "-1", "a"}).empty());
  EXPECT_TRUE(Keys({"keys", "*"}).empty());
  EXPECT_FALSE(CommandHasKeys(CommandId(*FindTopLevelCommand("keys"))));
  EXPECT_TRUE(CommandHasKeys(CommandId(*FindTopLevelCommand("get"))));
}

TEST(AclModelTest, PrefixPatternsMatchAsGlobsDo) {
  EXPECT_TRUE(IsPrefixGlob("lock:*"));
  EXPECT_TRUE(IsPrefixGlob("*"));
  for (std::string_view not_prefix : {"lock:", "lo?k:*", "a*b*", "[ab]*", "a\\**", ""}) {
    EXPECT_FALSE(IsPrefixGlob(not_prefix)) << not_prefix;
  }
  Acl acl;
  const std::vector<std::string_view> rules = {"on", "nopass", "~lock:*", "%R~*x", "+@all"};
  ASSERT_EQ(acl.SetUser("u", rules), std::nullopt);
  const CommandSpec& del = *FindTopLevelCommand("del");
  for (std::string_view key : {"lock:", "lock:1", "lock", "lockx:1", "", "x"}) {
    const std::vector<std::string_view> args = {"del", key};
    int pos = 0;
    const bool glob = storage::GlobMatch("lock:*", key);
    EXPECT_EQ(AclCheck(*acl.Find("u"), del, args, pos) == AclDenial::kNone, glob) << key;
  }
}

TEST(AclModelTest, AFailedSetuserKeepsNothing) {
  Acl acl;
  const std::vector<std::string_view> good = {"on", ">pw", "~a:*", "+get"};
  ASSERT_EQ(acl.SetUser("u", good), std::nullopt);
  const std::string before = AclDescribeUser(*acl.Find("u"));
  const std::vector<std::string_view> bad = {"off", "resetpass", "+nosuch"};
  EXPECT_EQ(acl.SetUser("u", bad),
            "Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL");
  EXPECT_EQ(AclDescribeUser(*acl.Find("u")), before);
  EXPECT_NE(acl.SetUser("never", bad), std::nullopt);
  EXPECT_EQ(acl.Find("never"), nullptr);
}

TEST(AclModelTest, AReadWriteStarPatternIsDescribedSoItReadsBack) {
  // Redis 7.0 writes %RW~* as ~*, which reads back as allkeys: "~* ~a" is then refused, so a
  // file ACL SAVE wrote fails ACL LOAD (found by the fuzz_acl_rules round trip).
  Acl acl;
  const std::vector<std::string_view> rules = {"%RW~*", "~a", "(~b %RW~*)"};
  ASSERT_EQ(acl.SetUser("u", rules), std::nullopt);
  const std::string description = AclDescribeUser(*acl.Find("u"));
  EXPECT_EQ(description, "off %RW~* ~a resetchannels -@all (~b %RW~* resetchannels -@all)");

  const std::vector<std::string_view> again = {
      "off", "%RW~*", "~a", "resetchannels", "-@all", "(~b %RW~* resetchannels -@all)"};
  ASSERT_EQ(acl.SetUser("copy", again), std::nullopt);
  EXPECT_EQ(AclDescribeUser(*acl.Find("copy")), description);
  // ~* itself is still allkeys, as in Redis.
  const std::vector<std::string_view> all = {"~*"};
  ASSERT_EQ(acl.SetUser("all", all), std::nullopt);
  EXPECT_EQ(AclDescribeUser(*acl.Find("all")), "off ~* resetchannels -@all");
}

TEST(AclModelTest, OnlyAUserAllowedEverythingSkipsTheChecks) {
  Acl acl;
  EXPECT_TRUE(acl.default_user().unrestricted);
  const std::vector<std::string_view> all = {"on", "allkeys", "allchannels", "allcommands"};
  ASSERT_EQ(acl.SetUser("all", all), std::nullopt);
  EXPECT_TRUE(acl.Find("all")->unrestricted);
  const std::vector<std::string_view> minus = {"-debug"};
  ASSERT_EQ(acl.SetUser("all", minus), std::nullopt);
  EXPECT_FALSE(acl.Find("all")->unrestricted);
}

TEST(AclModelTest, KeyPatternsWithoutPermissionAreRefused) {
  // Redis 7.0 keeps "%" as a pattern with no permission and crashes describing it.
  Acl acl;
  for (std::string_view rule : {"%", "%~x", "%~"}) {
    const std::vector<std::string_view> rules = {rule};
    EXPECT_EQ(acl.SetUser("u", rules),
              "Error in ACL SETUSER modifier '" + std::string(rule) + "': Syntax error");
  }
}

TEST(AclModelTest, PasswordsAreStoredHashedAndComparedAll) {
  Acl acl;
  const std::vector<std::string_view> rules = {"on", ">one", ">two"};
  ASSERT_EQ(acl.SetUser("u", rules), std::nullopt);
  const AclUser& u = *acl.Find("u");
  ASSERT_EQ(u.passwords.size(), 2u);
  EXPECT_EQ(u.passwords[0], AclHashPassword("one"));
  // sha256("one"), as `printf one | sha256sum` gives it.
  EXPECT_EQ(u.passwords[0], "7692c3ad3540bb803c020b3aee66cd8887123234ea0c6e7143c0add73ff431ed");
  EXPECT_EQ(acl.Authenticate("u", "two"), &u);
  EXPECT_EQ(acl.Authenticate("u", "three"), nullptr);
  EXPECT_EQ(acl.Authenticate("nobody", "two"), nullptr);
}

TEST(AclModelTest, LogGroupsLikeEntriesAndKeepsItsLength) {
  Acl acl;
  const auto entry = [](std::string object, std::int64_t at_ms) {
    AclLogEntry e;
    e.object = std::move(object);
    e.username = "u";
    e.ctime_ms = at_ms;
    return e;
  };
  acl.AddLogEntry(entry("a", 0), 3);
  acl.AddLogEntry(entry("b", 1000), 3);
  acl.AddLogEntry(entry("a", 2000), 3);  // grouped with the first, moved to the front
  ASSERT_EQ(acl.log.size(), 2u);
  EXPECT_EQ(acl.log[0].object, "a");
  EXPECT_EQ(acl.log[0].count, 2u);
  EXPECT_EQ(acl.log[0].ctime_ms, 2000);
  acl.AddLogEntry(entry("a", 2000 + 60001), 3);  // over a minute later: a new entry
  EXPECT_EQ(acl.log.size(), 3u);
  acl.AddLogEntry(entry("c", 70000), 3);
  acl.AddLogEntry(entry("d", 70000), 3);
  ASSERT_EQ(acl.log.size(), 3u);
  EXPECT_EQ(acl.log[0].object, "d");
  EXPECT_EQ(acl.log[2].object, "a");
}

class AclCommandsTest : public CommandTest {};

TEST_F(AclCommandsTest, PubsubDefaultGivesNewUsersEveryChannel) {
  EXPECT_EQ(Run({"CONFIG", "GET", "acl-pubsub-default"}),
            "*2\r\n$18\r\nacl-pubsub-default\r\n$13\r\nresetchannels\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "acl-pubsub-default", "allchannels"}), "+OK\r\n");
  EXPECT_EQ(Run({"ACL", "SETUSER", "u"}), "+OK\r\n");
  EXPECT_EQ(Run({"ACL", "LIST"}),
            "*2\r\n$34\r\nuser default on nopass ~* &* +@all\r\n$19\r\nuser u off &* -@all\r\n");
  EXPECT_EQ(Run({"ACL", "SETUSER", "u", "reset"}), "+OK\r\n");
  EXPECT_EQ(Run({"ACL", "LIST"}),
            "*2\r\n$34\r\nuser default on nopass ~* &* +@all\r\n"
            "$36\r\nuser u off sanitize-payload &* -@all\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "acl-pubsub-default", "nosuch"}),
            "-ERR CONFIG SET failed (possibly related to argument 'acl-pubsub-default') - "
            "argument(s) must be one of the following: allchannels, resetchannels\r\n");
}

TEST_F(AclCommandsTest, LogKeepsAcllogMaxLenEntries) {
  Run({"CONFIG", "SET", "acllog-max-len", "2"});
  Run({"ACL", "SETUSER", "u", "on", "nopass", "-@all", "+get", "+acl|whoami"});
  Run({"AUTH", "u", "x"});
  for (std::string_view key : {"a", "b", "c"}) {
    EXPECT_EQ(Run({"GET", key}), ErrorReply("NOPERM this user has no permissions to access one "
                                            "of the keys used as arguments"));
  }
  Run({"AUTH", "default", "x"});
  EXPECT_EQ(state_.acl.log.size(), 2u);
  EXPECT_EQ(state_.acl.log[0].object, "c");
  EXPECT_EQ(state_.acl.log[1].object, "b");
}

TEST_F(AclCommandsTest, RequirepassIsTheDefaultUsersPassword) {
  EXPECT_EQ(Run({"CONFIG", "SET", "requirepass", "pw"}), "+OK\r\n");
  EXPECT_EQ(Run({"ACL", "GETUSER", "default"}).find("nopass"), std::string::npos);
  EXPECT_EQ(Run({"AUTH", "pw"}), "+OK\r\n");
  EXPECT_EQ(Run({"AUTH", "default", "pw"}), "+OK\r\n");
  EXPECT_EQ(Run({"AUTH", "nope"}),
            ErrorReply("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(Run({"ACL", "SETUSER", "default", "nopass"}), "+OK\r\n");
  EXPECT_EQ(Run({"AUTH", "anything"}),
            ErrorReply("ERR AUTH <password> called without any password configured for the default "
                       "user. Are you sure your configuration is correct?"));
}

TEST_F(AclCommandsTest, AScriptRunsAsItsCaller) {
  Run({"ACL", "SETUSER", "u", "on", "nopass", "~mine:*", "+@all"});
  Run({"AUTH", "u", "x"});
  EXPECT_EQ(Run({"EVAL", "return redis.call('set', 'mine:1', 'v')", "0"}), "+OK\r\n");
  EXPECT_EQ(Run({"EVAL", "return redis.pcall('get', 'theirs')", "0"}),
            ErrorReply("ERR The user executing the script can't access at least one of the keys "
                       "mentioned in the command arguments"));
  Run({"AUTH", "default", "x"});
  ASSERT_EQ(state_.acl.log.size(), 1u);
  EXPECT_EQ(state_.acl.log[0].context, AclContext::kLua);
  EXPECT_EQ(state_.acl.log[0].username, "u");
  EXPECT_NE(state_.acl.log[0].client_info.find(" user=u "), std::string::npos);
}

}  // namespace
}  // namespace warden::server
