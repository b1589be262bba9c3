#!/usr/bin/python3
"""What a ctest run skipped, and why: the lines scripts/test.sh prints after
ctest's summary, and the gate CI runs (--require-no-skips).

    skip_report.py JUNIT_XML [--allowed FILE] [--require-no-skips]

JUNIT_XML is ctest's --output-junit file (run with a large
--test-output-size-passed, so that the output of passing tests is whole).
Skips are read at two levels:
  - ctest tests that did not run because their output matched a
    SKIP_REGULAR_EXPRESSION (gtest_discover_tests sets one for GTEST_SKIP);
    the reason is the GTEST_SKIP message;
  - tests inside one ctest test: Python unittest run with -v ("test_x
    (mod.Class.test_x) ... skipped 'why'") and node:test's TAP ("ok 3 -
    name # SKIP why").
It prints how many ran and how many were skipped, then each reason with its
count and the tests it skipped. A skip is allowed on CI when a pattern of
FILE (one Python regular expression a line, searched in the reason; '#'
starts a comment) matches its reason. With --require-no-skips, a skip that
no pattern allows makes the exit status 1, with one line naming the tests
and reasons; otherwise the exit status is 0 (ctest's own status is the
caller's business). Exit 2: the JUnit file is missing or unreadable.
"""

import argparse
import collections
import re
import sys
import xml.etree.ElementTree as ET
from typing import Dict, List, NamedTuple, Optional, Tuple

GTEST_SKIP_AT = re.compile(r"^\S+:\d+: Skipped$")
GTEST_SKIPPED = re.compile(r"^\[  SKIPPED \] ")
# unittest -v: "test_b (test_x.A.test_b) ... skipped 'no numpy'", or for a
# class skipped in setUpClass "setUpClass (test_x.C) ... skipped 'why'".
PY_CASE = re.compile(r"^(\w+) \(([\w.]+)\) \.\.\. ")
PY_SKIPPED = re.compile(r"skipped (['\"])(.*)\1$")  # may follow the test's own output
PY_RAN = re.compile(r"^Ran (\d+) tests? in ")
PY_SKIP_COUNT = re.compile(r"^(?:OK|FAILED) \(.*\bskipped=(\d+)")
TAP_SKIP = re.compile(r"^\s*ok \d+ - (.*?) # SKIP\b ?(.*)$", re.IGNORECASE)
TAP_TESTS = re.compile(r"^# tests (\d+)$")
TAP_SKIP_COUNT = re.compile(r"^# (?:skip|skipped) (\d+)$")


class Skip(NamedTuple):
    test: str    # "Suite.Name", or "ctest-test: inner name"
    reason: str


class Inner(NamedTuple):
    """The tests one ctest test ran itself (Python's or node's)."""
    kind: str    # "Python" or "node"
    ran: int
    skipped: int


def gtest_reasons(output: str) -> List[str]:
    """The messages of GTEST_SKIP in one gtest binary's output."""
    reasons, lines, collecting = [], [], False
    for line in output.splitlines():
        if GTEST_SKIP_AT.match(line):
            collecting, lines = True, []
        elif collecting and GTEST_SKIPPED.match(line):
            reasons.append(" ".join(l.strip() for l in lines if l.strip()))
            collecting = False
        elif collecting:
            lines.append(line)
    return reasons


def python_skips(ctest_name: str, output: str) -> Tuple[List[Skip], Optional[Inner]]:
    skips: List[Skip] = []
    ran = counted = None
    pending = ""  # the test whose verdict has not come yet
    for line in output.splitlines():
        if case := PY_CASE.match(line):
            pending = case.group(2)  # "mod.Class.test_x", or "mod.Class" for setUpClass
            line = line[case.end():]
        skipped = PY_SKIPPED.search(line)
        if skipped and pending:
            skips.append(Skip(f"{ctest_name}: {pending}", skipped.group(2)))
            pending = ""
        elif re.search(r"(?:^|\s|\.\.\. )(?:ok|ERROR|FAIL|expected failure)$", line):
            pending = ""
        if m := PY_RAN.match(line):
            ran = int(m.group(1))
        if m := PY_SKIP_COUNT.match(line):
            counted = int(m.group(1))
    if ran is None:
        return [], None
    # A skip whose line did not read (output in between): counted, not lost.
    for _ in range((counted or 0) - len(skips)):
        skips.append(Skip(f"{ctest_name}: ?", "(a Python test skipped; its reason did not parse)"))
    return skips, Inner("Python", ran, len(skips))


def tap_skips(ctest_name: str, output: str) -> Tuple[List[Skip], Optional[Inner]]:
    skips: List[Skip] = []
    tests = counted = None
    for line in output.splitlines():
        if m := TAP_SKIP.match(line):
            skips.append(Skip(f"{ctest_name}: {m.group(1)}", m.group(2).strip() or "(no reason given)"))
        if m := TAP_TESTS.match(line):
            tests = int(m.group(1))  # the last one is the top level's
        if m := TAP_SKIP_COUNT.match(line):
            counted = int(m.group(1))
    if tests is None:
        return [], None
    for _ in range((counted or 0) - len(skips)):
        skips.append(Skip(f"{ctest_name}: ?", "(a node test skipped; its reason did not parse)"))
    return skips, Inner("node", tests, len(skips))


class Report:
    def __init__(self) -> None:
        self.total = self.passed = self.failed = self.skipped = 0
        self.skips: List[Skip] = []
        self.inner: Dict[str, Inner] = {}

    def add(self, case: ET.Element) -> None:
        name = case.get("name", "?")
        status = case.get("status", "")
        output = case.findtext("system-out") or ""
        skipped = case.find("skipped")
        self.total += 1
        if status == "disabled":
            self.skipped += 1
            self.skips.append(Skip(name, "disabled (DISABLED property or DISABLED_ prefix)"))
            return
        if status == "notrun" and skipped is not None and skipped.get("message", "").startswith("SKIP_"):
            reasons = gtest_reasons(output)
            if not reasons:  # a SKIP_RETURN_CODE test: its last line says why
                last = [l.strip() for l in output.splitlines() if l.strip()]
                reasons = [last[-1] if last else "(no reason given)"]
            self.skipped += 1
            self.skips.append(Skip(name, reasons[0] or "(no reason given)"))
            return
        if status == "run":
            self.passed += 1
        else:
            self.failed += 1
        for parse in (python_skips, tap_skips):
            inner_skips, inner = parse(name, output)
            if inner:
                self.inner[name] = inner
                self.skips.extend(inner_skips)
                break


def load_allowed(path: Optional[str]) -> List[re.Pattern]:
    if not path:
        return []
    patterns = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                patterns.append(re.compile(line))
    return patterns


def allowed_by(reason: str, patterns: List[re.Pattern]) -> Optional[str]:
    for p in patterns:
        if p.search(reason):
            return p.pattern
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("junit")
    parser.add_argument("--allowed", help="file of skip reasons allowed on CI (regexes)")
    parser.add_argument("--require-no-skips", action="store_true",
                        help="exit 1 when a skip is not allowed by --allowed")
    args = parser.parse_args()
    try:
        root = ET.parse(args.junit).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"skip report: cannot read ctest's JUnit file {args.junit}: {e}", file=sys.stderr)
        return 2
    patterns = load_allowed(args.allowed)
    report = Report()
    for case in root.iter("testcase"):
        report.add(case)

    print(f"skip report: {report.total} ctest tests: {report.passed} passed, "
          f"{report.failed} failed or not run, {report.skipped} skipped")
    if report.inner:
        parts = [f"{name} ran {i.ran} {i.kind} tests, {i.skipped} skipped"
                 for name, i in sorted(report.inner.items())]
        print("  inside ctest tests: " + "; ".join(parts))
    by_reason: Dict[str, List[str]] = collections.defaultdict(list)
    for s in report.skips:
        by_reason[s.reason].append(s.test)
    if by_reason:
        print(f"skipped, by reason ({len(report.skips)} in all):")
    for reason, tests in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        pattern = allowed_by(reason, patterns)
        verdict = f"allowed on CI by '{pattern}'" if pattern else "NOT allowed on CI"
        print(f"  {len(tests):4d}  {reason}  [{verdict}]")
        shown = ", ".join(sorted(tests)[:6])
        more = f" and {len(tests) - 6} more" if len(tests) > 6 else ""
        print(f"        {shown}{more}")

    refused = [s for s in report.skips if not allowed_by(s.reason, patterns)]
    if args.require_no_skips and refused:
        named = "; ".join(f"{s.test} ({s.reason})" for s in refused)
        where = args.allowed or "no allow-list"
        print(f"skip gate: FAILED: {len(refused)} tests skipped that CI's machine can run "
              f"(reasons not in {where}): {named}", file=sys.stderr)
        return 1
    if args.require_no_skips:
        print(f"skip gate: passed ({len(report.skips)} skips, all allowed on CI)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
