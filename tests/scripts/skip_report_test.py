"""scripts/skip_report.py reads what a real ctest run skipped and why.

A scratch ctest project (configured and run in a temporary folder, as
scripts/test.sh runs ours: --output-junit, whole output of passing tests)
holds a test that passes, a real gtest binary that skips (slurm_test with
no cluster, HPT_SKIPPING_GTEST), a Python unittest suite and a node:test
file that each skip some of their tests, and a disabled test.
"""

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

SOURCE = pathlib.Path(os.environ.get("HPT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
REPORT = SOURCE / "scripts" / "skip_report.py"
GTEST_TEST = "SlurmExecutorTest.KillsFromAnotherThreadWhileTheJobEnds"

PY_SUITE = '''
import sys
import unittest
class Plain(unittest.TestCase):
    def test_passes(self):
        print("x" * 4000)  # past ctest's default 1 KiB of a passing test's output
    def test_skips(self):
        self.skipTest("no numpy here")
    def test_skips_after_output(self):
        sys.stderr.write("some output, no newline ")  # the verdict follows on its line
        self.skipTest("no GPU here")
@unittest.skip("whole class: no pandas")
class Skipped(unittest.TestCase):
    def test_one(self):
        pass
'''

NODE_SUITE = '''
import { test } from 'node:test';
test('renders', () => {});
test('drives chromium', (t) => { t.skip('no chromium here'); });
'''

CMAKE = '''
cmake_minimum_required(VERSION 3.20)
project(scratch NONE)
enable_testing()
add_test(NAME passes COMMAND sh -c "echo fine")
add_test(NAME gtest.skips COMMAND {gtest} --gtest_filter={gtest_test})
set_tests_properties(gtest.skips PROPERTIES SKIP_REGULAR_EXPRESSION "\\\\[  SKIPPED \\\\]"
  ENVIRONMENT "SLURM_CONF={dir}/cluster/slurm.conf")
add_test(NAME python.suite COMMAND {python} -m unittest discover -s {dir}/py -v)
add_test(NAME node.suite COMMAND {node} {dir}/skips.test.mjs)
add_test(NAME off COMMAND sh -c "exit 1")
set_tests_properties(off PROPERTIES DISABLED TRUE)
'''


class SkipReportTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls) -> None:
        gtest = os.environ.get("HPT_SKIPPING_GTEST")
        node = shutil.which("node")
        if not gtest or not os.access(gtest, os.X_OK):
            raise RuntimeError(f"HPT_SKIPPING_GTEST={gtest!r} is not the built slurm_test")
        if not node:
            raise RuntimeError("node is not on PATH (scripts/install-deps.sh installs it)")
        cls.tmp = tempfile.TemporaryDirectory()
        d = pathlib.Path(cls.tmp.name)
        (d / "py").mkdir()
        (d / "py" / "test_suite.py").write_text(PY_SUITE)
        (d / "skips.test.mjs").write_text(NODE_SUITE)
        (d / "cluster.why").write_text("needs root\n")  # as slurm-local.sh writes it
        (d / "src").mkdir()
        (d / "src" / "CMakeLists.txt").write_text(CMAKE.format(
            gtest=gtest, gtest_test=GTEST_TEST, dir=d, python=sys.executable, node=node))
        subprocess.run(["cmake", "-S", d / "src", "-B", d / "build"], check=True,
                       capture_output=True)
        cls.junit = d / "junit.xml"
        ctest = subprocess.run(["ctest", "--test-dir", d / "build", "--output-junit", cls.junit,
                                "--test-output-size-passed", "8000000",
                                "--test-output-truncation", "middle"],  # as scripts/test.sh
                               capture_output=True, text=True)
        if ctest.returncode != 0:
            raise RuntimeError(f"the scratch ctest run failed:\n{ctest.stdout}{ctest.stderr}")

    @classmethod
    def tearDownClass(cls) -> None:
        cls.tmp.cleanup()

    def report(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, REPORT, self.junit, *args],
                              capture_output=True, text=True)

    def allowed(self, *patterns: str) -> str:
        path = pathlib.Path(self.tmp.name, f"allowed-{len(patterns)}.txt")
        path.write_text("# reasons CI may skip for\n" + "".join(p + "  # why\n" for p in patterns))
        return str(path)

    def test_counts_what_ran_and_what_skipped(self) -> None:
        r = self.report()
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], "skip report: 5 ctest tests: 3 passed, 0 failed or not run, "
                                   "2 skipped")
        self.assertEqual(lines[1], "  inside ctest tests: node.suite ran 2 node tests, 1 skipped; "
                                   "python.suite ran 4 Python tests, 3 skipped")
        self.assertEqual(lines[2], "skipped, by reason (6 in all):")

    def test_each_reason_with_its_count_and_tests(self) -> None:
        out = self.report().stdout
        expected = [
            ("no local Slurm cluster: needs root", "gtest.skips"),
            ("no numpy here", "python.suite: test_suite.Plain.test_skips"),
            ("no GPU here", "python.suite: test_suite.Plain.test_skips_after_output"),
            ("whole class: no pandas", "python.suite: test_suite.Skipped.test_one"),
            ("no chromium here", "node.suite: drives chromium"),
            ("disabled (DISABLED property or DISABLED_ prefix)", "off"),
        ]
        lines = out.splitlines()
        for reason, test in expected:
            at = [i for i, l in enumerate(lines) if l.strip() == f"1  {reason}  [NOT allowed on CI]"]
            self.assertEqual(len(at), 1, f"{reason!r} in:\n{out}")
            self.assertEqual(lines[at[0] + 1].strip(), test)

    def test_gate_fails_on_a_skip_not_allowed_naming_it(self) -> None:
        r = self.report("--require-no-skips", "--allowed",
                        self.allowed("^no local Slurm cluster", "^no chromium", "^disabled"))
        self.assertEqual(r.returncode, 1)
        gate = r.stderr.strip().splitlines()
        self.assertEqual(len(gate), 1, r.stderr)
        self.assertTrue(gate[0].startswith("skip gate: FAILED: 3 tests skipped that CI's machine "
                                           "can run"), gate[0])
        self.assertIn("python.suite: test_suite.Plain.test_skips (no numpy here)", gate[0])
        self.assertIn("python.suite: test_suite.Skipped.test_one (whole class: no pandas)", gate[0])
        self.assertNotIn("gtest.skips", gate[0])
        self.assertIn("[allowed on CI by '^no chromium']", r.stdout)

    def test_gate_passes_when_every_skip_is_allowed(self) -> None:
        r = self.report("--require-no-skips", "--allowed",
                        self.allowed("Slurm", "numpy", "pandas", "GPU", "chromium", "^disabled"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[-1], "skip gate: passed (6 skips, all allowed on CI)")

    def test_without_the_gate_skips_are_reported_not_fatal(self) -> None:
        self.assertEqual(self.report("--allowed", self.allowed()).returncode, 0)

    def test_a_missing_junit_file_is_an_error(self) -> None:
        r = subprocess.run([sys.executable, REPORT, pathlib.Path(self.tmp.name, "none.xml")],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot read ctest's JUnit file", r.stderr)


if __name__ == "__main__":
    unittest.main()
