#!/usr/bin/env bash
# Source checks that need no build: formatting, and the module boundaries (protocol/ and
# storage/ depend on nothing of ours, nor on libuv or Lua; server/debug/ is reached only from
# DEBUG's side).
set -euo pipefail
cd "$(dirname "$0")/.."

files=$(git ls-files '*.cc' '*.h')
if ! clang-format --dry-run --Werror $files; then
  echo "check-source: clang-format would change the files above (run clang-format -i)" >&2
  exit 1
fi

if grep -nE '#include (<uv\.h>|<lua|"lua|"server/)' -r protocol storage; then
  echo "check-source: protocol/ and storage/ must not include server/, libuv or Lua" >&2
  exit 1
fi
if grep -nE '#include "storage/' -r protocol; then
  echo "check-source: protocol/ must not include storage/" >&2
  exit 1
fi
if grep -nE '#include "protocol/' -r storage; then
  echo "check-source: storage/ must not include protocol/" >&2
  exit 1
fi
# server/debug/ is what only a test double uses: the DEBUG commands, the admission and
# dispatcher, the state and the loop that drives the controls (server.cc, server_cron.cc) reach
# it, and nothing else.
allowed='^server/(debug/|commands/debug_|admission\.|dispatcher\.|server_state\.|server\.cc|server_cron\.cc|embedded_server\.|main\.cc)'
if git grep -lE '#include "server/debug/' -- server | grep -vE "$allowed"; then
  echo "check-source: only DEBUG's files, the dispatcher and the state may include server/debug/" >&2
  exit 1
fi
echo "check-source: ok"
