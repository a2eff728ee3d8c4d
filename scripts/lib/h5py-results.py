#!/usr/bin/env python3
"""Counts one run of h5py's test suite (scripts/h5py-suite.sh) from pytest's
JUnit files, one per rank, against the expected failures.

  h5py-results.py RUN EXPECTED JUNIT...

EXPECTED lines: "RUN-GLOB TEST-GLOB reason...", '#' starts a comment; a
test is named "module.Class.test" (or "module.test"), e.g.
test_dataset_swmr.TestDatasetSwmrRead.test_initial_read.  A test fails if
it failed or errored on any rank.  Prints one summary on stdout:
"PASSED/RUN" plus ", E expected" and ", S skipped" where not zero; each
unexpected failure, and each expected failure that passed, on stderr.
Exit status 1 if any test failed unexpectedly or no test ran.
"""
import fnmatch
import sys
import xml.etree.ElementTree as ET


def test_id(case):
    cls = case.get("classname", "")
    # "h5py._debian_h5py_mpi.tests.test_file.TestDrivers" or a path form
    cls = cls.split(".tests.", 1)[-1]
    return "%s.%s" % (cls, case.get("name")) if cls else case.get("name")


def main():
    run, expected_path, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    expected = []
    with open(expected_path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if len(line) >= 2 and fnmatch.fnmatch(run, line[0]):
                expected.append((line[1], " ".join(line[2:])))
    state = {}  # id -> "pass" | "skip" | "fail" (worst over ranks)
    rank = {"pass": 0, "skip": 1, "fail": 2}
    for path in files:
        for case in ET.parse(path).iter("testcase"):
            kids = {c.tag for c in case}
            s = "fail" if kids & {"failure", "error"} else "skip" if "skipped" in kids else "pass"
            t = test_id(case)
            if rank[s] >= rank[state.get(t, "pass")]:
                state[t] = s
    ran = [t for t, s in state.items() if s != "skip"]
    passed = [t for t in ran if state[t] == "pass"]
    failed = [t for t in ran if state[t] == "fail"]

    def why(t):
        return next((r for g, r in expected if fnmatch.fnmatch(t, g)), None)

    exp = [t for t in failed if why(t) is not None]
    unexp = [t for t in failed if why(t) is None]
    for t in sorted(unexp):
        print("    %s: UNEXPECTED failure: %s" % (run, t), file=sys.stderr)
    for t in sorted(passed):
        if why(t) is not None:
            print("    %s: expected to fail, passed: %s" % (run, t), file=sys.stderr)
    summary = "%d/%d" % (len(passed), len(ran))
    if exp:
        summary += ", %d expected" % len(exp)
    if unexp:
        summary += ", %d UNEXPECTED" % len(unexp)
    print(summary)
    return 1 if unexp or not ran else 0


if __name__ == "__main__":
    sys.exit(main())
