// Every option warden takes, one row each, as Redis's config.c keeps its standardConfig table.
//
// A row gives the option's name (and Redis's alias for it), the kind of value and its bounds,
// its flags, a line of help, and four functions: set parses the option's words into a Config,
// get formats the value for CONFIG GET, rewrite formats it as a redis.conf line for CONFIG
// REWRITE, and apply runs the side effect of a CONFIG SET (most options are read where they are
// used and need none). The config file, the command line, CONFIG GET, CONFIG SET, CONFIG
// REWRITE and --help all read these rows; the defaults are Config's own initial values.
//
// Adding an option is one row in config_options.cc (tls_options.cc for tls-*), built with the
// kind helpers of option_rows.h, which give Redis's parsing and error texts for each kind.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/config/config.h"
#include "server/config/config_values.h"

namespace warden::server {

class ServerState;

enum class ConfigKind { kBool, kInt, kMemory, kEnum, kString, kSpecial };

enum ConfigFlag : std::uint32_t {
  // CONFIG SET refuses it: "can't set immutable config" (it is read once, at start). One that
  // is also kConfigWarden takes back the value it has, so that every option CONFIG GET lists
  // can be written back.
  kConfigImmutable = 1u << 0,
  // CONFIG SET refuses it: "can't set protected config" (enable-protected-configs is no).
  kConfigProtected = 1u << 1,
  // Takes several words (`bind 127.0.0.1 ::1`); CONFIG SET splits its one value at spaces.
  kConfigMultiWord = 1u << 2,
  // A config file line of its own, not a CONFIG option: every line adds one (`user`). CONFIG
  // GET and SET do not know it, and CONFIG REWRITE leaves its lines as they are.
  kConfigFileOnly = 1u << 3,
  // Its CONFIG SET value is a secret: the slow log and MONITOR show "(redacted)".
  kConfigSensitive = 1u << 4,
  // warden's own, not Redis's (--help lists these apart).
  kConfigWarden = 1u << 5,
  // Redis's HIDDEN_CONFIG (test hooks): CONFIG GET shows it only when asked by its exact name,
  // never for a pattern.
  kConfigHidden = 1u << 6,
};

// A value's parse: nullopt, or Redis's reason text ("argument must be 'yes' or 'no'").
using ConfigSetResult = config_values::SetResult;

struct ConfigOption {
  std::string_view name;   // canonical, lower case
  std::string_view alias;  // Redis's other name for it ("lua-time-limit"), or empty
  ConfigKind kind;
  std::uint32_t flags;  // ConfigFlag bits
  std::int64_t min;     // kInt and kMemory: the bounds Redis checks
  std::int64_t max;
  std::span<const std::string_view> choices;  // kEnum: the names, as Redis lists them
  std::string_view help;                      // --help's line
  // Parses the option's words (one, unless kConfigMultiWord) into `config`.
  ConfigSetResult (*set)(Config& config, std::span<const std::string_view> words);
  // CONFIG GET's value.
  std::string (*get)(const Config& config);
  // What follows the name on a redis.conf line ("512mb", "\"pass\""); several lines (the
  // client-output-buffer-limit classes) are separated by '\n'. Null: CONFIG REWRITE leaves the
  // option's lines as they are.
  std::string (*rewrite)(const Config& config);
  // Run once after CONFIG SET changed this option. Returns Redis's reason text if it failed
  // (CONFIG SET then restores every option it changed).
  ConfigSetResult (*apply)(ServerState& server);

  bool settable() const { return (flags & (kConfigImmutable | kConfigProtected)) == 0; }
};

// The rows in the groups --help, the man page and the sample warden.conf show them in: Redis's
// by topic, then those with no effect here, then warden's own.
struct ConfigGroup {
  std::string_view title;
  std::span<const ConfigOption> rows;
};
std::span<const ConfigGroup> ConfigGroups();
// Every row, the groups' in their order.
std::span<const ConfigOption> ConfigOptions();
// The tls-* rows (tls_options.cc), part of ConfigOptions().
std::span<const ConfigOption> TlsConfigOptions();
// The rows of Redis's options that have no effect here (inert_options.cc), part of
// ConfigOptions(); and the names of those a config gives a value other than Redis's default.
std::span<const ConfigOption> InertConfigOptions();
std::vector<std::string> InertOptionsSet(const Config& config);
// The replication rows (replication_options.cc), part of ConfigOptions().
std::span<const ConfigOption> ReplicationConfigOptions();
// A CONFIG option by canonical name or alias, case-insensitive; nullptr if there is none (the
// file-only rows are not CONFIG options). `via_alias` tells which name matched: Redis keeps an
// alias as an entry of its own, which CONFIG SET errors name.
const ConfigOption* FindConfigOption(std::string_view name, bool* via_alias = nullptr);
// Any row by name or alias, the file-only ones included (the config file and command line).
const ConfigOption* FindOptionRow(std::string_view name);

// CONFIG REWRITE's new file text from the old one, as Redis's rewriteConfig builds it: comments
// and lines of options without a rewrite stay as they are; each option with one takes over its
// first line in the old file (later duplicates become blank lines), and one that is not there
// but differs from its default is appended after a "# Generated by CONFIG REWRITE" line. Runs
// of blank lines shrink to one.
// `user_lines` ("user <name> <rules>"): the ACL users, written as Redis writes them when there
// is no aclfile (with one, the file's user lines are dropped).
std::string RewriteConfigText(std::string_view old_text, const Config& config,
                              const std::vector<std::string>& user_lines = {});

// One option's argument as --help shows it ("yes|no", "N", "BYTES", an enum's names) and its
// default as a config file line writes it ("" for none; the file-only rows have none).
std::string OptionArgument(const ConfigOption& option);
std::string OptionDefault(const ConfigOption& option);

// --help's text: every option with its argument, its default and its help, by group.
std::string OptionsHelp();

}  // namespace warden::server
