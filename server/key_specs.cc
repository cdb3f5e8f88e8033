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
  bool has_keys = false;  // a spec that is not NOT_KEY
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

}  // namespace

bool CommandHasKeys(std::uint16_t command_id) { return Specs()[command_id].has_keys; }

void FindCommandKeys(std::uint16_t command_id, std::span<const std::string_view> args,
                     std::vector<KeyRef>& out) {
  out.clear();
  // SET's flags depend on GET (Redis's setGetKeys).
  if (CommandById(command_id).handler == SetCommand) {
    std::uint16_t flags = kKeyOW | kKeyUpdate;
    for (std::size_t i = 3; i < args.size(); ++i) {
      if (ArgIs(args[i], "get")) flags = kKeyRW | kKeyAccess | kKeyUpdate;
    }
    if (args.size() > 1) out.push_back({1, flags});
    return;
  }
  for (const KeySpec& s : Specs()[command_id].specs) {
    if ((s.flags & kKeyNotKey) != 0) continue;
    if (!AddKeys(s, args, out)) {
      out.clear();
      return;
    }
  }
}

}  // namespace warden::server
