#!/usr/bin/env bash
# Installs warden-testing as a user would, offline, into a fresh virtual environment that sees
# Debian's redis-py and pytest, and runs its tests there: no conftest.py anywhere, so the
# fixtures come from the plugin's pytest11 entry point. Then again with two pytest-xdist workers,
# when Debian's python3-pytest-xdist is installed.
#
#   clients/python/test-package.sh build/warden
set -euo pipefail
binary=$(realpath "${1:?usage: $0 path/to/warden}")
cd "$(dirname "$0")"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$scratch/venv"
python=$scratch/venv/bin/python
# From a copy: a build in the tree leaves build/ and src/warden_testing.egg-info behind.
mkdir "$scratch/source"
cp -r pyproject.toml README.md src "$scratch/source"
"$python" -m pip install --quiet --no-index --no-build-isolation --no-deps "$scratch/source"

# From outside the tree, so that only the installed package can be imported.
cd "$scratch"
export WARDEN_BINARY=$binary
"$python" -m pytest -q -p no:cacheprovider "$OLDPWD/tests"
if "$python" -c 'import xdist' 2>/dev/null; then
  "$python" -m pytest -q -p no:cacheprovider -n 2 "$OLDPWD/tests"
else
  echo "test-package: pytest-xdist is not installed; the -n 2 run is skipped"
fi
