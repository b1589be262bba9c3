#!/usr/bin/env python3
"""Fails when two test sources of one folder define the same file-scope name.

The test binaries are unity builds (tests/CMakeLists.txt): CMake compiles
each folder's sources eight to a translation unit, so the helpers each file
keeps in its anonymous namespace (Spec(), kToken, struct Case) share one
scope with its neighbours'. The same name twice is then a redefinition, or
worse, an overload that quietly answers a neighbour's call. Which files
share a unit changes as files come and go, so the rule is folder-wide: a
file-scope name is defined once per tests/<folder>/.

Reads the declarations that start in column 0 (the house style indents
everything else): functions, classes, structs, enums, constants and type
aliases. An alias declared the same way twice (`using Clock =
std::chrono::steady_clock;`) is allowed: C++ takes it as one.

A binary may also take sources from another folder (postgres_test runs
the store suites of tests/storage/): given the build folder, the sources
of each test binary's unity build are checked together too, whichever
units CMake put them in.

Usage: check_test_names.py [TESTS_DIR [BUILD_DIR]]   (ctest runs it: `test_names`)
"""

import collections
import glob
import os
import re
import sys

PATTERNS = [
    re.compile(r"^(?:struct|class|enum class|enum|union)\s+(\w+)\s*[:{;]?"),
    re.compile(r"^using\s+(\w+)\s*="),
    # constants: constexpr char kToken[] = ..., const char* kSpec = ...
    re.compile(r"^(?:(?:static|inline|constexpr|const)\s+)+"
               r"[\w:<>,\s\*&]*?\b(\w+)\s*(?:\[\w*\])?\s*[={]"),
    re.compile(r"^[\w:<>,]+\*?\s+(k[A-Z]\w*)\s*(?:\[\w*\])?\s*[={;]"),
    # functions: a return type, then the name and its parameter list
    re.compile(r"^(?:template\s*<[^>]*>\s*)?(?:(?:static|inline|constexpr)\s+)*"
               r"[\w:<>,\s\*&]*?[\w>\*&]\s+\**&?(\w+)\s*\("),
]
NOT_NAMES = {"TEST", "TEST_F", "TEST_P", "TYPED_TEST", "INSTANTIATE_TEST_SUITE_P", "main",
             "namespace", "operator", "return", "if", "for", "while", "switch"}


def declared_names(path):
    """Yields (name, line number, line) for each file-scope declaration."""
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line[0] in " \t#/{}*" or line.startswith("namespace"):
                continue
            for pattern in PATTERNS:
                m = pattern.match(line)
                if m and m.group(1) not in NOT_NAMES:
                    yield m.group(1), number, line.strip()
                    break


def clashes(group, sources):
    """Problems: names that two of `sources` (paths) both define."""
    seen = collections.defaultdict(list)  # name -> [(file, line, text)]
    for source in sources:
        for declared, number, text in declared_names(source):
            seen[declared].append((os.path.basename(source), number, text))
    problems = []
    for declared, places in sorted(seen.items()):
        files = {p[0] for p in places}
        if len(files) < 2:
            continue
        if all(p[2].startswith("using ") for p in places) and len({p[2] for p in places}) == 1:
            continue  # the same alias, declared alike: one declaration to C++
        where = ", ".join("%s:%d" % (p[0], p[1]) for p in places)
        problems.append("%s: %s is defined at file scope in %d files (%s); "
                        "give each its own name or share one in a header" %
                        (group, declared, len(files), where))
    return problems


def unity_sources(build):
    """{test binary: [its sources]}, from the unity files CMake wrote."""
    targets = collections.defaultdict(list)
    pattern = os.path.join(build, "tests", "**", "*.dir", "Unity", "unity_*.cxx")
    for unit in glob.glob(pattern, recursive=True):
        target = os.path.basename(os.path.dirname(os.path.dirname(unit)))[:-len(".dir")]
        with open(unit, encoding="utf-8") as f:
            for line in f:
                m = re.match(r'#include "(.+\.cc)"', line)
                if m:
                    targets[target].append(m.group(1))
    return targets


def main():
    tests = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests")
    problems = []
    folders = 0
    for folder in sorted(os.listdir(tests)):
        path = os.path.join(tests, folder)
        if not os.path.isdir(path):
            continue
        folders += 1
        sources = [os.path.join(path, n) for n in sorted(os.listdir(path)) if n.endswith(".cc")]
        problems += clashes("tests/" + folder, sources)
    targets = unity_sources(sys.argv[2]) if len(sys.argv) > 2 else {}
    for target, sources in sorted(targets.items()):
        for p in clashes(target, sorted(set(sources))):
            if p not in problems:
                problems.append(p)
    for p in problems:
        print(p)
    if problems:
        print("test-names: %d names defined twice in one test folder or binary; their "
              "sources are built as unity builds" % len(problems), file=sys.stderr)
        return 1
    print("test-names: no file-scope name is defined twice in any of %d test folders "
          "or %d unity-built test binaries" % (folders, len(targets)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
