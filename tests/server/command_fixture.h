// A server without sockets for command tests: a ManualClock, a ServerState and one client
// Session. Run() sends a command through the real dispatcher into an in-memory ReplyWriter and
// returns the raw RESP, so a test reads
//
//   EXPECT_EQ(Run({"SET", "lock", "me", "NX", "PX", "30000"}), "+OK\r\n");
//   EXPECT_EQ(Run({"PTTL", "lock"}), ":30000\r\n");
//
// The reply buffer keeps its capacity between commands, so Run() itself allocates nothing but
// the returned copy; RunView() returns a view instead (valid until the next command).
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/reply_writer.h"
#include "server/acl/acl_gate.h"
#include "server/config/config.h"
#include "server/dispatcher.h"
#include "server/persistence/aof.h"
#include "server/server_state.h"
#include "server/session.h"
#include "storage/clock.h"

namespace warden::server {

// Every command fixture starts from this configuration; variants change a field or two.
inline Config TestConfig() {
  Config config;
  config.seed = 1;  // RANDOMKEY, sampling and the run id replay the same way on every run
  // Redis's default save points stay (CONFIG GET shows them), but a FLUSHALL or SHUTDOWN that
  // saves finds no directory: a unit test never leaves a dump.rdb in the working directory.
  config.dir = "/nonexistent/warden-unit-tests";
  return config;
}

class CommandTest : public ::testing::Test {
 protected:
  explicit CommandTest(Config config = TestConfig()) : state_(std::move(config), clock_) {
    session_.id = state_.NewClientId();
    // As a new connection: the default user's, authenticated only when it has no password.
    SetDefaultAuth(state_, session_);
    session_.created_ms = clock_.NowMs();
    session_.last_interaction_ms = clock_.NowMs();
    out_.reserve(4096);
  }

  // Runs one command; the view stays valid until the next command.
  std::string_view RunView(std::span<const std::string_view> args) {
    out_.clear();
    protocol::ReplyWriter writer(&out_, session_.resp);
    Dispatch(state_, session_, args, writer);
    return out_;
  }

  std::string_view RunView(std::initializer_list<std::string_view> args) {
    return RunView(std::span<const std::string_view>(args.begin(), args.size()));
  }

  std::string Run(std::initializer_list<std::string_view> args) {
    return std::string(RunView(args));
  }

  std::int64_t now_ms() const { return clock_.NowMs(); }

  // The replication stream from here on, as a replica would get it: StartFeeding makes a
  // backlog at offset 100, FedStream returns what was propagated since.
  void StartFeeding() { state_.replication.AdoptMasterStream(std::string(40, 'a'), 100); }
  std::string FedStream() {
    std::string out;
    EXPECT_TRUE(state_.replication.CopyStream(101, out));
    return out;
  }

  // Makes `key` a hash held in a table of its own: fields f0..f<n-1> past a lowered
  // hash-max-listpack-entries (left lowered).
  void PutTableHash(std::string_view key, int n) {
    Run({"CONFIG", "SET", "hash-max-listpack-entries", "2"});
    for (int i = 0; i < n; ++i) {
      Run({"HSET", key, "f" + std::to_string(i), "v" + std::to_string(i)});
    }
    ASSERT_EQ(Run({"OBJECT", "ENCODING", key}), "$9\r\nhashtable\r\n");
  }

  storage::ManualClock clock_;
  ServerState state_;
  Session session_;
  std::string out_;
};

// Expected replies that are easier to read built than spelled out.
inline std::string BulkReply(std::string_view data) {
  return "$" + std::to_string(data.size()) + "\r\n" + std::string(data) + "\r\n";
}

inline std::string ErrorReply(std::string_view text) { return "-" + std::string(text) + "\r\n"; }

// A command as the append-only file and the replication stream write it.
inline std::string EncodeCommand(std::vector<std::string_view> argv) {
  std::string out;
  AppendCommand(out, argv);
  return out;
}

}  // namespace warden::server
