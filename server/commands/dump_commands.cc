// DUMP and RESTORE (Redis 7.0's cluster.c): a value in the RDB format, then the RDB version as
// two bytes and a CRC64 of everything before it. A payload from a client is untrusted: the
// footer is checked first, then the value is decoded with every length checked, into a keyspace
// of its own, so a bad payload leaves no trace and a good one replaces the key only once whole.
#include <charconv>
#include <string>
#include <vector>

#include "protocol/request_parser.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/notify.h"
#include "server/scripting/script_engine.h"
#include "server/server_state.h"
#include "storage/rdb/crc64.h"
#include "storage/rdb/value_codec.h"

namespace warden::server {

namespace rdb = storage::rdb;

namespace {

// The footer every payload ends with: the RDB version in two bytes, then the CRC64 of all before.
std::string Sealed(rdb::RdbWriter& w) {
  std::string& out = w.buffer();
  out.push_back(static_cast<char>(rdb::kRdbVersion & 0xFF));
  out.push_back(static_cast<char>(rdb::kRdbVersion >> 8));
  const std::uint64_t crc = rdb::Crc64(0, out);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((crc >> (8 * i)) & 0xFF));
  return std::move(out);
}

// The library name a FUNCTION2 record's code declares on its #! line ("" when none).
std::string_view LibraryName(std::string_view code) {
  const std::string_view line = code.substr(0, code.find('\n'));
  for (std::size_t at = line.find(" name="); at != std::string_view::npos;
       at = line.find(" name=", at + 1)) {
    const std::string_view rest = line.substr(at + 6);
    return rest.substr(0, rest.find(' '));
  }
  return {};
}

}  // namespace

std::string DumpPayload(const storage::Entry& e, bool compress) {
  rdb::RdbWriter w(compress);
  rdb::WriteValue(w, e);
  return Sealed(w);
}

bool VerifyDumpPayload(std::string_view payload, bool skip_checksum) {
  if (payload.size() < 10) return false;
  const std::size_t footer = payload.size() - 10;
  const unsigned version =
      static_cast<unsigned char>(payload[footer]) |
      (static_cast<unsigned>(static_cast<unsigned char>(payload[footer + 1])) << 8);
  if (version > rdb::kRdbVersion) return false;
  if (skip_checksum) return true;
  std::uint64_t stored = 0;
  for (int i = 7; i >= 0; --i) {
    stored = (stored << 8) | static_cast<unsigned char>(payload[footer + 2 + i]);
  }
  return rdb::Crc64(0, payload.substr(0, footer + 2)) == stored;
}

void DumpCommand(CommandContext& ctx) {
  const storage::Entry* entry = ctx.keyspace().Find(ctx.arg(1), ctx.now_ms);
  if (entry == nullptr) {
    NotifyKeyMiss(ctx, ctx.arg(1));
    ctx.reply.Null();
    return;
  }
  ctx.reply.Bulk(DumpPayload(*entry, ctx.server.config.rdbcompression));
}

void RestoreCommand(CommandContext& ctx) {
  bool replace = false;
  bool absttl = false;
  std::int64_t idle = -1;
  std::int64_t freq = -1;
  for (std::size_t j = 4; j < ctx.argc(); ++j) {
    const std::string_view arg = ctx.arg(j);
    const bool has_value = j + 1 < ctx.argc();
    if (ArgIs(arg, "replace")) {
      replace = true;
    } else if (ArgIs(arg, "absttl")) {
      absttl = true;
    } else if (ArgIs(arg, "idletime") && has_value && freq == -1) {
      if (!protocol::ParseStrictInt64(ctx.arg(j + 1), idle)) {
        ctx.reply.Error(errors::kNotInteger);
        return;
      }
      if (idle < 0) {
        ctx.reply.Error("ERR Invalid IDLETIME value, must be >= 0");
        return;
      }
      ++j;
    } else if (ArgIs(arg, "freq") && has_value && idle == -1) {
      if (!protocol::ParseStrictInt64(ctx.arg(j + 1), freq)) {
        ctx.reply.Error(errors::kNotInteger);
        return;
      }
      if (freq < 0 || freq > 255) {
        ctx.reply.Error("ERR Invalid FREQ value, must be >= 0 and <= 255");
        return;
      }
      ++j;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  storage::Keyspace& keyspace = ctx.keyspace();
  const std::string_view key = ctx.arg(1);
  if (!replace && keyspace.Find(key, ctx.now_ms) != nullptr) {
    ctx.reply.Error("BUSYKEY Target key name already exists.");
    return;
  }
  std::int64_t ttl = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(2), ttl)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (ttl < 0) {
    ctx.reply.Error("ERR Invalid TTL value, must be >= 0");
    return;
  }
  const std::string_view payload = ctx.arg(3);
  if (!VerifyDumpPayload(payload, ctx.server.skip_checksum_validation)) {
    ctx.reply.Error("ERR DUMP payload version or checksum are wrong");
    return;
  }
  // Decoded into a keyspace of its own on the same pool: the target key is untouched until the
  // value is whole.
  storage::Databases& dbs = ctx.server.dbs;
  storage::Keyspace scratch(dbs.random(), &dbs.pool(), &dbs.reclaimer());
  // The whole payload, footer included, as Redis reads it: a value may run into the footer.
  rdb::RdbReader r(payload);
  std::uint8_t type = 0;
  storage::Entry* decoded = nullptr;
  if (!r.Byte(type) || !rdb::KnownType(type) ||
      rdb::ReadValue(r, type, scratch, key, storage::kNoDeadline, ctx.server.config.encoding,
                     &decoded) != rdb::LoadStatus::kStored) {
    ctx.reply.Error("ERR Bad data format");
    return;
  }
  storage::Entry* existing = replace ? keyspace.Find(key, ctx.now_ms) : nullptr;
  if (ttl != 0 && !absttl) ttl += ctx.now_ms;
  if (ttl != 0 && ttl <= ctx.now_ms) {
    // Already expired: nothing is created, and a replaced key is simply deleted.
    scratch.Erase(decoded);
    if (existing != nullptr) {
      keyspace.Erase(existing);
      Notify(ctx, notify::kGeneric, "del", key);
      if (ctx.server.propagation.active()) ctx.server.propagation.Replace({"DEL", key});
    }
    ctx.reply.Ok();
    return;
  }
  storage::Entry* stored = scratch.MoveTo(decoded, keyspace, key, existing);
  if (ttl != 0) {
    keyspace.SetDeadline(stored, ttl);
    if (!absttl && ctx.server.propagation.active()) {
      // Propagated with the absolute deadline, as Redis rewrites it.
      char buf[24];
      const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, ttl);
      std::vector<std::string_view> argv(ctx.args.begin(), ctx.args.end());
      argv[2] = std::string_view(buf, static_cast<std::size_t>(end - buf));
      argv.push_back("ABSTTL");
      ctx.server.propagation.Replace(std::span<const std::string_view>(argv));
    }
  }
  const storage::AccessClock& clock = dbs.access_clock();
  if (clock.lfu && freq >= 0) {
    storage::Keyspace::SetAccessStamp(stored,
                                      (clock.minutes << 8) | static_cast<std::uint32_t>(freq));
  } else if (!clock.lfu && idle >= 0) {
    storage::Keyspace::SetAccessStamp(
        stored, storage::AccessClock::StampAt(
                    ctx.now_ms - std::min<std::int64_t>(idle, INT64_MAX / 2000) * 1000));
  }
  NotifyNew(ctx, key);
  Notify(ctx, notify::kGeneric, "restore", key);
  ctx.server.blocking.SignalKey(ctx.session.db, key);
  ctx.reply.Ok();
}

void FunctionDumpCommand(CommandContext& ctx) {
  rdb::RdbWriter w(ctx.server.config.rdbcompression);
  for (const auto& [name, library] : ctx.server.scripts->libraries()) {
    w.Byte(rdb::kOpFunction2);
    w.String(library.code);
  }
  ctx.reply.Bulk(Sealed(w));
}

// FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]: all of the payload's libraries or none. The
// engine has one set of libraries, so a failure part way puts back the ones there before.
void FunctionRestoreCommand(CommandContext& ctx) {
  if (ctx.argc() > 4) {
    errors::SubcommandSyntax(ctx.reply, ctx.arg(0), ctx.arg(1));
    return;
  }
  enum class Policy { kAppend, kReplace, kFlush } policy = Policy::kAppend;
  if (ctx.argc() == 4) {
    const std::string_view p = ctx.arg(3);
    if (ArgIs(p, "append")) {
      policy = Policy::kAppend;
    } else if (ArgIs(p, "replace")) {
      policy = Policy::kReplace;
    } else if (ArgIs(p, "flush")) {
      policy = Policy::kFlush;
    } else {
      ctx.reply.Error(
          "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
      return;
    }
  }
  const std::string_view payload = ctx.arg(2);
  if (!VerifyDumpPayload(payload, ctx.server.skip_checksum_validation)) {
    ctx.reply.Error("ERR DUMP payload version or checksum are wrong");
    return;
  }
  // Every record first: nothing changes unless the whole payload reads.
  rdb::RdbReader r(payload);
  std::vector<std::string> codes;
  std::string scratch;
  while (r.left() > 10) {
    std::uint8_t type = 0;
    if (!r.Byte(type)) {
      ctx.reply.Error("ERR can not read data type");
      return;
    }
    if (type != rdb::kOpFunction2) {
      ctx.reply.Error("ERR given type is not a function");
      return;
    }
    std::string_view code;
    if (!r.String(code, scratch)) {
      ctx.reply.Error("ERR Failed loading library payload");
      return;
    }
    codes.emplace_back(code);
  }
  ScriptEngine& engine = *ctx.server.scripts;
  if (policy == Policy::kAppend) {
    for (const std::string& code : codes) {
      const std::string_view name = LibraryName(code);
      if (engine.libraries().find(name) != engine.libraries().end()) {
        ctx.reply.Error({"ERR Library ", name, " already exists"});
        return;
      }
    }
  }
  std::vector<std::string> before;
  for (const auto& [name, library] : engine.libraries()) before.push_back(library.code);
  if (policy == Policy::kFlush) engine.FlushFunctions();
  // A payload's code is held to FUNCTION LOAD's time limit (except while loading the append-only
  // file, as FUNCTION LOAD). Redis 7.0 restores without one, so a library whose code never
  // returns stops the server for good: no client gets an answer, and FUNCTION KILL cannot reach
  // a load.
  const bool timeout = !ctx.server.loading;
  std::string error;
  for (const std::string& code : codes) {
    if (!engine.LoadLibrary(code, policy == Policy::kReplace, timeout, error)) break;
  }
  if (!error.empty()) {
    engine.FlushFunctions();
    std::string ignored;
    for (const std::string& code : before) engine.LoadLibrary(code, false, false, ignored);
    ctx.reply.Error({"ERR ", error});
    return;
  }
  if (ctx.server.propagation.active()) {
    ctx.server.propagation.Add(ctx.session.db, ctx.args, ctx.server.call.depth);
  }
  ctx.reply.Ok();
}

}  // namespace warden::server
