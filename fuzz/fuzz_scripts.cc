// libFuzzer target: Lua scripts through SCRIPT LOAD, EVALSHA and EVAL_RO, against the server of
// fuzz_harness.h (32 MB Lua memory cap, endless scripts stopped after a few hundred thousand
// instructions).
//
// The input is the script, then its EVAL arguments, each after a NUL byte: numkeys first, then
// keys and ARGV. "return redis.call('get', KEYS[1])\0" "1\0" "lock" runs
// EVAL "return redis.call('get', KEYS[1])" 1 lock. Without arguments numkeys is 0.
//
// The script is loaded, run with EVALSHA by a RESP2 client, then with EVAL_RO by a RESP3 client,
// so the second run sees what the first wrote. Scripts may call DEBUG. When a script turns busy,
// another client sends PING, which must be refused with BUSY, and then SCRIPT KILL.
//
// A script warden knows by its SHA-1 (server/scripting/native_scripts.h) runs natively; then a
// twin server with lua-native-scripts no gets the same calls, plus a second EVALSHA, and every
// reply must be the same.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_harness.h"
#include "server/debug/debug_controls.h"
#include "server/scripting/native_scripts.h"

namespace warden::fuzz {
namespace {

constexpr std::size_t kRunner = 0;    // RESP2
constexpr std::size_t kOther = 1;     // RESP2, polls while busy
constexpr std::size_t kRoRunner = 2;  // RESP3

void RunScript(std::string_view input) {
  std::vector<std::string_view> parts;
  while (true) {
    const std::size_t nul = input.find('\0');
    parts.push_back(input.substr(0, nul));
    if (nul == std::string_view::npos) break;
    input.remove_prefix(nul + 1);
  }
  const std::string_view script = parts[0];
  const std::vector<std::string_view> eval_args(parts.begin() + 1, parts.end());

  FuzzServer server;
  server.state().debug->scripts_may_call_debug = true;
  int polls = 0;
  server.set_on_busy([&] {
    ++polls;
    if (polls == 1) {
      const std::string_view ping[] = {"PING"};
      Check(server.Run(kOther, ping).starts_with("-BUSY "), "a busy script blocks other clients");
    } else if (polls == 2) {
      const std::string_view kill[] = {"SCRIPT", "KILL"};
      const std::string reply = server.Run(kOther, kill);
      Check(reply == "+OK\r\n" || reply.starts_with("-UNKILLABLE "), "SCRIPT KILL stops a script");
    }
  });

  const std::string_view load[] = {"SCRIPT", "LOAD", script};
  const std::string sha_reply = server.Run(kRunner, load);
  if (!sha_reply.starts_with("$40\r\n")) {
    Check(sha_reply.starts_with("-ERR "), "SCRIPT LOAD answers a SHA-1 or an error");
    return;
  }
  const std::string sha = sha_reply.substr(5, 40);
  std::unique_ptr<FuzzServer> lua;
  if (server::FindNativeScript(sha) != nullptr) {
    lua = std::make_unique<FuzzServer>();
    lua->state().config.lua_native_scripts = false;
    Check(lua->Run(kRunner, load) == sha_reply, "the twin loads the same script");
  }

  auto eval = [&](std::string_view command, std::string_view body_or_sha, std::size_t client) {
    std::vector<std::string_view> args = {command, body_or_sha};
    if (eval_args.empty()) args.push_back("0");
    args.insert(args.end(), eval_args.begin(), eval_args.end());
    polls = 0;
    const std::string reply = server.Run(client, args);
    if (lua != nullptr) {
      Check(lua->Run(client, args) == reply, "a known script's native form answers as Lua does");
    }
  };
  eval("EVALSHA", sha, kRunner);
  if (lua != nullptr) eval("EVALSHA", sha, kRunner);
  if (!server.out_of_time()) eval("EVAL_RO", script, kRoRunner);
  server.CheckScanSeesEveryKey();
}

}  // namespace
}  // namespace warden::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  warden::fuzz::RunScript(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
