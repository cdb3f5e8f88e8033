#include "server/acl.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>

#include "server/command_table.h"

namespace warden::server {

// Redis 7.0's categories, in ACL CAT's order.
const std::string_view kAclCategories[21] = {
    "keyspace", "read",   "write",       "set",       "sortedset",  "list",        "hash",
    "string",   "bitmap", "hyperloglog", "geo",       "stream",     "pubsub",      "admin",
    "fast",     "slow",   "blocking",    "dangerous", "connection", "transaction", "scripting"};

namespace {

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

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

struct CommandIndex {
  std::vector<AclCommand> commands;
  std::unordered_map<const CommandSpec*, std::uint16_t> ids;
};

void IndexTable(std::span<const CommandSpec> table, const CommandSpec* parent, CommandIndex& out) {
  for (const CommandSpec& spec : table) {
    const auto id = static_cast<std::uint16_t>(out.commands.size());
    out.ids[&spec] = id;
    out.commands.push_back({&spec, parent, CategoriesOf(spec), {}});
    if (parent != nullptr) out.commands[out.ids[parent]].subcommands.push_back(id);
    if (spec.is_container()) IndexTable(spec.subcommands(), &spec, out);
  }
}

const CommandIndex& Index() {
  static const CommandIndex* index = [] {
    auto* i = new CommandIndex;
    IndexTable(Commands(), nullptr, *i);
    return i;
  }();
  return *index;
}

// Redis's lookupCommandBySdsLogic, strict: "get", "config|get"; null for "get|x" or "a|b|c".
const CommandSpec* LookupForAcl(std::string_view name) {
  const std::size_t bar = name.find('|');
  if (bar == std::string_view::npos) return FindTopLevelCommand(name);
  const std::string_view sub = name.substr(bar + 1);
  if (sub.find('|') != std::string_view::npos) return nullptr;
  const CommandSpec* base = FindTopLevelCommand(name.substr(0, bar));
  if (base == nullptr || !base->is_container()) return nullptr;
  return FindCommand(base->subcommands(), sub);
}

bool HasSpaces(std::string_view s) {
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '\0') return true;
  }
  return false;
}

bool IsPasswordHash(std::string_view hash) {
  if (hash.size() != 64) return false;
  return std::all_of(hash.begin(), hash.end(),
                     [](char c) { return (c >= 'a' && c <= 'f') || (c >= '0' && c <= '9'); });
}

// Redis's ACLChangeSelectorPerm: a container takes its subcommands with it.
void ChangePerm(AclSelector& s, std::uint16_t id, bool allow) {
  s.SetBit(id, allow);
  s.first_args.erase(id);
  for (std::uint16_t sub : AclCommands()[id].subcommands) s.SetBit(sub, allow);
}

void SetCategory(AclSelector& s, std::uint32_t bit, bool allow) {
  const std::vector<AclCommand>& commands = AclCommands();
  for (std::size_t id = 0; id < commands.size(); ++id) {
    if ((commands[id].categories & bit) != 0) ChangePerm(s, static_cast<std::uint16_t>(id), allow);
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

std::optional<std::string_view> ApplySelectorRule(AclSelector& s, std::string_view op) {
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
    if (HasSpaces(pattern)) return kSyntax;
    auto it = std::find_if(s.keys.begin(), s.keys.end(),
                           [&](const AclKeyPattern& k) { return k.pattern == pattern; });
    if (it == s.keys.end()) {
      s.keys.push_back({std::string(pattern), perms});
    } else {
      it->perms |= perms;
    }
    s.flags &= ~AclSelector::kAllKeys;
  } else if (op[0] == '&') {
    if ((s.flags & AclSelector::kAllChannels) != 0) return kAfterAllChannels;
    const std::string_view pattern = op.substr(1);
    if (HasSpaces(pattern)) return kSyntax;
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
      ChangePerm(s, AclCommandId(*spec), true);
      return std::nullopt;
    }
    const std::string_view base_name = name.substr(0, bar);
    const std::string_view sub = name.substr(bar + 1);
    const CommandSpec* base = LookupForAcl(base_name);
    if (base == nullptr) return kUnknownCommand;
    if (AclCommands()[AclCommandId(*base)].parent != nullptr) return kFirstArgOfSub;
    if (sub.empty()) return kSyntax;
    if (base->is_container()) {
      const CommandSpec* spec = LookupForAcl(name);
      if (spec == nullptr) return kUnknownCommand;
      ChangePerm(s, AclCommandId(*spec), true);
    } else {
      std::vector<std::string>& allowed = s.first_args[AclCommandId(*base)];
      const bool known = std::any_of(allowed.begin(), allowed.end(),
                                     [&](const std::string& a) { return EqualsNoCase(a, sub); });
      if (!known) allowed.emplace_back(sub);
    }
  } else if (op[0] == '-' && (op.size() < 2 || op[1] != '@')) {
    const CommandSpec* spec = LookupForAcl(op.substr(1));
    if (spec == nullptr) return kUnknownCommand;
    ChangePerm(s, AclCommandId(*spec), false);
  } else if (op[0] == '+' || op[0] == '-') {
    const std::uint32_t bit = AclCategoryBit(op.substr(2));
    if (bit == 0) return kUnknownCommand;
    SetCategory(s, bit, op[0] == '+');
  } else {
    return kSyntax;
  }
  return std::nullopt;
}

// Redis's sdssplitargs for a selector's body: words split at spaces, quotes honoured.
std::optional<std::vector<std::string>> SplitSelectorBody(std::string_view body) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (true) {
    while (i < body.size() && std::isspace(static_cast<unsigned char>(body[i]))) ++i;
    if (i == body.size()) return words;
    std::string word;
    bool in_double = false;
    bool in_single = false;
    for (; i < body.size(); ++i) {
      const char c = body[i];
      if (in_double) {
        if (c == '\\' && i + 1 < body.size()) {
          const char n = body[++i];
          word.push_back(n == 'n' ? '\n' : n == 't' ? '\t' : n == 'r' ? '\r' : n);
        } else if (c == '"') {
          if (i + 1 < body.size() && !std::isspace(static_cast<unsigned char>(body[i + 1]))) {
            return std::nullopt;
          }
          in_double = false;
          ++i;
          break;
        } else {
          word.push_back(c);
        }
      } else if (in_single) {
        if (c == '\\' && i + 1 < body.size() && body[i + 1] == '\'') {
          word.push_back('\'');
          ++i;
        } else if (c == '\'') {
          if (i + 1 < body.size() && !std::isspace(static_cast<unsigned char>(body[i + 1]))) {
            return std::nullopt;
          }
          in_single = false;
          ++i;
          break;
        } else {
          word.push_back(c);
        }
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        break;
      } else if (c == '"') {
        in_double = true;
      } else if (c == '\'') {
        in_single = true;
      } else {
        word.push_back(c);
      }
    }
    if (in_double || in_single) return std::nullopt;
    words.push_back(std::move(word));
  }
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

std::uint16_t AclCommandId(const CommandSpec& spec) { return Index().ids.at(&spec); }
const std::vector<AclCommand>& AclCommands() { return Index().commands; }

std::uint32_t AclCategoryBit(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kAclCategories); ++i) {
    if (EqualsNoCase(name, kAclCategories[i])) return std::uint32_t{1} << i;
  }
  return 0;
}

std::string AclHashPassword(std::string_view password) {
  unsigned char digest[32];
  unsigned int len = 0;
  EVP_Digest(password.data(), password.size(), digest, &len, EVP_sha256(), nullptr);
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
    // Unbalanced quotes give Redis's sdssplitargs no words: the selector is added empty.
    const std::vector<std::string> words =
        SplitSelectorBody(op.substr(1, op.size() - 2)).value_or(std::vector<std::string>());
    for (const std::string& word : words) {
      if (word.empty()) continue;
      if (auto error = ApplySelectorRule(selector, word)) return fail(*error);
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
  } else if (auto error = ApplySelectorRule(u.selectors.front(), op)) {
    return fail(*error);
  }
  return std::nullopt;
}

Acl::Acl() {
  auto user = std::make_unique<AclUser>();
  user->name = "default";
  user->selectors.emplace_back().flags = AclSelector::kRoot;
  for (std::string_view rule : {"+@all", "~*", "&*", "on", "nopass"}) {
    AclApplyRule(*user, rule, false);
  }
  user->Changed();
  default_user_ = user.get();
  users_.emplace("default", std::move(user));
}

AclUser* Acl::Find(std::string_view name) {
  const auto it = users_.find(name);
  return it == users_.end() ? nullptr : it->second.get();
}

std::optional<std::string> Acl::SetUser(std::string_view name,
                                        std::span<const std::string_view> rules,
                                        AclUser** changed) {
  // Redis's ACLMergeSelectorArguments: a selector may be spread over several arguments.
  std::vector<std::string> merged;
  std::optional<std::size_t> open;
  for (std::size_t j = 0; j < rules.size(); ++j) {
    const std::string_view op = rules[j];
    if (!open.has_value() && !op.empty() && op[0] == '(' && op.back() != ')') {
      open = j;
      merged.emplace_back(op);
      continue;
    }
    if (open.has_value()) {
      merged.back().append(" ").append(op);
      if (!op.empty() && op.back() == ')') open.reset();
      continue;
    }
    merged.emplace_back(op);
  }
  if (open.has_value()) {
    return "Unmatched parenthesis in acl selector starting at '" + std::string(rules[*open]) + "'.";
  }
  AclUser* existing = Find(name);
  AclUser staged;
  if (existing != nullptr) {
    staged = *existing;
  } else {
    staged.name.assign(name);
    AclSelector& root = staged.selectors.emplace_back();
    root.flags = AclSelector::kRoot;
    if (pubsub_default_all) root.flags |= AclSelector::kAllChannels;
  }
  for (const std::string& op : merged) {
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
    match |= CRYPTO_memcmp(stored.data(), hash.data(), hash.size()) == 0;
  }
  return match ? user : nullptr;
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
