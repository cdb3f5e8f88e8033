// warden-reference man|conf [name=value ...]: writes warden(1) or the sample warden.conf to
// stdout, from the option table (option_reference.h). The build and the packages run it; the
// name=value pairs are conf's active lines (dir=/var/lib/warden).

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/config/config_options.h"
#include "server/config/option_reference.h"

int main(int argc, char** argv) {
  using namespace warden::server;
  if (argc >= 2 && std::strcmp(argv[1], "man") == 0 && argc == 2) {
    std::fputs(ManPage().c_str(), stdout);
    return 0;
  }
  if (argc >= 2 && std::strcmp(argv[1], "conf") == 0) {
    std::vector<std::pair<std::string_view, std::string_view>> active;
    for (int i = 2; i < argc; ++i) {
      const std::string_view pair = argv[i];
      const std::size_t eq = pair.find('=');
      if (eq == std::string_view::npos || FindOptionRow(pair.substr(0, eq)) == nullptr) {
        std::fprintf(stderr, "warden-reference: expected option=value, got '%s'\n", argv[i]);
        return 2;
      }
      active.emplace_back(pair.substr(0, eq), pair.substr(eq + 1));
    }
    std::fputs(SampleConfig(active).c_str(), stdout);
    return 0;
  }
  std::fputs("usage: warden-reference man | conf [option=value ...]\n", stderr);
  return 2;
}
