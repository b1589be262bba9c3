#!/usr/bin/env bash
# Checks that the libraries' dependencies flow one way, as
# docs/architecture.md draws them, and prints the real graph between the
# top-level folders. Two sources are read, and both must agree with the
# table below:
#   - every `#include "<folder>/..."` in a library's .h and .cc files;
#   - every hpt::<folder> its CMakeLists.txt links (target_link_libraries
#     of any of its targets: cli/'s hpt-nas links nas/ where hpt_cli does not).
# It fails, naming file and line, on an include or a link the table does
# not allow (an upward arrow: storage/ including controller/, say), and on
# an include of a folder the library does not link directly (an arrow
# CMake does not show). tests/, bench/ and fuzz/ may use anything.
# Usage: bash scripts/check_layers.sh [--quiet]     (ctest runs it: `layers`)
set -euo pipefail
cd "$(dirname "$0")/.."

quiet=false
[ "${1:-}" = "--quiet" ] && quiet=true

# Each library and the folders it may depend on (bottom to top).
libraries=(api storage suggestion nas earlystop trial-runner analytics controller client server cli)
declare -A allowed=(
  [api]=""
  [storage]="api"
  [suggestion]="api"
  [nas]="api"
  [earlystop]="api"
  [trial-runner]="api"
  [analytics]="api suggestion"
  [controller]="api storage suggestion nas earlystop trial-runner"
  [client]="api"
  [server]="api storage suggestion trial-runner analytics controller"
  [cli]="api storage suggestion nas earlystop trial-runner analytics controller client server"
)

is_library() {
  local f
  for f in "${libraries[@]}"; do [ "$f" = "$1" ] && return 0; done
  return 1
}
allows() {  # allows FROM TO
  [ "$1" = "$2" ] && return 0
  case " ${allowed[$1]} " in *" $2 "*) return 0 ;; esac
  return 1
}

# The folders a library folder's CMakeLists.txt links as hpt::<name>
# (trial_runner is the folder trial-runner).
linked() {
  local folder=$1
  awk '
    $0 ~ "target_link_libraries\\(" { inside = 1 }
    inside {
      line = $0
      while (match(line, /hpt::[a-z_]+/)) {
        print substr(line, RSTART + 5, RLENGTH - 5)
        line = substr(line, RSTART + RLENGTH)
      }
      if ($0 ~ /\)/) inside = 0
    }' "$folder/CMakeLists.txt" | tr _ - | sort -u
}

failures=0
fail() {
  echo "check_layers: $*" >&2
  failures=$((failures + 1))
}

for folder in "${libraries[@]}"; do
  [ -d "$folder" ] || { fail "$folder/: no such folder (update scripts/check_layers.sh)"; continue; }
  links=$(linked "$folder")
  for to in $links; do
    is_library "$to" || continue
    allows "$folder" "$to" ||
      fail "$folder/CMakeLists.txt links hpt::${to//-/_}: $folder may not depend on $to"
  done
  declare -A count=()
  while IFS=: read -r file line to; do
    [ -d "$to" ] || continue  # a third-party header
    count[$to]=$(( ${count[$to]:-0} + 1 ))
    if ! is_library "$to"; then
      fail "$file:$line includes $to/: a library may include only libraries"
    elif ! allows "$folder" "$to"; then
      fail "$file:$line includes $to/: $folder may not depend on $to"
    elif [ "$to" != "$folder" ] && ! grep -qx -- "$to" <<<"$links"; then
      fail "$file:$line includes $to/, which $folder/CMakeLists.txt does not link (hpt::${to//-/_})"
    fi
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[^"/]+/' \
             --include='*.h' --include='*.cc' "$folder" |
           sed -E 's/^([^:]+):([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"/]+)\/.*/\1:\2:\3/')
  if ! $quiet; then
    arrows=""
    for to in "${libraries[@]}"; do
      [ "$to" != "$folder" ] && [ -n "${count[$to]:-}" ] && arrows+=" $to(${count[$to]})"
    done
    printf '%-13s ->%s\n' "$folder" "${arrows:- (nothing)}"
  fi
  unset count
done

if [ "$failures" -gt 0 ]; then
  echo "check_layers: $failures arrow(s) against docs/architecture.md" >&2
  exit 1
fi
$quiet || echo "check_layers: every arrow points down"
