// Whether a user may run a request: Redis 7.0's ACLCheckAllUserCommandPerm. Each selector is
// tried in turn; the first that allows the command, all its keys and all its channels wins. On a
// denial the error picked is the worst kind any selector gave (channel over key over command),
// and among equals the one furthest into the arguments.
#include "server/acl/acl.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/key_specs.h"
#include "storage/glob.h"

namespace warden::server {
namespace {

// Redis's commands_with_channels (db.c): where each pub/sub command names its channels.
enum ChannelUse : std::uint8_t { kNoChannels, kSubscribes, kSubscribesPattern, kPublishes };

ChannelUse ChannelsOf(const CommandSpec& spec) {
  const Handler h = spec.handler;
  if (h == SubscribeCommand || h == SsubscribeCommand) return kSubscribes;
  if (h == PsubscribeCommand) return kSubscribesPattern;
  if (h == PublishCommand || h == SpublishCommand) return kPublishes;
  // UNSUBSCRIBE and its kin name channels too, but ACLs do not check leaving one.
  return kNoChannels;
}

std::uint8_t PermsFor(std::uint16_t key_flags) {
  std::uint8_t perms = 0;
  if ((key_flags & kKeyAccess) != 0) perms |= kAclRead;
  if ((key_flags & (kKeyInsert | kKeyDelete | kKeyUpdate)) != 0) perms |= kAclWrite;
  return perms;
}

bool KeyAllowed(const AclSelector& s, std::string_view key, std::uint16_t key_flags) {
  if ((s.flags & AclSelector::kAllKeys) != 0) return true;
  const std::uint8_t needed = PermsFor(key_flags);
  for (const AclKeyPattern& p : s.keys) {
    if ((p.perms & needed) != needed) continue;
    if (p.prefix_only ? key.substr(0, p.pattern.size() - 1) ==
                            std::string_view(p.pattern).substr(0, p.pattern.size() - 1)
                      : storage::GlobMatch(p.pattern, key)) {
      return true;
    }
  }
  return false;
}

bool ChannelInList(const std::vector<std::string>& patterns, std::string_view channel,
                   bool is_pattern) {
  for (const std::string& p : patterns) {
    if (is_pattern ? p == channel : storage::GlobMatch(p, channel)) return true;
  }
  return false;
}

bool CommandAllowed(const AclSelector& s, const CommandSpec& spec, std::uint16_t id,
                    std::span<const std::string_view> args) {
  if ((s.flags & AclSelector::kAllCommands) != 0 || (spec.flags & kNoAuth) != 0) return true;
  if (s.Allows(id)) return true;
  const auto first = s.first_args.find(id);
  if (args.size() < 2 || first == s.first_args.end()) return false;
  const std::size_t idx = AclCommands()[id].parent != nullptr ? 2 : 1;
  if (idx >= args.size()) return false;
  for (const std::string& allowed : first->second) {
    if (EqualsNoCase(allowed, args[idx])) return true;
  }
  return false;
}

// What a request names, worked out once for all the selectors a check tries.
struct Request {
  const CommandSpec& spec;
  std::uint16_t id;
  std::span<const std::string_view> args;
  bool has_keys;
  ChannelUse channels;
  std::vector<KeyRef>& keys;  // found when a selector first needs them
  bool keys_found = false;
};

AclDenial CheckSelector(const AclSelector& s, Request& r, int& pos) {
  if (!CommandAllowed(s, r.spec, r.id, r.args)) return AclDenial::kCommand;
  if ((s.flags & AclSelector::kAllKeys) == 0 && r.has_keys) {
    if (!r.keys_found) {
      FindCommandKeys(r.id, r.args, r.keys);
      r.keys_found = true;
    }
    for (const KeyRef& key : r.keys) {
      if (!KeyAllowed(s, r.args[static_cast<std::size_t>(key.pos)], key.flags)) {
        pos = key.pos;
        return AclDenial::kKey;
      }
    }
  }
  if ((s.flags & AclSelector::kAllChannels) == 0 && r.channels != kNoChannels) {
    const std::size_t stop =
        r.channels == kPublishes ? std::min<std::size_t>(2, r.args.size()) : r.args.size();
    for (std::size_t i = 1; i < stop; ++i) {
      if (!ChannelInList(s.channels, r.args[i], r.channels == kSubscribesPattern)) {
        pos = static_cast<int>(i);
        return AclDenial::kChannel;
      }
    }
  }
  return AclDenial::kNone;
}

}  // namespace

AclDenial AclCheck(const AclUser& user, const CommandSpec& spec,
                   std::span<const std::string_view> args, int& pos) {
  // The key buffer is reused: the check runs on every request of a limited user, and allocates
  // nothing once warm.
  thread_local std::vector<KeyRef> keys;
  const std::uint16_t id = CommandId(spec);
  Request request{spec, id, args, CommandHasKeys(id), ChannelsOf(spec), keys};
  AclDenial relevant = AclDenial::kCommand;
  int last_pos = 0;
  for (const AclSelector& s : user.selectors) {
    int at = 0;
    const AclDenial result = CheckSelector(s, request, at);
    if (result == AclDenial::kNone) return AclDenial::kNone;
    if (result > relevant || (result == relevant && at > last_pos)) {
      relevant = result;
      last_pos = at;
    }
  }
  pos = last_pos;
  return relevant;
}

bool AclReadsAnyKey(const AclUser& user, const CommandSpec& spec,
                    std::span<const std::string_view> args) {
  if (user.unrestricted) return true;
  thread_local std::vector<KeyRef> keys;
  const std::uint16_t id = CommandId(spec);
  Request request{spec, id, args, CommandHasKeys(id), ChannelsOf(spec), keys};
  for (const AclSelector& s : user.selectors) {
    int at = 0;
    if (CheckSelector(s, request, at) != AclDenial::kNone) continue;
    if ((s.flags & AclSelector::kAllKeys) != 0) return true;
    for (const AclKeyPattern& p : s.keys) {
      if ((p.perms & kAclRead) != 0 && p.pattern == "*") return true;
    }
  }
  return false;
}

bool AclChannelAllowed(const AclUser& user, std::string_view channel, bool is_pattern) {
  for (const AclSelector& s : user.selectors) {
    if ((s.flags & AclSelector::kAllChannels) != 0) return true;
    if (ChannelInList(s.channels, channel, is_pattern)) return true;
  }
  return false;
}

}  // namespace warden::server
