#include "server/key_specs.h"

#include <cctype>
#include <string>

#include "protocol/reply_reader.h"
#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"

namespace warden::server {

std::string_view CommandKeySpecsResp3(std::string_view full_name);

namespace {

struct KeySpec {
  std::uint16_t flags = 0;
  bool unknown = false;  // begin_search "unknown": only the command's own key finder knows
  bool by_keyword = false;
  int index = 0;  // begin_search index, or the keyword's startfrom
  std::string keyword;
  bool keynum = false;
  int lastkey = 0;  // range
  int keystep = 1;
  int limit = 0;
  int keynumidx = 0;  // keynum
  int firstkey = 0;
};

constexpr struct {
  std::string_view name;
  std::uint16_t flag;
} kFlagNames[] = {
    {"RO", kKeyRO},
    {"RW", kKeyRW},
    {"OW", kKeyOW},
    {"RM", kKeyRM},
    {"access", kKeyAccess},
    {"update", kKeyUpdate},
    {"insert", kKeyInsert},
    {"delete", kKeyDelete},
    {"not_key", kKeyNotKey},
    {"incomplete", kKeyIncomplete},
    {"variable_flags", kKeyVariableFlags},
};

const protocol::Reply* Field(const protocol::Reply& map, std::string_view name) {
  for (std::size_t i = 0; i + 1 < map.elements.size(); i += 2) {
    if (map.elements[i].text == name) return &map.elements[i + 1];
  }
  return nullptr;
}

std::int64_t IntField(const protocol::Reply* map, std::string_view name) {
  const protocol::Reply* f = map != nullptr ? Field(*map, name) : nullptr;
  return f != nullptr ? f->integer : 0;
}

KeySpec ParseSpec(const protocol::Reply& map) {
  KeySpec spec;
  if (const protocol::Reply* flags = Field(map, "flags")) {
    for (const protocol::Reply& word : flags->elements) {
      for (const auto& [name, flag] : kFlagNames) {
        if (word.text == name) spec.flags |= flag;
      }
    }
  }
  if (const protocol::Reply* bs = Field(map, "begin_search")) {
    const protocol::Reply* type = Field(*bs, "type");
    const protocol::Reply* detail = Field(*bs, "spec");
    if (type != nullptr && type->text == "keyword") {
      spec.by_keyword = true;
      const protocol::Reply* keyword = detail != nullptr ? Field(*detail, "keyword") : nullptr;
      if (keyword != nullptr) spec.keyword.assign(keyword->text);
      // ArgIs compares against lower case.
      for (char& c : spec.keyword)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      spec.index = static_cast<int>(IntField(detail, "startfrom"));
    } else if (type != nullptr && type->text == "unknown") {
      spec.unknown = true;
    } else {
      spec.index = static_cast<int>(IntField(detail, "index"));
    }
  }
  if (const protocol::Reply* fk = Field(map, "find_keys")) {
    const protocol::Reply* type = Field(*fk, "type");
    const protocol::Reply* detail = Field(*fk, "spec");
    spec.keystep = static_cast<int>(IntField(detail, "keystep"));
    if (type != nullptr && type->text == "keynum") {
      spec.keynum = true;
      spec.keynumidx = static_cast<int>(IntField(detail, "keynumidx"));
      spec.firstkey = static_cast<int>(IntField(detail, "firstkey"));
    } else {
      spec.lastkey = static_cast<int>(IntField(detail, "lastkey"));
      spec.limit = static_cast<int>(IntField(detail, "limit"));
    }
  }
  if (spec.keystep < 1) spec.keystep = 1;
  return spec;
}

struct CommandKeySpecs {
  std::vector<KeySpec> specs;
  bool has_keys = false;        // a spec that is not NOT_KEY
  bool variable_flags = false;  // a spec whose flags depend on the arguments
};

// Indexed by CommandId.
const std::vector<CommandKeySpecs>& Specs() {
  static const std::vector<CommandKeySpecs>* table = [] {
    auto* t = new std::vector<CommandKeySpecs>(CommandIdCount());
    for (std::size_t id = 0; id < t->size(); ++id) {
      const std::string_view bytes =
          CommandKeySpecsResp3(CommandById(static_cast<std::uint16_t>(id)).name);
      protocol::Reply parsed;
      if (bytes.empty() || protocol::ReadReply(bytes, parsed).value_or(0) == 0) continue;
      CommandKeySpecs& entry = (*t)[id];
      for (const protocol::Reply& map : parsed.elements) {
        entry.specs.push_back(ParseSpec(map));
        if ((entry.specs.back().flags & kKeyNotKey) == 0) entry.has_keys = true;
        if ((entry.specs.back().flags & kKeyVariableFlags) != 0) entry.variable_flags = true;
      }
    }
    return t;
  }();
  return *table;
}

// One spec's keys (Redis's getKeysUsingKeySpecs); false if the arguments do not fit it.
bool AddKeys(const KeySpec& spec, std::span<const std::string_view> args,
             std::vector<KeyRef>& out) {
  const int argc = static_cast<int>(args.size());
  int first = 0;
  if (spec.unknown) return false;
  if (spec.by_keyword) {
    const int start = spec.index > 0 ? spec.index : argc + spec.index;
    const int end = spec.index > 0 ? argc - 1 : 1;
    for (int i = start; i != end; i = start <= end ? i + 1 : i - 1) {
      if (i >= argc || i < 1) break;
      if (ArgIs(args[static_cast<std::size_t>(i)], spec.keyword)) {
        first = i + 1;
        break;
      }
    }
    if (first == 0) return true;  // the keyword is absent: no keys from this spec
  } else {
    first = spec.index;
  }
  int last = 0;
  if (!spec.keynum) {
    if (spec.lastkey >= 0) {
      last = first + spec.lastkey;
    } else if (spec.limit == 0) {
      last = argc + spec.lastkey;
    } else {
      last = first + ((argc - first) / spec.limit + spec.lastkey);
    }
  } else {
    if (first + spec.keynumidx >= argc) return false;
    std::int64_t numkeys = 0;
    if (!protocol::ParseStrictInt64(args[static_cast<std::size_t>(first + spec.keynumidx)],
                                    numkeys) ||
        numkeys < 0 || numkeys > argc) {
      return false;
    }
    first += spec.firstkey;
    last = first + static_cast<int>(numkeys) - 1;
  }
  if (last >= argc || last < first || first >= argc) return false;
  for (int i = first; i <= last; i += spec.keystep) out.push_back({i, spec.flags});
  return (spec.flags & kKeyIncomplete) == 0;
}

// The commands whose key specs cannot say it all, with Redis's own key finders (db.c's
// getkeys_proc), which getKeysFromCommandWithSpecs falls back to.

// SET's flags depend on GET (setGetKeys).
void SetKeys(std::span<const std::string_view> args, std::vector<KeyRef>& out) {
  std::uint16_t flags = kKeyOW | kKeyUpdate;
  for (std::size_t i = 3; i < args.size(); ++i) {
    if (ArgIs(args[i], "get")) flags = kKeyRW | kKeyAccess | kKeyUpdate;
  }
  if (args.size() > 1) out.push_back({1, flags});
}

// BITFIELD reads only while every subcommand before the first write is a GET (bitfieldGetKeys).
void BitfieldKeys(std::span<const std::string_view> args, std::vector<KeyRef>& out) {
  bool readonly = true;
  for (std::size_t i = 2; i < args.size(); ++i) {
    const std::size_t rest = args.size() - i - 1;
    if (ArgIs(args[i], "get") && rest >= 2) {
      i += 2;
    } else if ((ArgIs(args[i], "set") || ArgIs(args[i], "incrby")) && rest >= 3) {
      readonly = false;
      break;
    } else if (ArgIs(args[i], "overflow") && rest >= 1) {
      i += 1;
    } else {
      readonly = false;  // a syntax error: assume a write, as Redis does
      break;
    }
  }
  out.push_back({1, readonly ? std::uint16_t(kKeyRO | kKeyAccess)
                             : std::uint16_t(kKeyRW | kKeyAccess | kKeyUpdate)});
}

// The sorted key, and the last STORE's destination; BY and GET patterns are not keys
// (sortGetKeys: an option's arguments are skipped, an unknown word is taken as a flag).
void SortKeys(std::span<const std::string_view> args, std::vector<KeyRef>& out) {
  out.push_back({1, kKeyRO | kKeyAccess});
  int store = 0;
  for (std::size_t i = 2; i < args.size(); ++i) {
    if (ArgIs(args[i], "limit")) {
      i += 2;
    } else if (ArgIs(args[i], "get") || ArgIs(args[i], "by")) {
      i += 1;
    } else if (ArgIs(args[i], "store") && i + 1 < args.size()) {
      store = static_cast<int>(i + 1);
    }
  }
  if (store != 0) out.push_back({store, kKeyOW | kKeyUpdate});
}

// The one key of the short form, or those after KEYS when the key argument is empty
// (migrateGetKeys).
void MigrateKeys(std::span<const std::string_view> args, std::vector<KeyRef>& out) {
  std::size_t first = 3;
  std::size_t count = 1;
  for (std::size_t i = 6; i < args.size(); ++i) {
    if (ArgIs(args[i], "keys")) {
      if (!args[3].empty()) {
        count = 0;  // a syntax error MIGRATE itself reports
      } else {
        first = i + 1;
        count = args.size() - first;
      }
      break;
    }
    if (ArgIs(args[i], "auth")) {
      i += 1;
    } else if (ArgIs(args[i], "auth2")) {
      i += 2;
    }
  }
  for (std::size_t i = 0; i < count && first + i < args.size(); ++i) {
    out.push_back({static_cast<int>(first + i), kKeyRW | kKeyAccess | kKeyDelete});
  }
}

using KeyFinder = void (*)(std::span<const std::string_view>, std::vector<KeyRef>&);

KeyFinder OwnKeyFinder(const CommandSpec& spec) {
  if (spec.handler == SetCommand) return SetKeys;
  if (spec.handler == BitfieldCommand) return BitfieldKeys;
  if (spec.handler == SortCommand) return SortKeys;
  if (spec.handler == SortRoCommand) {
    return [](std::span<const std::string_view>, std::vector<KeyRef>& out) {
      out.push_back({1, kKeyRO | kKeyAccess});
    };
  }
  if (spec.handler == MigrateCommand) return MigrateKeys;
  return nullptr;
}

}  // namespace

bool CommandHasKeys(std::uint16_t command_id) {
  return Specs()[command_id].has_keys || OwnKeyFinder(CommandById(command_id)) != nullptr;
}

void FindCommandKeys(std::uint16_t command_id, std::span<const std::string_view> args,
                     std::vector<KeyRef>& out) {
  out.clear();
  const CommandKeySpecs& entry = Specs()[command_id];
  // The specs first, unless one has variable flags; then the command's own finder, if any.
  if (entry.has_keys && !entry.variable_flags) {
    bool fits = true;
    for (const KeySpec& s : entry.specs) {
      if ((s.flags & kKeyNotKey) != 0) continue;
      if (!AddKeys(s, args, out)) {
        fits = false;
        break;
      }
    }
    if (fits) return;
    out.clear();
  }
  if (const KeyFinder finder = OwnKeyFinder(CommandById(command_id))) finder(args, out);
}

}  // namespace warden::server
