// The man page and the sample warden.conf are written from the option table: every option a user
// can set is in both, and the sample's commented defaults, uncommented, are the defaults.
#include "server/config/option_reference.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "server/config/config.h"
#include "server/config/config_options.h"

namespace warden::server {
namespace {

bool Listed(const ConfigOption& o) { return (o.flags & kConfigHidden) == 0; }

TEST(OptionReferenceTest, ManPageListsEveryOptionByGroup) {
  const std::string man = ManPage();
  EXPECT_EQ(man.rfind(".TH WARDEN 1 ", 0), 0u) << man.substr(0, 80);
  EXPECT_NE(man.find(".SS Network and clients\n"), std::string::npos);
  EXPECT_NE(man.find(".BI \\-\\-port \" N\"\nTCP port (0 picks a free one). Default: 6379.\n"),
            std::string::npos);
  for (const ConfigOption& o : ConfigOptions()) {
    std::string roff_name;
    for (char c : o.name) roff_name += c == '-' ? std::string("\\-") : std::string(1, c);
    const bool present = man.find(".BI \\-\\-" + roff_name + " ") != std::string::npos;
    EXPECT_EQ(present, Listed(o)) << o.name;
  }
  // Each group is one section.
  EXPECT_EQ(man.find(".SS Redis's, with no effect here"),
            man.rfind(".SS Redis's, with no effect here"));
}

TEST(OptionReferenceTest, SampleConfigShowsEveryDefaultAndSetsWhatItIsGiven) {
  const std::pair<std::string_view, std::string_view> active[] = {{"dir", "/var/lib/warden"}};
  const std::string sample = SampleConfig(active);
  EXPECT_NE(sample.find("\n# port 6379\n"), std::string::npos);
  EXPECT_NE(sample.find("\n# maxmemory-policy noeviction\n"), std::string::npos);
  EXPECT_NE(sample.find("\ndir /var/lib/warden\n"), std::string::npos);
  for (const ConfigOption& o : ConfigOptions()) {
    const bool present = sample.find("\n# " + std::string(o.name) + " ") != std::string::npos;
    EXPECT_EQ(present, Listed(o)) << o.name;
  }

  // Uncommented, every default line is accepted and gives Config's own defaults. The file-only
  // rows (user) show a placeholder, not a value, and dir is the one line set.
  // Each option is a block after a blank line: its help, then its default lines.
  std::string text;
  std::size_t at = 0;
  bool help_next = false;
  while (at < sample.size()) {
    const std::size_t end = sample.find('\n', at);
    const std::string line = sample.substr(at, end - at);
    at = end + 1;
    const bool help = help_next;
    help_next = line.empty();
    if (help || line.rfind("# ", 0) != 0 || line.find('<') != std::string::npos) continue;
    const std::string words = line.substr(2);
    if (FindOptionRow(words.substr(0, words.find(' '))) != nullptr) text += words + "\n";
  }
  std::vector<ConfigDirective> directives;
  ASSERT_FALSE(ParseConfigText(text, directives).has_value());
  ASSERT_GT(directives.size(), 150u);
  Config parsed;
  for (const ConfigDirective& d : directives) {
    const auto error = ApplyDirective(parsed, d);
    EXPECT_FALSE(error.has_value()) << d.name << ": " << (error ? error->message : "");
  }
  const Config defaults;
  const std::vector<ConfigValue> want = ConfigValues(defaults);
  const std::vector<ConfigValue> got = ConfigValues(parsed);
  ASSERT_EQ(want.size(), got.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].value, want[i].value) << want[i].name;
  }
}

}  // namespace
}  // namespace warden::server
