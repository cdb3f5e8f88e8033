#include "server/acl/acl.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "protocol/request_parser.h"
#include "server/acl/sha256.h"
#include "server/command_names.h"
#include "server/command_table.h"
#include "server/persistence/file_io.h"

namespace warden::server {

// Redis 7.0's categories, in ACL CAT's order.
const std::string_view kAclCategories[21] = {
    "keyspace", "read",   "write",       "set",       "sortedset",  "list",        "hash",
    "string",   "bitmap", "hyperloglog", "geo",       "stream",     "pubsub",      "admin",
    "fast",     "slow",   "blocking",    "dangerous", "connection", "transaction", "scripting"};

namespace {

std::uint32_t CategoriesOf(const CommandSpec& spec) {
  std::uint32_t bits = 0;
  std::string_view rest = spec.acl_categories;
  while (!rest.empty()) {
    const std::size_t space = std::min(rest.find(' '), rest.size());
    const std::string_view word = rest.substr(0, space);
    if (word.size() > 1 && word[0] == '@') bits |= AclCategoryBit(word.substr(1));
    rest.remove_prefix(std::min(space + 1, rest.size()));
  }
  return bits;
}

// Indexed by CommandId.
const std::vector<AclCommand>& Index() {
  static const std::vector<AclCommand>* index = [] {
    auto* commands = new std::vector<AclCommand>(CommandIdCount());
    for (std::size_t id = 0; id < commands->size(); ++id) {
      const CommandSpec& spec = CommandById(static_cast<std::uint16_t>(id));
      (*commands)[id].spec = &spec;
      (*commands)[id].categories = CategoriesOf(spec);
      if (!spec.is_container()) continue;
      for (const CommandSpec& sub : spec.subcommands()) {
        (*commands)[id].subcommands.push_back(CommandId(sub));
        (*commands)[CommandId(sub)].parent = &spec;
      }
    }
    return commands;
  }();
  return *index;
}

// Redis's lookupCommandBySdsLogic over orig_commands: "get", "config|get" by the table's names,
// whatever rename-command did; null for "get|x" or "a|b|c".
const CommandSpec* LookupForAcl(std::string_view name) { return CommandNames().FindFullName(name); }

bool IsPasswordHash(std::string_view hash) {
  if (hash.size() != 64) return false;
  return std::all_of(hash.begin(), hash.end(),
                     [](char c) { return (c >= 'a' && c <= 'f') || (c >= '0' && c <= '9'); });
}

void SetCategory(AclSelector& s, std::uint32_t bit, bool allow) {
  const std::vector<AclCommand>& commands = AclCommands();
  for (std::size_t id = 0; id < commands.size(); ++id) {
    if ((commands[id].categories & bit) != 0)
      AclChangePerm(s, static_cast<std::uint16_t>(id), allow);
  }
}

// errno-style outcomes of Redis's ACLSetSelector, as ACLSetUserStringError words them.
constexpr std::string_view kUnknownCommand = "Unknown command or category name in ACL";
constexpr std::string_view kSyntax = "Syntax error";
constexpr std::string_view kAfterAllKeys =
    "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have "
    "any effect. Try 'resetkeys' to start with an empty list of patterns";
constexpr std::string_view kAfterAllChannels =
    "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not "
    "have any effect. Try 'resetchannels' to start with an empty list of channels";
constexpr std::string_view kNoSuchPassword =
    "The password you are trying to remove from the user does not exist";
constexpr std::string_view kBadHash =
    "The password hash must be exactly 64 characters and contain only lowercase hexadecimal "
    "characters";
constexpr std::string_view kFirstArgOfSub = "Allowing first-arg of a subcommand is not supported";

}  // namespace

std::optional<std::string_view> AclApplySelectorRule(AclSelector& s, std::string_view op) {
  if (EqualsNoCase(op, "allkeys") || op == "~*") {
    s.flags |= AclSelector::kAllKeys;
    s.keys.clear();
  } else if (EqualsNoCase(op, "resetkeys")) {
    s.flags &= ~AclSelector::kAllKeys;
    s.keys.clear();
  } else if (EqualsNoCase(op, "allchannels") || op == "&*") {
    s.flags |= AclSelector::kAllChannels;
    s.channels.clear();
  } else if (EqualsNoCase(op, "resetchannels")) {
    s.flags &= ~AclSelector::kAllChannels;
    s.channels.clear();
  } else if (EqualsNoCase(op, "allcommands") || EqualsNoCase(op, "+@all")) {
    s.allowed.fill(~std::uint64_t{0});
    s.flags |= AclSelector::kAllCommands;
    s.first_args.clear();
  } else if (EqualsNoCase(op, "nocommands") || EqualsNoCase(op, "-@all")) {
    s.allowed.fill(0);
    s.flags &= ~AclSelector::kAllCommands;
    s.first_args.clear();
  } else if (op[0] == '~' || op[0] == '%') {
    if ((s.flags & AclSelector::kAllKeys) != 0) return kAfterAllKeys;
    std::uint8_t perms = 0;
    std::size_t offset = 1;
    if (op[0] == '%') {
      for (; offset < op.size(); ++offset) {
        const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(op[offset])));
        if (c == 'R' && (perms & kAclRead) == 0) {
          perms |= kAclRead;
        } else if (c == 'W' && (perms & kAclWrite) == 0) {
          perms |= kAclWrite;
        } else if (op[offset] == '~') {
          ++offset;
          break;
        } else {
          return kSyntax;
        }
      }
      // Redis 7.0 keeps "%" or "%~x" as a pattern with no permission, then crashes describing
      // it: refused instead (README, Known differences).
      if (perms == 0) return kSyntax;
    } else {
      perms = kAclReadWrite;
    }
    const std::string_view pattern = op.substr(offset);
    if (AclHasSpaces(pattern)) return kSyntax;
    auto it = std::find_if(s.keys.begin(), s.keys.end(),
                           [&](const AclKeyPattern& k) { return k.pattern == pattern; });
    if (it == s.keys.end()) {
      s.keys.push_back({std::string(pattern), perms, IsPrefixGlob(pattern)});
    } else {
      it->perms |= perms;
    }
    s.flags &= ~AclSelector::kAllKeys;
  } else if (op[0] == '&') {
    if ((s.flags & AclSelector::kAllChannels) != 0) return kAfterAllChannels;
    const std::string_view pattern = op.substr(1);
    if (AclHasSpaces(pattern)) return kSyntax;
    if (std::find(s.channels.begin(), s.channels.end(), pattern) == s.channels.end()) {
      s.channels.emplace_back(pattern);
    }
    s.flags &= ~AclSelector::kAllChannels;
  } else if (op[0] == '+' && (op.size() < 2 || op[1] != '@')) {
    const std::string_view name = op.substr(1);
    const std::size_t bar = name.rfind('|');
    if (bar == std::string_view::npos) {
      const CommandSpec* spec = LookupForAcl(name);
      if (spec == nullptr) return kUnknownCommand;
      AclChangePerm(s, CommandId(*spec), true);
      return std::nullopt;
    }
    const std::string_view base_name = name.substr(0, bar);
    const std::string_view sub = name.substr(bar + 1);
    const CommandSpec* base = LookupForAcl(base_name);
    if (base == nullptr) return kUnknownCommand;
    if (AclCommands()[CommandId(*base)].parent != nullptr) return kFirstArgOfSub;
    // Redis 7.0 takes a first argument with a space, which ACL LIST then writes as two rules
    // that do not read back: refused instead (README, Known differences).
    if (sub.empty() || AclHasSpaces(sub)) return kSyntax;
    if (base->is_container()) {
      const CommandSpec* spec = LookupForAcl(name);
      if (spec == nullptr) return kUnknownCommand;
      AclChangePerm(s, CommandId(*spec), true);
    } else {
      std::vector<std::string>& allowed = s.first_args[CommandId(*base)];
      const bool known = std::any_of(allowed.begin(), allowed.end(),
                                     [&](const std::string& a) { return EqualsNoCase(a, sub); });
      if (!known) allowed.emplace_back(sub);
    }
  } else if (op[0] == '-' && (op.size() < 2 || op[1] != '@')) {
    const CommandSpec* spec = LookupForAcl(op.substr(1));
    if (spec == nullptr) return kUnknownCommand;
    AclChangePerm(s, CommandId(*spec), false);
  } else if (op[0] == '+' || op[0] == '-') {
    const std::uint32_t bit = AclCategoryBit(op.substr(2));
    if (bit == 0) return kUnknownCommand;
    SetCategory(s, bit, op[0] == '+');
  } else {
    return kSyntax;
  }
  return std::nullopt;
}

namespace {

// Redis's ACLMergeSelectorArguments: a selector may be spread over several words; they are
// joined with spaces. Nullopt if one is left open; `open_at` is then where it started.
template <typename Word>
std::optional<std::vector<std::string>> MergeSelectorWords(std::span<const Word> words,
                                                           std::size_t* open_at = nullptr) {
  std::vector<std::string> merged;
  std::optional<std::size_t> open;
  for (std::size_t j = 0; j < words.size(); ++j) {
    const std::string_view op = words[j];
    if (!open.has_value() && !op.empty() && op[0] == '(' && op.back() != ')') {
      open = j;
      merged.emplace_back(op);
    } else if (open.has_value()) {
      merged.back().append(" ").append(op);
      if (!op.empty() && op.back() == ')') open.reset();
    } else {
      merged.emplace_back(op);
    }
  }
  if (open.has_value()) {
    if (open_at != nullptr) *open_at = *open;
    return std::nullopt;
  }
  return merged;
}

}  // namespace

void AclSelector::SetBit(std::size_t id, bool on) {
  if (id >= kCommandBits) return;
  const std::uint64_t bit = std::uint64_t{1} << (id % 64);
  if (on) {
    allowed[id / 64] |= bit;
  } else {
    allowed[id / 64] &= ~bit;
    flags &= ~kAllCommands;
  }
}

void AclUser::Changed() {
  description.clear();
  const AclSelector& root = selectors.front();
  constexpr std::uint32_t kAll =
      AclSelector::kAllKeys | AclSelector::kAllChannels | AclSelector::kAllCommands;
  unrestricted = (root.flags & kAll) == kAll;
}

bool IsPrefixGlob(std::string_view pattern) {
  if (pattern.empty() || pattern.back() != '*') return false;
  return pattern.substr(0, pattern.size() - 1).find_first_of("*?[\\") == std::string_view::npos;
}

void AclChangePerm(AclSelector& s, std::uint16_t id, bool allow) {
  s.SetBit(id, allow);
  s.first_args.erase(id);
  for (std::uint16_t sub : AclCommands()[id].subcommands) s.SetBit(sub, allow);
}

bool AclHasSpaces(std::string_view s) {
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '\0') return true;
  }
  return false;
}
const std::vector<AclCommand>& AclCommands() { return Index(); }

std::uint32_t AclCategoryBit(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kAclCategories); ++i) {
    if (EqualsNoCase(name, kAclCategories[i])) return std::uint32_t{1} << i;
  }
  return 0;
}

std::string AclHashPassword(std::string_view password) {
  unsigned char digest[32];
  Sha256(password, digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(64, '0');
  for (std::size_t i = 0; i < 32; ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 0xF];
  }
  return hex;
}

std::optional<std::string> AclApplyRule(AclUser& u, std::string_view op, bool pubsub_default_all) {
  u.description.clear();
  if (op.empty()) return std::nullopt;
  const auto fail = [](std::string_view why) { return std::optional<std::string>(why); };
  if (EqualsNoCase(op, "on")) {
    u.flags = (u.flags | AclUser::kEnabled) & ~AclUser::kDisabled;
  } else if (EqualsNoCase(op, "off")) {
    u.flags = (u.flags | AclUser::kDisabled) & ~AclUser::kEnabled;
  } else if (EqualsNoCase(op, "skip-sanitize-payload")) {
    u.flags = (u.flags | AclUser::kSkipSanitize) & ~AclUser::kSanitize;
  } else if (EqualsNoCase(op, "sanitize-payload")) {
    u.flags = (u.flags | AclUser::kSanitize) & ~AclUser::kSkipSanitize;
  } else if (EqualsNoCase(op, "nopass")) {
    u.flags |= AclUser::kNoPass;
    u.passwords.clear();
  } else if (EqualsNoCase(op, "resetpass")) {
    u.flags &= ~AclUser::kNoPass;
    u.passwords.clear();
  } else if (op[0] == '>' || op[0] == '#') {
    std::string hash;
    if (op[0] == '>') {
      hash = AclHashPassword(op.substr(1));
    } else {
      if (!IsPasswordHash(op.substr(1))) return fail(kBadHash);
      hash.assign(op.substr(1));
    }
    if (std::find(u.passwords.begin(), u.passwords.end(), hash) == u.passwords.end()) {
      u.passwords.push_back(std::move(hash));
    }
    u.flags &= ~AclUser::kNoPass;
  } else if (op[0] == '<' || op[0] == '!') {
    std::string hash;
    if (op[0] == '<') {
      hash = AclHashPassword(op.substr(1));
    } else {
      if (!IsPasswordHash(op.substr(1))) return fail(kBadHash);
      hash.assign(op.substr(1));
    }
    auto it = std::find(u.passwords.begin(), u.passwords.end(), hash);
    if (it == u.passwords.end()) return fail(kNoSuchPassword);
    u.passwords.erase(it);
  } else if (op[0] == '(' && op.back() == ')') {
    AclSelector selector;
    if (pubsub_default_all) selector.flags |= AclSelector::kAllChannels;
    // The body is split as Redis's sdssplitargs splits it; unbalanced quotes give no words, and
    // the selector is added empty.
    std::string storage;
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    if (!protocol::SplitInlineArgs(op.substr(1, op.size() - 2), storage, spans)) spans.clear();
    for (const auto& [at, length] : spans) {
      const std::string_view word(storage.data() + at, length);
      if (word.empty()) continue;
      if (auto error = AclApplySelectorRule(selector, word)) return fail(*error);
    }
    u.selectors.push_back(std::move(selector));
  } else if (EqualsNoCase(op, "clearselectors")) {
    u.selectors.resize(1);
  } else if (EqualsNoCase(op, "reset")) {
    for (std::string_view step : {"resetpass", "resetkeys", "resetchannels"}) {
      AclApplyRule(u, step, pubsub_default_all);
    }
    if (pubsub_default_all) AclApplyRule(u, "allchannels", pubsub_default_all);
    for (std::string_view step : {"off", "sanitize-payload", "clearselectors", "-@all"}) {
      AclApplyRule(u, step, pubsub_default_all);
    }
  } else if (auto error = AclApplySelectorRule(u.selectors.front(), op)) {
    return fail(*error);
  }
  return std::nullopt;
}

Acl::Acl() {
  std::unique_ptr<AclUser> user = NewUser("default");
  for (std::string_view rule : {"+@all", "~*", "&*", "on", "nopass"}) {
    AclApplyRule(*user, rule, false);
  }
  user->Changed();
  default_user_ = user.get();
  users_.emplace("default", std::move(user));
}

std::unique_ptr<AclUser> Acl::NewUser(std::string_view name) const {
  auto user = std::make_unique<AclUser>();
  user->name.assign(name);
  AclSelector& root = user->selectors.emplace_back();
  root.flags = AclSelector::kRoot;
  if (pubsub_default_all) root.flags |= AclSelector::kAllChannels;
  return user;
}

AclUser* Acl::Find(std::string_view name) {
  const auto it = users_.find(name);
  return it == users_.end() ? nullptr : it->second.get();
}

std::optional<std::string> Acl::SetUser(std::string_view name,
                                        std::span<const std::string_view> rules,
                                        AclUser** changed) {
  std::size_t open_at = 0;
  const std::optional<std::vector<std::string>> merged = MergeSelectorWords(rules, &open_at);
  if (!merged.has_value()) {
    return "Unmatched parenthesis in acl selector starting at '" + std::string(rules[open_at]) +
           "'.";
  }
  AclUser* existing = Find(name);
  AclUser staged = existing != nullptr ? *existing : std::move(*NewUser(name));
  for (const std::string& op : *merged) {
    if (auto error = AclApplyRule(staged, op, pubsub_default_all)) {
      return "Error in ACL SETUSER modifier '" + op + "': " + *error;
    }
  }
  staged.Changed();
  if (existing == nullptr) {
    auto user = std::make_unique<AclUser>(std::move(staged));
    existing = user.get();
    users_.emplace(std::string(name), std::move(user));
  } else {
    *existing = std::move(staged);
  }
  if (changed != nullptr) *changed = existing;
  return std::nullopt;
}

std::unique_ptr<AclUser> Acl::Remove(std::string_view name) {
  const auto it = users_.find(name);
  if (it == users_.end() || it->second.get() == default_user_) return nullptr;
  std::unique_ptr<AclUser> user = std::move(it->second);
  users_.erase(it);
  return user;
}

void Acl::SetDefaultPassword(std::string_view password) {
  AclApplyRule(*default_user_, "resetpass", pubsub_default_all);
  if (password.empty()) {
    AclApplyRule(*default_user_, "nopass", pubsub_default_all);
  } else {
    default_user_->passwords.push_back(AclHashPassword(password));
  }
  default_user_->Changed();
}

AclUser* Acl::Authenticate(std::string_view name, std::string_view password) {
  AclUser* user = Find(name);
  if (user == nullptr || (user->flags & AclUser::kDisabled) != 0) return nullptr;
  if ((user->flags & AclUser::kNoPass) != 0) return user;
  const std::string hash = AclHashPassword(password);
  bool match = false;
  // Every stored hash is compared, in constant time, whatever matched before.
  for (const std::string& stored : user->passwords) {
    match |=
        stored.size() == hash.size() && ConstantTimeEqual(stored.data(), hash.data(), hash.size());
  }
  return match ? user : nullptr;
}

std::optional<std::string> Acl::LoadFile(const std::string& path, const std::string& name,
                                         std::vector<std::unique_ptr<AclUser>>& dropped) {
  std::string text;
  if (const std::optional<int> err = ReadFileBytes(path, text)) {
    return "Error loading ACLs, opening file '" + name + "': " + std::strerror(*err);
  }
  std::string errors;
  std::map<std::string, std::unique_ptr<AclUser>, std::less<>> loaded;
  std::size_t line_start = 0;
  for (int number = 1; line_start <= text.size(); ++number) {
    std::size_t end = text.find('\n', line_start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + line_start, end - line_start);
    line_start = end + 1;
    while (!line.empty() && std::strchr(" \t\r\n", line.front()) != nullptr) line.remove_prefix(1);
    while (!line.empty() && std::strchr(" \t\r\n", line.back()) != nullptr) line.remove_suffix(1);
    if (line.empty()) continue;
    // Split at single spaces, as Redis's sdssplitlen: two spaces make an empty rule (a no-op).
    std::vector<std::string_view> argv;
    for (std::size_t at = 0; at <= line.size();) {
      const std::size_t space = std::min(line.find(' ', at), line.size());
      argv.push_back(line.substr(at, space - at));
      at = space + 1;
    }
    const std::string where = path + ":" + std::to_string(number);
    if (argv[0] != "user" || argv.size() < 2) {
      errors += where + " should start with user keyword followed by the username. ";
      continue;
    }
    if (AclHasSpaces(argv[1])) {
      errors +=
          "'" + where + ": username '" + std::string(argv[1]) + "' contains invalid characters. ";
      continue;
    }
    if (loaded.count(argv[1]) != 0) {
      errors += "WARNING: Duplicate user '" + std::string(argv[1]) + "' found on line " +
                std::to_string(number) + ". ";
      continue;
    }
    std::unique_ptr<AclUser> user = NewUser(argv[1]);
    std::optional<std::vector<std::string>> merged =
        MergeSelectorWords(std::span<const std::string_view>(argv).subspan(2));
    if (!merged.has_value()) {
      errors += where + ": Unmatched parenthesis in selector definition.";
      merged.emplace();
    }
    bool syntax_error = false;
    for (const std::string& op : *merged) {
      if (auto error = AclApplyRule(*user, op, pubsub_default_all)) {
        if (*error == kUnknownCommand) {
          errors += where + ": Error in applying operation '" + op + "': " + *error + ". ";
        } else if (!syntax_error) {
          errors += where + ": " + *error + ". ";
          syntax_error = true;
        }
      }
    }
    user->Changed();
    loaded.emplace(user->name, std::move(user));
  }
  if (!errors.empty()) {
    return errors +
           "WARNING: ACL errors detected, no change to the previously active ACL rules was "
           "performed";
  }
  // The default user keeps its address (sessions point at it) and takes the file's rules.
  auto file_default = loaded.find("default");
  if (file_default != loaded.end()) {
    *default_user_ = std::move(*file_default->second);
    loaded.erase(file_default);
  } else {
    Acl fresh;
    *default_user_ = std::move(fresh.default_user());
  }
  default_user_->Changed();
  auto kept = users_.extract("default");
  for (auto& [name, user] : users_) dropped.push_back(std::move(user));
  users_ = std::move(loaded);
  users_.insert(std::move(kept));
  return std::nullopt;
}

std::vector<std::string> Acl::UserLines() const {
  std::vector<std::string> lines;
  for (const auto& [name, user] : users_)
    lines.push_back("user " + name + " " + AclDescribeUser(*user));
  return lines;
}

std::optional<std::string> Acl::SaveFile(const std::string& path) const {
  std::string text;
  for (const std::string& line : UserLines()) text += line + "\n";
  const std::string temp = path + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return std::string("Opening temp ACL file for ACL SAVE: ") + std::strerror(errno);
  // Synced before the rename, so a crash leaves the old file or the whole new one.
  int err = WriteAll(fd, text);
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  ::close(fd);
  if (err != 0) {
    ::unlink(temp.c_str());
    return std::string("Writing ACL file for ACL SAVE: ") + std::strerror(err);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return std::string("Renaming ACL file for ACL SAVE: ") + std::strerror(err);
  }
  return std::nullopt;
}

std::optional<std::string> Acl::AddConfiguredUser(std::span<const std::string> line) {
  const std::string& name = line[0];
  if (AclHasSpaces(name)) return "Spaces not allowed in ACL usernames";
  AclUser* user = Find(name);
  if (user == nullptr) {
    std::unique_ptr<AclUser> made = NewUser(name);
    user = made.get();
    users_.emplace(name, std::move(made));
  } else {
    AclApplyRule(*user, "reset", pubsub_default_all);
  }
  const std::optional<std::vector<std::string>> merged = MergeSelectorWords(line.subspan(1));
  if (!merged.has_value()) {
    return "Unmatched parenthesis in acl selector for the user named '" + name + "'";
  }
  for (const std::string& op : *merged) {
    if (auto error = AclApplyRule(*user, op, pubsub_default_all)) {
      return "Error loading ACL rule '" + op + "' for the user named '" + name + "': " + *error;
    }
  }
  user->Changed();
  return std::nullopt;
}

void Acl::AddLogEntry(AclLogEntry entry, std::size_t max_len) {
  // Redis's addACLLogEntry: a like entry among the 10 newest within 60 s is counted again.
  constexpr std::int64_t kGroupingMs = 60000;
  const std::size_t scan = std::min<std::size_t>(log.size(), 10);
  for (std::size_t i = 0; i < scan; ++i) {
    AclLogEntry& old = log[i];
    const std::int64_t delta = old.ctime_ms - entry.ctime_ms;
    if (old.reason == entry.reason && old.context == entry.context &&
        (delta < 0 ? -delta : delta) <= kGroupingMs && old.object == entry.object &&
        old.username == entry.username) {
      AclLogEntry match = std::move(old);
      log.erase(log.begin() + static_cast<std::ptrdiff_t>(i));
      match.client_info = std::move(entry.client_info);
      match.ctime_ms = entry.ctime_ms;
      ++match.count;
      log.push_front(std::move(match));
      return;
    }
  }
  log.push_front(std::move(entry));
  while (log.size() > max_len) log.pop_back();
}

}  // namespace warden::server
