// libFuzzer target: any bytes as an append-only file must load or fail cleanly.
//
// The input is a manifest's text, a NUL byte, then one file's bytes (without a NUL, all of it
// is the file). The manifest is parsed (and, when accepted, written back and parsed again to
// the same text); the file is loaded as start-up loads one, into the server of fuzz_harness.h.
// Checked besides the sanitizers: a load either fails with a message naming the file and an
// offset within it, or stops at a point within the bytes (truncated exactly when short of
// their end); the bytes up to that point load again without truncation or error, to the same
// key count; the keyspace passes its checks afterwards.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_harness.h"
#include "server/persistence/aof.h"

namespace warden::fuzz {
namespace {

void CheckManifest(std::string_view text) {
  server::AofManifest manifest;
  if (server::ParseAofManifest(text, manifest)) return;
  const std::string written = server::FormatAofManifest(manifest);
  server::AofManifest again;
  Check(!server::ParseAofManifest(written, again), "a written manifest parses");
  Check(server::FormatAofManifest(again) == written, "a manifest round-trips");
}

void LoadFile(std::string_view bytes) {
  FuzzServer server;
  const server::AofFileLoad load = server::LoadAofData(server.state(), "fuzz.aof", bytes);
  if (load.error) {
    Check(load.error->find("fuzz.aof") != std::string::npos, "an error names the file");
    Check(load.error->find(" at offset ") != std::string::npos, "an error names the offset");
    server.CheckKeyspace();
    return;
  }
  Check(load.valid_up_to <= bytes.size(), "a load stops within the bytes");
  Check(load.truncated == (load.valid_up_to < bytes.size()), "short exactly when truncated");
  server.CheckKeyspace();
  server.CheckScanSeesEveryKey();
  const std::size_t keys = server.state().dbs.total_keys();
  FuzzServer again;
  const server::AofFileLoad whole =
      server::LoadAofData(again.state(), "fuzz.aof", bytes.substr(0, load.valid_up_to));
  Check(!whole.error && !whole.truncated, "the whole part loads whole");
  Check(again.state().dbs.total_keys() == keys, "the whole part loads the same keys");
}

}  // namespace
}  // namespace warden::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  if (nul != std::string_view::npos) warden::fuzz::CheckManifest(input.substr(0, nul));
  warden::fuzz::LoadFile(nul == std::string_view::npos ? input : input.substr(nul + 1));
  return 0;
}
