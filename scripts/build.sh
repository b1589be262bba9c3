#!/usr/bin/env bash
# Installs what is missing, then builds hpt (Release) into ./build and the
# web dashboard into ./ui/dist (npm ci + ui/build.mjs). A failed dashboard
# build fails this script.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"

# The dashboard: dependencies pinned by ui/package-lock.json.
if ! command -v npm >/dev/null 2>&1; then
  echo "build: npm not found, so the dashboard cannot be built; run scripts/install-deps.sh as root" >&2
  exit 1
fi
if ! (cd ui && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build); then
  echo "build: the dashboard build (ui/) FAILED; see the errors above" >&2
  exit 1
fi

# The Python client's wheel (build/python/hpt-*.whl), offline from Debian's
# pip and setuptools (the interpreter the tests use). Optional: without them
# this prints a note and the build still succeeds. Built from a copy so that
# python/ stays clean.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if "$py" -c "import setuptools" >/dev/null 2>&1 && "$py" -m pip --version >/dev/null 2>&1; then
  wheel_src=$(mktemp -d)
  cp -r python "$wheel_src/src"
  rm -rf "$wheel_src/src/build" "$wheel_src"/src/*.egg-info
  find "$wheel_src/src" -name __pycache__ -prune -exec rm -rf {} +
  if "$py" -m pip --disable-pip-version-check wheel --no-deps --no-build-isolation \
      --no-index --no-cache-dir -q -w build/python "$wheel_src/src"; then
    echo "build: Python wheel in build/python/: $(cd build/python && ls -t hpt-*.whl | head -1)"
  else
    echo "build: note: the Python wheel did not build (see above; it needs setuptools >= 61" \
         "and python3-wheel); the rest of the build is fine" >&2
  fi
  rm -rf "$wheel_src"
else
  echo "build: note: no pip/setuptools for $py, so no Python wheel" \
       "(apt-get install python3-pip python3-setuptools python3-wheel); the rest of the build is fine" >&2
fi
