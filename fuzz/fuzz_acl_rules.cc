// libFuzzer target: any ACL SETUSER rules must be applied or refused cleanly, and what ACL LIST
// writes back for a user must rebuild that user exactly.
//
// The input is rules separated by NUL bytes, then (after a line starting "\n") a request, one
// argument per line, to check against the user. Checked besides the sanitizers: a refused
// SETUSER leaves the user as it was (and an unknown one absent); an accepted one is described,
// and the description, split at spaces and applied to a fresh user, gives the same flags,
// passwords, command bitmaps, first arguments, key and channel patterns in every selector; the
// request is checked against both users with the same verdict.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_harness.h"
#include "server/acl/acl.h"
#include "server/command_table.h"

namespace warden::fuzz {
namespace {

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const std::size_t at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

bool SameSelector(const server::AclSelector& a, const server::AclSelector& b) {
  if (a.allowed != b.allowed || a.flags != b.flags || a.channels != b.channels) return false;
  if (a.keys.size() != b.keys.size()) return false;
  for (std::size_t i = 0; i < a.keys.size(); ++i) {
    if (a.keys[i].pattern != b.keys[i].pattern || a.keys[i].perms != b.keys[i].perms) {
      return false;
    }
  }
  // First arguments count only while the command's own bit is clear: Redis keeps those given
  // for an allowed command ("+@all +select|0") without showing or using them.
  const auto visible = [](const server::AclSelector& s) {
    std::map<std::uint16_t, std::vector<std::string>> out;
    for (const auto& [id, args] : s.first_args) {
      if (!s.Allows(id)) out.emplace(id, args);
    }
    return out;
  };
  return visible(a) == visible(b);
}

// Splits a description at spaces, keeping "( ... )" selectors whole, as ACL LIST is read back.
std::vector<std::string> Words(const std::string& description) {
  std::vector<std::string> words;
  for (std::string_view w : Split(description, ' ')) {
    if (!words.empty() && !words.back().empty() && words.back().front() == '(' &&
        words.back().back() != ')') {
      words.back().append(" ").append(w);
    } else {
      words.emplace_back(w);
    }
  }
  return words;
}

// Redis's own limits on reading its description back: inside a selector, a pattern or first
// argument with a quote is split by sdssplitargs's quoting, and one ending in ')' ends the
// selector early (ACLMergeSelectorArguments). warden writes such users as Redis does; the
// round trip is only checked for users without them.
bool ReadsBack(const server::AclUser& user) {
  const auto plain = [](std::string_view s) {
    return s.find('"') == std::string_view::npos && s.find('\'') == std::string_view::npos &&
           (s.empty() || s.back() != ')');
  };
  for (std::size_t i = 1; i < user.selectors.size(); ++i) {
    const server::AclSelector& s = user.selectors[i];
    for (const server::AclKeyPattern& k : s.keys) {
      if (!plain(k.pattern)) return false;
    }
    for (const std::string& c : s.channels) {
      if (!plain(c)) return false;
    }
    for (const auto& [id, args] : s.first_args) {
      for (const std::string& a : args) {
        if (!plain(a)) return false;
      }
    }
  }
  return true;
}

}  // namespace
}  // namespace warden::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warden;
  using namespace warden::fuzz;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t request_at = input.find("\n");
  const std::string_view rules_part = input.substr(0, request_at);
  std::vector<std::string_view> request;
  if (request_at != std::string_view::npos) {
    for (std::string_view arg : Split(input.substr(request_at + 1), '\n')) request.push_back(arg);
  }
  const std::vector<std::string_view> rules = Split(rules_part, '\0');

  server::Acl acl;
  Check(acl.SetUser("u", {}) == std::nullopt, "an empty SETUSER makes a user");
  const server::AclUser before = *acl.Find("u");
  if (acl.SetUser("u", rules).has_value()) {
    const server::AclUser& after = *acl.Find("u");
    Check(after.flags == before.flags && after.passwords == before.passwords &&
              after.selectors.size() == before.selectors.size() &&
              SameSelector(after.selectors[0], before.selectors[0]),
          "a refused SETUSER changes nothing");
    // "u" started as a new user does: the same rules refuse to make one.
    Check(acl.SetUser("v", rules).has_value() && acl.Find("v") == nullptr,
          "a refused SETUSER makes no user");
    return 0;
  }
  const server::AclUser& user = *acl.Find("u");
  if (!ReadsBack(user)) return 0;
  const std::string description = server::AclDescribeUser(user);
  const std::vector<std::string> words = Words(description);
  std::vector<std::string_view> views(words.begin(), words.end());
  Check(!acl.SetUser("copy", views).has_value(), "a description is accepted");
  const server::AclUser& copy = *acl.Find("copy");
  Check(copy.flags == user.flags, "flags round-trip");
  Check(copy.passwords == user.passwords, "passwords round-trip");
  Check(copy.selectors.size() == user.selectors.size(), "selectors round-trip");
  for (std::size_t i = 0; i < user.selectors.size(); ++i) {
    Check(SameSelector(copy.selectors[i], user.selectors[i]), "a selector round-trips");
  }
  Check(server::AclDescribeUser(copy) == description, "a description describes itself");

  if (!request.empty()) {
    const server::CommandSpec* spec = server::FindTopLevelCommand(request[0]);
    if (spec != nullptr && spec->is_container() && request.size() > 1) {
      spec = server::FindCommand(spec->subcommands(), request[1]);
    }
    if (spec != nullptr && spec->handler != nullptr) {
      int pos_a = 0;
      int pos_b = 0;
      const server::AclDenial a = server::AclCheck(user, *spec, request, pos_a);
      const server::AclDenial b = server::AclCheck(copy, *spec, request, pos_b);
      Check(a == b && pos_a == pos_b, "a copy decides the same");
      Check(pos_a >= 0 && static_cast<std::size_t>(pos_a) < request.size(),
            "a denial points into the request");
    }
  }
  return 0;
}
