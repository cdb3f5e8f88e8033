// ACL rules written back out (ACL LIST, ACL GETUSER), as Redis 7.0's ACLDescribeUser writes
// them: flags, password hashes, then each selector's keys, channels and commands. The commands
// are rebuilt from the bitmap: +@all or -@all, then the categories that fit best, then single
// commands, applied to a scratch selector as they are written so that the rules say exactly what
// the bitmap holds.
#include <climits>

#include "server/acl/acl.h"
#include "server/command_table.h"

namespace warden::server {
namespace {

void CountCategory(const AclSelector& s, std::uint32_t bit, unsigned long& on, unsigned long& off) {
  on = off = 0;
  const std::vector<AclCommand>& commands = AclCommands();
  for (std::size_t id = 0; id < commands.size(); ++id) {
    if ((commands[id].categories & bit) == 0) continue;
    if (s.Allows(id)) {
      ++on;
    } else {
      ++off;
    }
  }
}

void AppendPattern(std::string& out, const AclKeyPattern& key) {
  // A read-write "*" that is not allkeys (it came as "%RW~*") is written as it came. Redis 7.0
  // writes "~*", which reads back as allkeys: the user's other key patterns are dropped, or, with
  // one after it, ACL LOAD refuses the file ACL SAVE wrote.
  if (key.perms == kAclReadWrite && key.pattern == "*") {
    out += "%RW~*";
    return;
  }
  out += key.perms == kAclReadWrite ? "~" : key.perms == kAclRead ? "%R~" : "%W~";
  out += key.pattern;
}

}  // namespace

std::string AclDescribeCommands(const AclSelector& selector) {
  std::string rules;
  const bool additive = !selector.Allows(AclSelector::kFutureBit);
  AclSelector fake;
  rules = additive ? "-@all " : "+@all ";
  AclApplySelectorRule(fake, additive ? "-@all" : "+@all");

  AclSelector temp;
  temp.allowed = selector.allowed;
  bool applied[std::size(kAclCategories)] = {};
  while (true) {
    int best = -1;
    unsigned long mindiff = INT_MAX;
    unsigned long maxsame = 0;
    for (std::size_t j = 0; j < std::size(kAclCategories); ++j) {
      if (applied[j]) continue;
      unsigned long on = 0;
      unsigned long off = 0;
      CountCategory(temp, std::uint32_t{1} << j, on, off);
      const unsigned long diff = additive ? off : on;
      const unsigned long same = additive ? on : off;
      if (same > diff && (diff < mindiff || (diff == mindiff && same > maxsame))) {
        best = static_cast<int>(j);
        mindiff = diff;
        maxsame = same;
      }
    }
    if (best < 0) break;
    const std::string name(kAclCategories[best]);
    const std::string op = (additive ? "+@" : "-@") + name;
    AclApplySelectorRule(fake, op);
    AclApplySelectorRule(temp, (additive ? "-@" : "+@") + name);
    rules += op;
    rules += ' ';
    applied[best] = true;
  }

  // The single commands still different, containers before their subcommands.
  const std::vector<AclCommand>& commands = AclCommands();
  for (std::size_t id = 0; id < commands.size(); ++id) {
    const bool userbit = selector.Allows(id);
    if (userbit != fake.Allows(id)) {
      rules += userbit ? '+' : '-';
      rules += commands[id].spec->name;
      rules += ' ';
      AclChangePerm(fake, static_cast<std::uint16_t>(id), userbit);
    }
    const auto first = selector.first_args.find(static_cast<std::uint16_t>(id));
    if (!userbit && first != selector.first_args.end()) {
      for (const std::string& arg : first->second) {
        rules += '+';
        rules += commands[id].spec->name;
        rules += '|';
        rules += arg;
        rules += ' ';
      }
    }
  }
  rules.pop_back();
  return rules;
}

std::string AclDescribeKeys(const AclSelector& selector) {
  if ((selector.flags & AclSelector::kAllKeys) != 0) return "~*";
  std::string out;
  for (const AclKeyPattern& key : selector.keys) {
    if (!out.empty()) out += ' ';
    AppendPattern(out, key);
  }
  return out;
}

std::string AclDescribeChannels(const AclSelector& selector) {
  if ((selector.flags & AclSelector::kAllChannels) != 0) return "&*";
  std::string out;
  for (const std::string& channel : selector.channels) {
    if (!out.empty()) out += ' ';
    out += '&';
    out += channel;
  }
  return out;
}

const std::string& AclDescribeUser(const AclUser& u) {
  if (!u.description.empty()) return u.description;
  std::string out;
  for (const auto& [flag, name] : kAclUserFlags) {
    if ((u.flags & flag) != 0) {
      out += name;
      out += ' ';
    }
  }
  for (const std::string& hash : u.passwords) {
    out += '#';
    out += hash;
    out += ' ';
  }
  for (const AclSelector& s : u.selectors) {
    std::string described;
    if ((s.flags & AclSelector::kAllKeys) != 0) {
      described += "~* ";
    } else {
      for (const AclKeyPattern& key : s.keys) {
        AppendPattern(described, key);
        described += ' ';
      }
    }
    if ((s.flags & AclSelector::kAllChannels) != 0) {
      described += "&* ";
    } else {
      described += "resetchannels ";
      for (const std::string& channel : s.channels) {
        described += '&';
        described += channel;
        described += ' ';
      }
    }
    described += AclDescribeCommands(s);
    if ((s.flags & AclSelector::kRoot) != 0) {
      out += described;
    } else {
      out += " (" + described + ")";
    }
  }
  u.description = std::move(out);
  return u.description;
}

}  // namespace warden::server
