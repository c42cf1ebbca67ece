#!/usr/bin/env python3
"""tests/unit/ mirrors the source tree (issue #19): the unit test of `collector/parse/gid.cpp`
is `tests/unit/collector/parse/gid_test.cpp`, so a contributor finds a file's tests by its path.

Two rules, checked over the tracked files:
  1. every folder under tests/unit/ that holds a *_test.cpp is a folder of the source tree
     (tests/unit/collector/parse/ <-> collector/parse/);
  2. a test named after a source file (X_test.cpp where some first-party folder has X.cpp or
     X.h) sits in that file's mirror folder. Tests of behaviour across files (say
     absent_is_not_zero_test.cpp) are named after no file and only follow rule 1.

  tests/repo/unit_mirror.py [--root DIR]   check a tree (default: this repository)
  tests/repo/unit_mirror.py --self-test    show that the check fails when it must

Exit status: 0 clean, 1 a test out of place, 2 usage.
"""

import os
import subprocess
import sys
import tempfile

import repo_check

UNIT = "tests/unit/"
# Folders that are not product source: a test never mirrors them.
NOT_SOURCE = ("tests/", "bench/", "fuzz/", "docs/", "deploy/", "packaging/", "scripts/")


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others",
                              "--exclude-standard"], check=True, capture_output=True, text=True)
        return out.stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return tracked_files_walk(root)


def check(files):
    """The complaints about `files` (paths relative to the root), one string each."""
    source_dirs = set()
    homes = {}  # stem -> folders holding <stem>.cpp or <stem>.h
    for path in files:
        if path.startswith(NOT_SOURCE) or not path.endswith((".cpp", ".h")):
            continue
        folder, name = os.path.split(path)
        if not folder:
            continue
        parts = folder.split("/")
        for i in range(1, len(parts) + 1):
            source_dirs.add("/".join(parts[:i]))
        homes.setdefault(os.path.splitext(name)[0], set()).add(folder)
    problems = []
    for path in sorted(files):
        if not path.startswith(UNIT) or not path.endswith("_test.cpp"):
            continue
        folder, name = os.path.split(path[len(UNIT):])
        if folder not in source_dirs:
            problems.append(f"{path}: tests/unit/{folder}/ mirrors no source folder "
                            f"({folder or '(top level)'}/ does not exist)")
            continue
        stem = name[:-len("_test.cpp")]
        places = homes.get(stem)
        if places and folder not in places:
            wanted = " or ".join(f"tests/unit/{p}/" for p in sorted(places))
            problems.append(f"{path}: tests {stem} of {'/'.join(sorted(places))}/, "
                            f"so it belongs in {wanted}")
    return problems


def self_test():
    """A good tree passes; a test in a folder of no source and a test away from its file fail."""
    with tempfile.TemporaryDirectory() as root:
        def write(rel):
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n")
        for rel in ["collector/parse/gid.cpp", "rules/history.h",
                    "tests/unit/collector/parse/gid_test.cpp",
                    "tests/unit/rules/history_test.cpp",
                    "tests/unit/rules/behaviour_across_files_test.cpp"]:
            write(rel)
        ok = True
        if check(tracked_files_walk(root)):
            print("self-test: a mirrored tree was rejected", file=sys.stderr)
            ok = False
        cases = {
            "tests/unit/normalize/rates_test.cpp": "mirrors no source folder",
            "tests/unit/rules/gid_test.cpp": "belongs in tests/unit/collector/parse/",
        }
        for rel, expected in cases.items():
            write(rel)
            found = check(tracked_files_walk(root))
            os.remove(os.path.join(root, rel))
            if not any(rel in p and expected in p for p in found):
                print(f"self-test: {rel} was not reported ({expected})", file=sys.stderr)
                ok = False
            else:
                print(f"self-test: {rel} rejected as expected")
        return 0 if ok else 1


def tracked_files_walk(root):
    files = []
    for base, _, names in os.walk(root):
        for name in names:
            files.append(os.path.relpath(os.path.join(base, name), root))
    return files


def main():
    return repo_check.run(
        __doc__, lambda root: check(tracked_files(root)), self_test,
        "tests/unit/ mirrors the source tree",
        lambda n: f"{n} unit test(s) out of place: tests/unit/ mirrors the source tree "
                  "(tests/repo/unit_mirror.py)")


if __name__ == "__main__":
    sys.exit(main())
