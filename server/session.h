// What the server knows of one client, apart from its socket: identity, protocol version,
// authentication, and the flags a command can set to end the connection. Connections own one; so
// does the scripting engine for the commands a script runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "server/transaction.h"

namespace warden::server {

struct AclUser;
struct CommandSpec;
struct ReplicaPeer;
class BlockedClientHost;

struct Session {
  std::uint64_t id = 0;
  std::string name;
  std::string lib_name;
  std::string lib_ver;
  int resp = 2;
  int db = 0;
  bool authenticated = true;
  // Its ACL user (acl.h); null runs anything (command tests, loading the AOF), as Redis's
  // user-less clients do.
  AclUser* user = nullptr;
  // From 127.0.0.1, ::1 or a unix socket (Redis's islocalClient): allowed to run DEBUG under
  // enable-debug-command local, and exempt from protected mode.
  bool local = true;
  bool unix_socket = false;  // MONITOR shows unix:<path> for it
  bool is_script = false;
  // A TLS client: the Lua debugger, which speaks on the socket itself, refuses it.
  bool tls = false;
  // SCRIPT DEBUG: the client's next EVAL runs in a debugging session (lua_debugger.h), forked
  // (YES) or blocking the server (SYNC). Redis's CLIENT_LUA_DEBUG and CLIENT_LUA_DEBUG_SYNC.
  enum LuaDebug : std::uint8_t { kLuaDebugOff, kLuaDebugFork, kLuaDebugSync };
  std::uint8_t lua_debug = kLuaDebugOff;
  // The master's stream on a replica (Redis's CLIENT_MASTER): its writes pass read-only, its
  // replies go nowhere, and it sees keys past their deadline until the master deletes them.
  bool is_master = false;
  // master_repl_offset after its last command (Redis's woff): what WAIT waits for.
  std::int64_t repl_offset = 0;
  // Set once the client spoke REPLCONF, SYNC or PSYNC (replication.h).
  ReplicaPeer* replica = nullptr;
  // It sent SYNC or PSYNC: a replica (Redis's CLIENT_SLAVE; CLIENT LIST's flag S).
  bool is_replica = false;
  // Client-side caching (tracking.h): CLIENT TRACKING's mode, the client its invalidations go to
  // (0: itself) and, in BCAST mode, its prefixes. Redis's CLIENT_TRACKING_* flags.
  enum TrackingFlag : std::uint8_t {
    kTrackingOn = 1,
    kTrackingBcast = 2,
    kTrackingOptin = 4,
    kTrackingOptout = 8,
    kTrackingCaching = 16,  // CLIENT CACHING given for the next command (or transaction)
    kTrackingNoloop = 32,
    kTrackingBrokenRedirect = 64,
  };
  std::uint8_t tracking = 0;
  std::uint64_t tracking_redirect = 0;
  std::vector<std::string> tracking_prefixes;
  // CLIENT REPLY: OFF silences every reply, SKIP the reply of the command after it (Redis's
  // CLIENT_REPLY_OFF, CLIENT_REPLY_SKIP_NEXT that becomes CLIENT_REPLY_SKIP). Pub/sub
  // confirmations and messages still go out. Zero for almost every client: one test per command.
  enum ReplySilence : std::uint8_t { kReplyOff = 1, kReplySkip = 2, kReplySkipNext = 4 };
  std::uint8_t reply_silence = 0;
  bool reply_silenced() const { return (reply_silence & (kReplyOff | kReplySkip)) != 0; }
  // Reply, flush, then close (QUIT, protocol errors).
  bool close_after_reply = false;
  // Close without replying (cross-protocol scripting defence).
  bool close_now = false;
  // A DROP-AFTER fault took a command that blocked: close instead of sending its reply.
  bool drop_reply_when_served = false;
  std::string addr;   // ip:port of the peer, for CLIENT LIST
  std::string laddr;  // ip:port of our end
  int fd = -1;
  std::int64_t created_ms = 0;
  std::int64_t last_interaction_ms = 0;
  const CommandSpec* last_command = nullptr;
  std::size_t query_buffer_bytes = 0;
  std::size_t query_buffer_free = 0;
  // As of the last batch: replies not yet taken by the kernel, and whether the connection reads
  // requests and waits on a write (CLIENT LIST's events=r/w; only w: paused for a slow reader).
  std::size_t output_bytes = 0;
  bool reading = true;
  bool writing = false;
  // Waiting in a blocking command (blocking.h) or held by CLIENT PAUSE (client_pause.h): no
  // request of this client runs meanwhile.
  bool blocked = false;
  // CLIENT NO-EVICT and CLIENT NO-TOUCH (CLIENT LIST's flags e and T).
  bool no_evict = false;
  bool no_touch = false;
  // Its connection, for a blocked client's reply and for messages published to it; null where
  // a client cannot block or subscribe (scripts, command tests).
  BlockedClientHost* host = nullptr;

  // Redis's CLIENT_PUBSUB and CLIENT_MONITOR. Dispatch tests `modes` once, so a client in
  // neither mode pays one branch for both.
  enum Mode : std::uint8_t { kPubSubMode = 1, kMonitorMode = 2 };
  std::uint8_t modes = 0;
  bool subscribed() const { return (modes & kPubSubMode) != 0; }
  bool monitoring() const { return (modes & kMonitorMode) != 0; }
  // Its subscriptions (pubsub.h keeps the names), for CLIENT LIST's sub=, psub=, ssub=.
  std::uint32_t sub_channels = 0;
  std::uint32_t sub_patterns = 0;
  std::uint32_t sub_shard_channels = 0;

  // Between MULTI and EXEC: the one flag Dispatch tests for every command (transaction.h).
  bool in_multi = false;
  MultiState multi;
};

}  // namespace warden::server
