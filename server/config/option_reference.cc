#include "server/config/option_reference.h"

#include <cctype>

#include "server/config/config_options.h"
#include "server/version.h"

namespace warden::server {
namespace {

// A line of roff text: backslashes escaped, and a line that would start with a control character
// ('.' or '\'') guarded by the zero-width \&.
std::string Roff(std::string_view text) {
  std::string out;
  if (!text.empty() && (text.front() == '.' || text.front() == '\'')) out = "\\&";
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  return out;
}

// A row's help as a sentence: "TCP port (0 picks a free one)" -> "TCP port (0 picks a free
// one)." with a capital first letter.
std::string Sentence(std::string_view help) {
  std::string out(help);
  if (out.empty()) return out;
  out.front() = static_cast<char>(std::toupper(static_cast<unsigned char>(out.front())));
  if (out.back() != '.') out += '.';
  return out;
}

// The form of a line that has no default words (replicaof, user, loadmodule): the help's
// leading "<host> <port>", or the kind's argument.
std::string Placeholder(const ConfigOption& option) {
  const std::string_view help = option.help;
  const std::size_t colon = help.find(':');
  if (help.starts_with('<') && colon != std::string_view::npos) {
    return std::string(help.substr(0, colon));
  }
  return "<" + OptionArgument(option) + ">";
}

// Options a file has no reason to carry: the test hooks CONFIG GET hides.
bool Listed(const ConfigOption& option) { return (option.flags & kConfigHidden) == 0; }

std::string Banner(std::string_view title) {
  std::string upper(title);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string line = "################################ " + upper + " ";
  if (line.size() < 80) line.resize(80, '#');
  return line;
}

constexpr char kManHead[] = R"(.SH NAME
warden \- a lock and coordination server that speaks the Redis protocol
.SH SYNOPSIS
.B warden
.RI [ /path/to/warden.conf ]
.RB [ \-\-option
.IR value " ...]"
.br
.B warden \-\-version
.br
.B warden \-\-help
.SH DESCRIPTION
.B warden
is a single-threaded server for locks, semaphores, leases, fencing counters, queues and the other
coordination patterns built on Redis. It answers the Redis protocol (RESP2 and RESP3) as Redis 7.0
does, so redis-cli and unmodified client libraries work against it.
.PP
Options come from the config file, one per line without the dashes (Redis's redis.conf syntax:
a stock redis.conf is accepted), and then from the command line, which wins. CONFIG GET, CONFIG SET
and CONFIG REWRITE read and change the same options while the server runs. A mistake in the file
stops the start with the line it was found on, as redis-server reports it.
.PP
Memory sizes take Redis's units: 1k is 1000 bytes, 1kb 1024, and so on for m, mb, g and gb.
.SH OPTIONS
)";

constexpr char kManTail[] = R"(.SH SIGNALS
.TP
.BR SIGTERM ", " SIGINT
Shut down as SHUTDOWN does: save a snapshot when save points are configured, finish the
append-only file, give slow readers up to shutdown-timeout seconds, then exit.
.SH FILES
.TP
.I /etc/warden/warden.conf
The configuration the packaged service starts with.
.TP
.I /var/lib/warden
The service's working directory (dir): dump.rdb and the append-only files.
.SH EXIT STATUS
0 after a clean shutdown; 1 when the configuration is refused or the server cannot start.
.SH SEE ALSO
.BR redis-cli (1),
.BR redis-server (1),
.BR systemd.service (5)
.PP
Redis's configuration reference: https://redis.io/docs/management/config/
)";

}  // namespace

std::string ManPage() {
  std::string out = ".TH WARDEN 1 \"\" \"warden " + std::string(kWardenVersion) +
                    "\" \"User Commands\"\n" + kManHead;
  out += ".TP\n.B \\-\\-version\nPrint the version and the Redis version warden answers as.\n";
  out += ".TP\n.B \\-\\-help\nList every option with its default, by group.\n";
  for (const ConfigGroup& group : ConfigGroups()) {
    out += ".SS " + Roff(group.title) + "\n";
    for (const ConfigOption& o : group.rows) {
      if (!Listed(o)) continue;
      out += ".TP\n.BI \\-\\-" + Roff(o.name) + " \" " + Roff(OptionArgument(o)) + "\"\n";
      out += Roff(Sentence(o.help));
      if (const std::string value = OptionDefault(o); !value.empty()) {
        out += " Default: " + Roff(value) + ".";
      }
      if (!o.alias.empty()) out += " Alias: " + Roff(o.alias) + ".";
      out += '\n';
    }
  }
  out += kManTail;
  return out;
}

std::string SampleConfig(std::span<const std::pair<std::string_view, std::string_view>> active) {
  std::string out =
      "# warden's configuration.\n"
      "#\n"
      "# warden reads Redis 7.0's redis.conf directives, so a stock redis.conf works too. Each\n"
      "# option below is shown with its default, commented out: uncomment a line to change it.\n"
      "# The same names are command-line options (--port 7000), which win over this file, and\n"
      "# CONFIG GET / CONFIG SET parameters. `warden --help` and warden(1) list them all.\n"
      "#\n"
      "# Memory sizes take Redis's units: 1k = 1000 bytes, 1kb = 1024 bytes, and so on for\n"
      "# m/mb and g/gb, case-insensitive.\n"
      "#\n"
      "# Other files can be read from here, as in redis.conf; a later line wins:\n"
      "#\n"
      "# include /path/to/local.conf\n";
  const Config defaults;
  for (const ConfigGroup& group : ConfigGroups()) {
    out += "\n" + Banner(group.title) + "\n";
    for (const ConfigOption& o : group.rows) {
      if (!Listed(o)) continue;
      out += "\n# " + Sentence(o.help) + "\n";
      const auto shown = o.rewrite != nullptr ? o.rewrite : o.get;
      std::string value =
          shown != nullptr && (o.flags & kConfigFileOnly) == 0 ? shown(defaults) : "";
      if (value.empty() && (o.flags & kConfigMultiWord) != 0) value = Placeholder(o);
      if (value.empty()) value = "\"\"";
      // One line per class for client-output-buffer-limit, as redis.conf writes it.
      std::size_t start = 0;
      while (start <= value.size()) {
        const std::size_t end = std::min(value.find('\n', start), value.size());
        out += "# " + std::string(o.name) + " " + value.substr(start, end - start) + "\n";
        start = end + 1;
      }
      for (const auto& [name, set] : active) {
        if (name == o.name) out += std::string(o.name) + " " + std::string(set) + "\n";
      }
    }
  }
  return out;
}

}  // namespace warden::server
