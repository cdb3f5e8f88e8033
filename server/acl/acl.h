// ACL users, Redis 7.0's model (acl.c): each user has flags, SHA-256 password hashes and
// selectors; a selector allows commands (a bitmap over every command and subcommand, plus
// allowed first arguments), key patterns (read, write or both) and channel patterns. The first
// selector is the root one, set by rules outside parentheses; a request is allowed if any
// selector allows all of it.
//
// The default user exists always; requirepass is its password. A connection's Session points at
// its user: deleting a user closes the connections that use it, and changing one changes it in
// place, so the pointer stays good.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace warden::server {

struct CommandSpec;

enum class AclDenial : std::uint8_t { kNone = 0, kCommand = 1, kKey = 2, kAuth = 3, kChannel = 4 };
enum class AclContext : std::uint8_t { kTopLevel = 0, kLua = 1, kMulti = 2 };

// Key pattern permissions (Redis's ACL_READ_PERMISSION, ACL_WRITE_PERMISSION).
inline constexpr std::uint8_t kAclRead = 1;
inline constexpr std::uint8_t kAclWrite = 2;
inline constexpr std::uint8_t kAclReadWrite = 3;

struct AclKeyPattern {
  std::string pattern;
  std::uint8_t perms;
  // "team:*": a literal prefix then one '*', matched by comparing the prefix (the usual shape,
  // checked on every request of a limited user).
  bool prefix_only = false;
};

// Whether `pattern` is a literal prefix followed by a single '*'.
bool IsPrefixGlob(std::string_view pattern);

struct AclSelector {
  enum Flag : std::uint32_t { kRoot = 1, kAllKeys = 2, kAllChannels = 4, kAllCommands = 8 };
  // Redis's USER_COMMAND_BITS_COUNT; the last bit means "and commands added later" (+@all).
  static constexpr std::size_t kCommandBits = 1024;
  static constexpr std::size_t kFutureBit = kCommandBits - 1;

  std::uint32_t flags = 0;
  std::array<std::uint64_t, kCommandBits / 64> allowed{};
  // Redis's allowed_firstargs: for a command whose bit is clear, the first arguments that
  // still let it run ("+select|0").
  std::map<std::uint16_t, std::vector<std::string>> first_args;
  std::vector<AclKeyPattern> keys;
  std::vector<std::string> channels;

  bool Allows(std::size_t id) const { return (allowed[id / 64] >> (id % 64)) & 1; }
  void SetBit(std::size_t id, bool on);
};

struct AclUser {
  enum Flag : std::uint32_t {
    kEnabled = 1,
    kDisabled = 2,
    kNoPass = 4,
    kSkipSanitize = 8,
    kSanitize = 16,
  };
  std::string name;
  std::uint32_t flags = kDisabled;
  std::vector<std::string> passwords;  // SHA-256, 64 lower-case hex digits each
  std::vector<AclSelector> selectors;  // [0] is the root selector
  // One selector allowing every command, key and channel: the checks are skipped.
  bool unrestricted = false;
  // ACL LIST's rules, built when first asked for (Redis's acl_string).
  mutable std::string description;

  void Changed();
};

// The user flags by name, in the order GETUSER and LIST write them (Redis's ACLUserFlags).
struct AclFlagName {
  std::uint32_t flag;
  std::string_view name;
};
inline constexpr AclFlagName kAclUserFlags[] = {{AclUser::kEnabled, "on"},
                                                {AclUser::kDisabled, "off"},
                                                {AclUser::kNoPass, "nopass"},
                                                {AclUser::kSkipSanitize, "skip-sanitize-payload"},
                                                {AclUser::kSanitize, "sanitize-payload"}};

// One ACL LOG entry.
struct AclLogEntry {
  std::uint64_t count = 1;
  AclDenial reason = AclDenial::kCommand;
  AclContext context = AclContext::kTopLevel;
  std::string object;
  std::string username;
  std::int64_t ctime_ms = 0;
  std::string client_info;
};

// The commands as ACL rules see them: an id per command and subcommand, and their categories.
struct AclCommand {
  const CommandSpec* spec = nullptr;
  const CommandSpec* parent = nullptr;  // for a subcommand
  std::uint32_t categories = 0;         // bit i: kAclCategories[i]
  std::vector<std::uint16_t> subcommands;
};
extern const std::string_view kAclCategories[21];
// Indexed by CommandId (command_table.h).
const std::vector<AclCommand>& AclCommands();
// The bit of a category name, case-insensitive; 0 if unknown.
std::uint32_t AclCategoryBit(std::string_view name);

// 64 lower-case hex digits.
std::string AclHashPassword(std::string_view password);

class Acl {
 public:
  Acl();

  AclUser& default_user() { return *default_user_; }
  AclUser* Find(std::string_view name);
  const std::map<std::string, std::unique_ptr<AclUser>, std::less<>>& users() const {
    return users_;
  }

  // ACL SETUSER: applies `rules` to a copy of the user (or a new one) and keeps it only if all
  // are good. Returns the error text (without "ERR ") otherwise. `changed` is set to the user.
  std::optional<std::string> SetUser(std::string_view name, std::span<const std::string_view> rules,
                                     AclUser** changed = nullptr);
  // Unlinks a user (never the default one); the caller closes its connections first.
  std::unique_ptr<AclUser> Remove(std::string_view name);
  // requirepass: the default user's one password, or nopass when empty.
  void SetDefaultPassword(std::string_view password);
  // AUTH and HELLO: the user if the pair is good and the user is enabled.
  AclUser* Authenticate(std::string_view name, std::string_view password);

  // Whether the pattern-less default (acl-pubsub-default) gives new selectors every channel.
  bool pubsub_default_all = false;

  // ACL LOAD (Redis's ACLLoadFromFile): every line "user <name> rules...", all or nothing.
  // Returns Redis's one-line list of errors, or nullopt having replaced the users; `dropped`
  // gets the users replaced (all but default, which is updated in place), whose connections
  // the caller closes before they are freed.
  // `path` is opened; errors name the file as configured (`name`), as Redis's do.
  std::optional<std::string> LoadFile(const std::string& path, const std::string& name,
                                      std::vector<std::unique_ptr<AclUser>>& dropped);
  // ACL SAVE: ACL LIST's lines, written to a temporary file renamed over `path`. Returns the
  // error (for the log) or nullopt.
  std::optional<std::string> SaveFile(const std::string& path) const;
  // "user <name> <rules>" for every user, by name: ACL SAVE's lines, and CONFIG REWRITE's
  // without an aclfile.
  std::vector<std::string> UserLines() const;
  // `user` lines of the configuration, applied at start-up (Redis's ACLLoadConfiguredUsers);
  // the default user, if named, is reset first.
  std::optional<std::string> AddConfiguredUser(std::span<const std::string> line);

  std::deque<AclLogEntry> log;
  void AddLogEntry(AclLogEntry entry, std::size_t max_len);

 private:
  // A user as Redis creates one: off, no passwords, a root selector allowing nothing (every
  // channel under acl-pubsub-default allchannels).
  std::unique_ptr<AclUser> NewUser(std::string_view name) const;

  std::map<std::string, std::unique_ptr<AclUser>, std::less<>> users_;
  AclUser* default_user_ = nullptr;
};

// Applies one selector rule (Redis's ACLSetSelector: commands, keys, channels); returns the
// error text if it is not one.
std::optional<std::string_view> AclApplySelectorRule(AclSelector& selector, std::string_view rule);
// Redis's ACLChangeSelectorPerm: allows or denies one command, a container with its
// subcommands, and forgets its allowed first arguments.
void AclChangePerm(AclSelector& selector, std::uint16_t id, bool allow);
// Redis's ACLStringHasSpaces: a blank or NUL byte, which user names and patterns may not hold.
bool AclHasSpaces(std::string_view s);

// Applies one rule (Redis's ACLSetUser); returns the error text if it is not one.
std::optional<std::string> AclApplyRule(AclUser& user, std::string_view rule,
                                        bool pubsub_default_all);
// ACL LIST's rules for a user ("on #... ~* &* +@all").
const std::string& AclDescribeUser(const AclUser& user);
// GETUSER's "commands" field of one selector ("+@all -debug").
std::string AclDescribeCommands(const AclSelector& selector);
// GETUSER's "keys" and "channels" fields.
std::string AclDescribeKeys(const AclSelector& selector);
std::string AclDescribeChannels(const AclSelector& selector);

// Whether `user` may run this request (Redis's ACLCheckAllUserCommandPerm). On a denial, `pos`
// is the argument index of the key or channel refused (0 for a command).
AclDenial AclCheck(const AclUser& user, const CommandSpec& spec,
                   std::span<const std::string_view> args, int& pos);
// Whether some selector of `user` allows this request and may read every key (allkeys, ~* or
// %R~*): Redis's ACLUserCheckCmdWithUnrestrictedKeyAccess with CMD_KEY_ACCESS, which SORT asks
// before its BY and GET patterns read keys the request does not name.
bool AclReadsAnyKey(const AclUser& user, const CommandSpec& spec,
                    std::span<const std::string_view> args);
// Whether `user` may use a channel (a pattern is compared literally): for CLIENT KILL-style
// checks after a user's channels change.
bool AclChannelAllowed(const AclUser& user, std::string_view channel, bool is_pattern);

}  // namespace warden::server
