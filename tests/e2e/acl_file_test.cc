// ACL users from outside the protocol, on warden and redis-server alike: `user` lines given at
// start, an ACL file loaded at start, written by ACL SAVE and read again by ACL LOAD (all or
// nothing, with Redis's error texts), and the connections ACL LOAD closes.
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "aof_support.h"
#include "resp_client.h"
#include "server_fixture.h"
#include "server_process.h"

namespace warden::testing {
namespace {

using aof::Binary;
using aof::ReadFile;
using aof::Send;
using aof::TempDir;

class AclFileTest : public ::testing::TestWithParam<ServerKind> {};

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// The same text with the test's directory (different for each server) as "DIR".
std::string Masked(std::string text, const std::string& dir) {
  for (std::size_t at; (at = text.find(dir)) != std::string::npos;)
    text.replace(at, dir.size(), "DIR");
  return text;
}

constexpr char kTeams[] =
    "user default on nopass ~* &* +@all\n"
    "user teama on #f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a ~teamA:* "
    "resetchannels &teamA.* +@all -@dangerous\n"
    "\n"
    "user teamb off resetchannels -@all\n";

TEST_P(AclFileTest, LoadedAtStartSavedAndLoadedAgain) {
  TempDir dir;
  const std::string file = dir.path() + "/users.acl";
  WriteFile(file, kTeams);
  std::string error;
  auto server = ServerProcess::Start(Binary(GetParam()), error, {"--aclfile", file});
  ASSERT_TRUE(server) << error;
  std::optional<RespClient> admin = RespClient::Connect(server->port());
  ASSERT_TRUE(admin);
  EXPECT_EQ(Send(*admin, {"ACL", "USERS"}),
            "*3\r\n$7\r\ndefault\r\n$5\r\nteama\r\n$5\r\nteamb\r\n");
  EXPECT_EQ(Send(*admin, {"CONFIG", "GET", "aclfile"}),
            "*2\r\n$7\r\naclfile\r\n$" + std::to_string(file.size()) + "\r\n" + file + "\r\n");

  std::optional<RespClient> a = RespClient::Connect(server->port());
  ASSERT_TRUE(a);
  // The hash is sha256("p1").
  EXPECT_EQ(Send(*a, {"AUTH", "teama", "p1"}), "+OK\r\n");
  EXPECT_EQ(Send(*a, {"SET", "teamB:lock", "x"}),
            "-NOPERM this user has no permissions to access one of the keys used as arguments\r\n");

  // ACL SAVE writes ACL LIST's lines.
  EXPECT_EQ(Send(*admin, {"ACL", "SETUSER", "teamb", "on", ">p2", "~teamB:*", "+@all"}), "+OK\r\n");
  EXPECT_EQ(Send(*admin, {"ACL", "SAVE"}), "+OK\r\n");
  const std::string saved = ReadFile(file);
  const testing::Reply list = aof::Parsed(*admin, {"ACL", "LIST"});
  std::string lines;
  for (const testing::Reply& line : list.elements) lines += line.text + "\n";
  EXPECT_EQ(saved, lines);

  // A file with errors changes nothing, and says why, line by line.
  WriteFile(file,
            "user teama on +nosuch\n"
            "# a comment\n"
            "user bad name\n"
            "user teama on\n"
            "user x (~a +get\n"
            "user y %X~a nosuchrule\n");
  EXPECT_EQ(
      Masked(Send(*admin, {"ACL", "LOAD"}), dir.path()),
      "-ERR DIR/users.acl:1: Error in applying operation '+nosuch': Unknown command or "
      "category name in ACL. DIR/users.acl:2 should start with user keyword followed by the "
      "username. DIR/users.acl:3: Syntax error. WARNING: Duplicate user 'teama' found on line "
      "4. DIR/users.acl:5: "
      "Unmatched parenthesis in selector definition.DIR/users.acl:6: Syntax error. "
      "WARNING: ACL errors detected, no change to the previously active ACL rules was "
      "performed\r\n");
  EXPECT_EQ(Send(*a, {"ACL", "WHOAMI"}), "$5\r\nteama\r\n");

  // A good file replaces every user; the connections of the old ones are closed.
  WriteFile(file, kTeams);
  EXPECT_EQ(Send(*admin, {"ACL", "LOAD"}), "+OK\r\n");
  EXPECT_EQ(a->ReadUntilClose().status, ReadStatus::kClosed);
  EXPECT_EQ(Send(*admin, {"ACL", "GETUSER", "teamb"}),
            "*12\r\n$5\r\nflags\r\n*1\r\n$3\r\noff\r\n$9\r\npasswords\r\n*0\r\n$8\r\ncommands\r\n"
            "$5\r\n-@all\r\n$4\r\nkeys\r\n$0\r\n\r\n$8\r\nchannels\r\n$0\r\n\r\n$9\r\nselectors\r\n"
            "*0\r\n");
  EXPECT_EQ(Send(*admin, {"PING"}), "+PONG\r\n");

  std::remove(file.c_str());
  EXPECT_EQ(Masked(Send(*admin, {"ACL", "LOAD"}), dir.path()),
            "-ERR Error loading ACLs, opening file 'DIR/users.acl': No such file or directory\r\n");
}

TEST_P(AclFileTest, UserLinesAtStart) {
  std::string error;
  auto server = ServerProcess::Start(Binary(GetParam()), error,
                                     {"--user", "alice", "on", ">pw", "~a:*", "+@all", "--user",
                                      "default", "on", ">root", "+@all", "~*", "&*"});
  ASSERT_TRUE(server) << error;
  std::optional<RespClient> c = RespClient::Connect(server->port());
  ASSERT_TRUE(c);
  EXPECT_EQ(Send(*c, {"PING"}), "-NOAUTH Authentication required.\r\n");
  EXPECT_EQ(Send(*c, {"AUTH", "root"}), "+OK\r\n");
  EXPECT_EQ(Send(*c, {"ACL", "LIST"}),
            "*2\r\n$104\r\nuser alice on "
            "#30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4"
            " ~a:* resetchannels +@all\r\n$110\r\nuser default on sanitize-payload "
            "#4813494d137e1631bba301d5acab6e7bb7aa74ce1185d456565ef51d737677b2 ~* &* +@all\r\n");
  EXPECT_EQ(Send(*c, {"ACL", "SAVE"}),
            "-ERR This Redis instance is not configured to use an ACL file. You may want to "
            "specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming "
            "you have a Redis configuration file set) in order to store users in the Redis "
            "configuration.\r\n");
}

TEST_P(AclFileTest, RefusesToStartOnBadUsers) {
  TempDir dir;
  const std::string file = dir.path() + "/users.acl";
  WriteFile(file, kTeams);
  std::string error;
  EXPECT_FALSE(ServerProcess::Start(Binary(GetParam()), error,
                                    {"--aclfile", file, "--user", "alice", "on"}));
  EXPECT_NE(error.find("Configuring Redis with users defined in redis.conf and at the same "
                       "setting an ACL file path is invalid."),
            std::string::npos)
      << error;
  WriteFile(file, "user alice on +nosuch\n");
  EXPECT_FALSE(ServerProcess::Start(Binary(GetParam()), error, {"--aclfile", file}));
  EXPECT_NE(error.find("Aborting Redis startup because of ACL errors: " + file +
                       ":1: Error in applying operation '+nosuch'"),
            std::string::npos)
      << error;
}

INSTANTIATE_TEST_SUITE_P(BothServers, AclFileTest,
                         ::testing::Values(ServerKind::kWarden, ServerKind::kRedis),
                         [](const auto& info) {
                           return info.param == ServerKind::kWarden ? "Warden" : "Redis";
                         });

}  // namespace
}  // namespace warden::testing
