// The command fixture for scripts: Eval() builds EVAL's arguments (numkeys counted for it) and runs
// them through the real dispatcher, so a test reads
//
//   EXPECT_EQ(Eval("return redis.call('pttl', KEYS[1])", {"lock"}), ":30000\r\n");
//
// with the fixture's ManualClock deciding every expiry. Replies are raw RESP.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/scripting/sha1.h"
#include "tests/server/command_fixture.h"

namespace warden::server {

class ScriptTest : public CommandTest {
 protected:
  ScriptTest() = default;
  explicit ScriptTest(Config config) : CommandTest(std::move(config)) {}

  // Runs a command whose arguments are built at run time.
  std::string RunArgs(const std::vector<std::string>& args) {
    std::vector<std::string_view> views(args.begin(), args.end());
    return std::string(RunView(std::span<const std::string_view>(views)));
  }

  // EVAL `script` with `keys` and `args`; `command` may be EVAL_RO.
  std::string Eval(std::string_view script, const std::vector<std::string>& keys = {},
                   const std::vector<std::string>& args = {}, std::string_view command = "EVAL") {
    std::vector<std::string> argv = {std::string(command), std::string(script),
                                     std::to_string(keys.size())};
    argv.insert(argv.end(), keys.begin(), keys.end());
    argv.insert(argv.end(), args.begin(), args.end());
    return RunArgs(argv);
  }

  // EVALSHA of the script with this text, without loading it.
  std::string Evalsha(std::string_view script, const std::vector<std::string>& keys = {},
                      const std::vector<std::string>& args = {}) {
    return Eval(Sha(script), keys, args, "EVALSHA");
  }

  // The SHA-1 Redis names `script` by: 40 lower-case hex digits.
  static std::string Sha(std::string_view script) {
    char sha[41];
    Sha1Hex(script, sha);
    return std::string(sha, 40);
  }

  // The suffix Redis adds to an uncaught script error raised on `line`.
  static std::string Where(std::string_view script, int line = 1) {
    return " script: " + Sha(script) + ", on @user_script:" + std::to_string(line) + ".";
  }

  void UseResp3() { ASSERT_EQ(Run({"HELLO", "3"}).substr(0, 3), "%7\r"); }
};

}  // namespace warden::server
