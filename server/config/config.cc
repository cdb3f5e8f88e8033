#include "server/config/config.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "protocol/request_parser.h"
#include "server/config/config_options.h"
#include "server/config/config_values.h"
#include "server/version.h"

namespace warden::server {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

}  // namespace

std::uint64_t MemoryUnitBytes(std::string_view unit) {
  const std::string lower = Lower(unit);
  if (lower.empty() || lower == "b") return 1;
  if (lower == "k") return 1000;
  if (lower == "kb") return 1024;
  if (lower == "m") return 1000ULL * 1000;
  if (lower == "mb") return 1024ULL * 1024;
  if (lower == "g") return 1000ULL * 1000 * 1000;
  if (lower == "gb") return 1024ULL * 1024 * 1024;
  return 0;
}

std::string PathUnderDir(const Config& config, const std::string& path) {
  if (path.empty() || path.front() == '/' || config.dir.empty()) return path;
  return config.dir + "/" + path;
}

bool ParseMemory(std::string_view text, std::int64_t& out) {
  std::size_t digits = 0;
  while (digits < text.size() &&
         ((text[digits] >= '0' && text[digits] <= '9') || (digits == 0 && text[digits] == '-'))) {
    ++digits;
  }
  const auto mul = static_cast<std::int64_t>(MemoryUnitBytes(text.substr(digits)));
  if (mul == 0) return false;
  std::int64_t value = 0;
  if (!protocol::ParseStrictInt64(text.substr(0, digits), value)) return false;
  if (value != 0 && (value > INT64_MAX / mul || value < INT64_MIN / mul)) return false;
  out = value * mul;
  return true;
}

std::optional<std::string> ParsePercentiles(std::span<const std::string> words,
                                            std::vector<double>& out) {
  std::vector<double> parsed;
  if (!(words.size() == 1 && words[0].empty())) {
    for (const std::string& word : words) {
      // Redis's string2d: strtod over the whole word, no spaces, no nan.
      char* end = nullptr;
      errno = 0;
      const double value = word.empty() || word[0] == ' ' ? NAN : std::strtod(word.c_str(), &end);
      if (std::isnan(value) || end != word.c_str() + word.size() || errno == ERANGE) {
        return "Invalid latency-tracking-info-percentiles parameters";
      }
      if (value > 100.0 || value < 0.0) {
        return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
      }
      parsed.push_back(value);
    }
  }
  out = std::move(parsed);
  return std::nullopt;
}

std::string FormatPercentiles(const std::vector<double>& percentiles) {
  std::string out;
  for (double p : percentiles) {
    char buf[64];
    int len = std::snprintf(buf, sizeof(buf), "%f", p);
    while (len > 0 && buf[len - 1] == '0') --len;
    if (len > 0 && buf[len - 1] == '.') --len;
    if (!out.empty()) out += ' ';
    out.append(buf, static_cast<std::size_t>(len));
  }
  return out;
}

std::optional<ConfigError> ApplyDirective(Config& c, const ConfigDirective& d) {
  const ConfigOption* option = FindOptionRow(d.name);
  if (option == nullptr) return ConfigError{"Bad directive or wrong number of arguments"};
  const bool multi = (option->flags & kConfigMultiWord) != 0;
  if (!multi && d.args.size() != 1) return ConfigError{"wrong number of arguments"};
  std::vector<std::string_view> words(d.args.begin(), d.args.end());
  // As Redis's loadServerConfigFromString: one word of a several-word option is split as a
  // line is (`--bind "127.0.0.1 ::1"`), unless it is empty (`--save ""`).
  std::string storage;
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  if (multi && (option->flags & kConfigFileOnly) == 0 && words.size() == 1 && !words[0].empty()) {
    if (!protocol::SplitInlineArgs(words[0], storage, spans)) {
      return ConfigError{"Unbalanced quotes in configuration line"};
    }
    words.clear();
    for (const auto& [at, len] : spans) words.push_back(std::string_view(storage).substr(at, len));
  }
  // Redis's reading_config_file: the first save line replaces the defaults, later ones add.
  const bool is_save = option->name == "save";
  std::vector<std::pair<std::int64_t, std::int64_t>> earlier;
  if (is_save && c.save_points_from_file) earlier = c.save_points;
  if (auto error = option->set(c, words)) return ConfigError{*error};
  if (is_save) {
    if (!c.save_points.empty()) {
      earlier.insert(earlier.end(), c.save_points.begin(), c.save_points.end());
    } else {
      earlier.clear();
    }
    c.save_points = std::move(earlier);
    c.save_points_from_file = true;
  }
  return std::nullopt;
}

std::string FatalConfigError(std::size_t line, std::string_view text, std::string_view why) {
  std::string out =
      "\n*** FATAL CONFIG FILE ERROR (Redis " + std::string(kRedisVersion) + ") ***\n";
  out += "Reading the configuration file, at line " + std::to_string(line) + "\n";
  out += ">>> '" + std::string(text) + "'\n";
  out += why;
  return out;
}

std::optional<ConfigError> ParseConfigText(std::string_view text,
                                           std::vector<ConfigDirective>& out) {
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    // Redis's sdstrim(" \t\r\n"): the line an error quotes.
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '#') continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") + 1 - first);
    std::string storage;
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    if (!protocol::SplitInlineArgs(line, storage, spans)) {
      return ConfigError{
          FatalConfigError(line_no, line, "Unbalanced quotes in configuration line")};
    }
    if (spans.empty()) continue;
    ConfigDirective d;
    d.name = storage.substr(spans[0].first, spans[0].second);
    for (std::size_t i = 1; i < spans.size(); ++i) {
      d.args.push_back(storage.substr(spans[i].first, spans[i].second));
    }
    d.line = line_no;
    d.text = line;
    out.push_back(std::move(d));
  }
  return std::nullopt;
}

namespace {

constexpr int kMaxIncludeDepth = 16;

std::optional<ConfigError> CannotOpen(const std::string& path, int error) {
  return ConfigError{"Fatal error, can't open config file '" + path + "': " + std::strerror(error),
                     true};
}

// A file's text, or Redis's reason it cannot be read. A directory is refused (Redis 7.0 would
// read it as an empty file).
std::optional<ConfigError> ReadConfigFile(const std::string& path, std::string& text) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return CannotOpen(path, EISDIR);
  std::ifstream in(path);
  if (!in) return CannotOpen(path, errno != 0 ? errno : ENOENT);
  std::stringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return std::nullopt;
}

std::optional<ConfigError> ApplyAll(Config& config, const std::vector<ConfigDirective>& directives,
                                    int depth);

// Redis's include: the file's directives apply where the include line is, its errors quote its
// own lines.
std::optional<ConfigError> Include(Config& config, const std::string& path, int depth) {
  if (depth > kMaxIncludeDepth) {
    return ConfigError{"Fatal error, config files include each other too deeply at '" + path + "'",
                       true};
  }
  std::string text;
  if (auto err = ReadConfigFile(path, text)) return err;
  std::vector<ConfigDirective> directives;
  if (auto err = ParseConfigText(text, directives)) return err;
  return ApplyAll(config, directives, depth + 1);
}

std::optional<ConfigError> ApplyAll(Config& config, const std::vector<ConfigDirective>& directives,
                                    int depth) {
  for (const ConfigDirective& d : directives) {
    if (Lower(d.name) == "include" && d.args.size() == 1) {
      if (auto err = Include(config, d.args[0], depth)) return err;
      continue;
    }
    if (auto err = ApplyDirective(config, d)) {
      return ConfigError{FatalConfigError(d.line, d.text, err->message)};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<ConfigError> ParseCommandLine(std::span<char* const> argv, Config& config) {
  std::vector<ConfigDirective> directives;
  std::size_t i = 1;
  // As Redis numbers lines: the command line's options follow the file's text after a newline
  // of their own, one line each.
  std::size_t next_line = 2;
  if (i < argv.size() && std::string_view(argv[i]).substr(0, 2) != "--") {
    config.config_file = argv[i];
    std::string text;
    if (auto err = ReadConfigFile(config.config_file, text)) return err;
    if (auto err = ParseConfigText(text, directives)) return err;
    next_line += static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    ++i;
  }
  for (; i < argv.size(); ++i) {
    std::string_view arg = argv[i];
    if (arg.substr(0, 2) != "--" || arg.size() == 2) {
      return ConfigError{"unexpected argument '" + std::string(arg) + "' (options start with --)"};
    }
    ConfigDirective d;
    d.name = std::string(arg.substr(2));
    d.text = d.name;
    // As redis-server does: every following word up to the next --option is an argument.
    while (i + 1 < argv.size() && std::string_view(argv[i + 1]).substr(0, 2) != "--") {
      d.args.emplace_back(argv[++i]);
      d.text += ' ';
      d.text += config_values::Quoted(d.args.back());
    }
    d.line = next_line++;
    directives.push_back(std::move(d));
  }
  return ApplyAll(config, directives, 0);
}

std::vector<ConfigValue> ConfigValues(const Config& c) {
  std::vector<ConfigValue> values;
  for (const ConfigOption& option : ConfigOptions()) {
    if (option.get == nullptr || (option.flags & kConfigFileOnly) != 0) continue;
    std::string value = option.get(c);
    const bool hidden = (option.flags & kConfigHidden) != 0;
    // Redis lists an alias as an option of its own.
    if (!option.alias.empty()) values.push_back({option.alias, value, hidden});
    values.push_back({option.name, std::move(value), hidden});
  }
  return values;
}

}  // namespace warden::server
