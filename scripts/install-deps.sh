#!/usr/bin/env bash
# Installs the Debian 12 packages hpt needs to build, test and run its
# examples; only the missing ones, and no apt at all when none is missing.
# Run as root (or through sudo when it is available).
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libcpprest-dev libyaml-cpp-dev libeigen3-dev nlohmann-json3-dev
  libsqlite3-dev libcli11-dev libboost-dev libssl-dev libnlopt-cxx-dev
  libgtest-dev libgmock-dev libbenchmark-dev libre2-dev libspdlog-dev
  clang libclang-rt-14-dev
  python3 python3-requests python3-optuna python3-matplotlib sqlite3
  python3-sklearn python3-pandas jupyter-nbconvert python3-ipykernel
  ca-certificates procps util-linux
  slurm-wlm munge
  # DARTS (nas/): libtorch (CPU), its default data set, zlib for .gz IDX
  # files, and PyTorch for the Python side of bench/run_darts.sh.
  libtorch-dev dataset-fashion-mnist zlib1g-dev python3-torch
  # The Python client's wheel (scripts/build.sh), built offline, and the
  # virtual environment its test installs it into (tests/python/test_wheel.py).
  python3-pip python3-setuptools python3-wheel python3-venv
  # Trials in containers (hpt serve --containers podman; trial-runner/
  # container_command.h): podman with runc (crun fails on hybrid cgroups),
  # and busybox-static, which the tests and bench/ build images FROM
  # scratch with (nothing is pulled).
  podman runc conmon containernetworking-plugins busybox-static
  # The PostgreSQL store (storage/postgres_*): libpq to build against, and a
  # server that the tests start privately (initdb in a temporary folder);
  # psycopg2 and SQLAlchemy let bench/ run Optuna's RDB storage beside it;
  # pgbouncer, which the tests put in front of it (session pooling).
  libpq-dev postgresql python3-psycopg2 python3-sqlalchemy pgbouncer
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed'; then
    missing+=("$p")
  fi
done

# The dashboard (ui/) is built with node and npm, and its browser tests
# drive Chromium. A node already on the PATH is kept (NodeSource's bundles
# npm, and Debian's npm package would conflict with it).
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
[ -x /usr/bin/chromium ] || missing+=(chromium)

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages, node, npm and chromium are installed"
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "install-deps: missing ${missing[*]}; run as root to install them" >&2
    exit 1
  fi
fi

echo "install-deps: installing ${missing[*]}"
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${missing[@]}"
