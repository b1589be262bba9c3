#!/usr/bin/env bash
# Checks the lock annotations (api/mutex.h: GUARDED_BY, REQUIRES, ...) of
# the threaded folders with clang's -Wthread-safety, as errors. Syntax only:
# nothing is built, the flags come from the build's compile_commands.json.
# The test command runs it as the ctest test ThreadSafetyAnnotations.
# Usage: bash scripts/thread_safety.sh [BUILD_DIR]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
folders='controller|trial-runner'
db=$build/compile_commands.json
if [[ ! -f $db ]]; then
  echo "thread-safety: $db not found (configure the build first)" >&2
  exit 1
fi
cxx=$(command -v clang++-14 || command -v clang++ || true)
if [[ -z $cxx ]]; then
  echo "thread-safety: clang++ not found (Debian: clang)" >&2
  exit 1
fi
# One line per file: the compile command, rewritten for clang -fsyntax-only.
# A file whose dependencies in the build (its .o.d file) do not include
# api/mutex.h, where the annotations and the annotated Mutex live, has
# nothing for the analysis to check and is left out (about half of them).
commands=$(/usr/bin/python3 - "$db" "$PWD" "$folders" "$cxx" <<'PY'
import json, os, re, shlex, sys
db, root, folders, cxx = sys.argv[1:]
keep = re.compile(r"^%s/(%s)/[^/]+\.cc$" % (re.escape(root), folders))

def sees_annotations(entry, args):
    if "-o" not in args:
        return True
    depfile = os.path.join(entry["directory"], args[args.index("-o") + 1] + ".d")
    try:
        return "api/mutex.h" in open(depfile).read()
    except OSError:
        return True  # not built yet: check it

for entry in json.load(open(db)):
    path = entry["file"]
    if not keep.match(path):
        continue
    args = shlex.split(entry["command"])[1:]
    if not sees_annotations(entry, args):
        continue
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-c"):
            skip = a == "-o"
            continue
        if a == path or a.startswith("-f") and a not in ("-fPIC",):
            continue  # GCC-only -f options; the source is added below
        out.append(a)
    flags = " ".join(shlex.quote(a) for a in out)
    print("cd %s && %s -fsyntax-only -Wno-unknown-warning-option -Wthread-safety -Werror=thread-safety %s %s" %
          (shlex.quote(entry["directory"]), cxx, flags, shlex.quote(path)))
PY
)
count=$(grep -c . <<<"$commands" || true)
if [[ $count -eq 0 ]]; then
  echo "thread-safety: no sources of $folders in $db" >&2
  exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! xargs -P "${HPT_JOBS:-2}" -I{} bash -c '{}' <<<"$commands" >"$log" 2>&1; then
  grep -E "error|warning|note" "$log" | head -100
  echo "thread-safety: clang -Wthread-safety found problems (above) in $folders" >&2
  exit 1
fi
echo "thread-safety: $count files of $folders that include api/mutex.h:" \
     "clean under clang -Wthread-safety"
