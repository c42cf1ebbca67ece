#!/usr/bin/env python3
"""Every layer's CMake target lists its sources (issue #19): no file(GLOB) of sources, every
.cpp of a layer folder named in that folder's CMakeLists.txt, and every .cpp named there present.
A glob builds whatever lies in the folder, so a file the layer should not hold joins it
silently; a listed source is a decision someone made and a reviewer saw.

  tests/repo/cmake_sources.py [--root DIR]   check a tree (default: this repository)
  tests/repo/cmake_sources.py --self-test    show that the check fails when it must

Exit status: 0 clean, 1 a source unlisted, globbed or missing, 2 usage.
"""

import os
import re
import sys
import tempfile

import repo_check

# The product's layers, each one folder with one CMakeLists.txt (docs/architecture.md). cli's
# main.cpp is listed by its add_executable like any other source.
LAYERS = ("util", "collector", "rules", "probes", "present", "pipeline", "simulator",
          "recording", "exporters", "tui", "cli")
GLOB = re.compile(r"file\s*\(\s*GLOB(_RECURSE)?\b[^)]*\.cpp", re.S)
CPP = re.compile(r"[A-Za-z0-9_./-]+\.cpp(?![A-Za-z0-9_.])")
# Generated sources (${CMAKE_CURRENT_BINARY_DIR}/builtin_pack_data.cpp) are not in the tree.
GENERATED = re.compile(r"\$\{[^}]*\}[A-Za-z0-9_./-]*")


def strip_comments(text):
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def check(root):
    """The complaints about the tree at `root`, one string each."""
    problems = []
    for layer in LAYERS:
        folder = os.path.join(root, layer)
        cmake = os.path.join(folder, "CMakeLists.txt")
        if not os.path.isfile(cmake):
            continue
        with open(cmake, encoding="utf-8") as f:
            text = strip_comments(f.read())
        if GLOB.search(text):
            problems.append(f"{layer}/CMakeLists.txt: globs its sources; list them")
        listed = {m.group(0) for m in CPP.finditer(GENERATED.sub("", text))}
        present = set()
        for base, _, names in os.walk(folder):
            for name in names:
                if name.endswith(".cpp"):
                    present.add(os.path.relpath(os.path.join(base, name), folder))
        for rel in sorted(present - listed):
            problems.append(f"{layer}/{rel}: not listed in {layer}/CMakeLists.txt")
        for rel in sorted(listed - present):
            problems.append(f"{layer}/CMakeLists.txt: lists {rel}, which does not exist")
    return problems


def self_test():
    """A listed tree passes; an unlisted file, a glob and a stale entry each fail."""
    ok = True
    cases = [
        ("add_library(x STATIC a.cpp sub/b.cpp)\n", ["a.cpp", "sub/b.cpp"], None),
        ("add_library(x STATIC a.cpp)\n", ["a.cpp", "sub/b.cpp"], "sub/b.cpp: not listed"),
        ("file(GLOB_RECURSE S CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)\n"
         "add_library(x STATIC ${S} a.cpp sub/b.cpp)\n", ["a.cpp", "sub/b.cpp"], "globs"),
        ("add_library(x STATIC a.cpp gone.cpp)\n", ["a.cpp"], "lists gone.cpp"),
    ]
    for cmake, files, expected in cases:
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "rules", "sub"))
            with open(os.path.join(root, "rules", "CMakeLists.txt"), "w", encoding="utf-8") as f:
                f.write("# a comment naming c.cpp is not a listing\n" + cmake)
            for rel in files:
                with open(os.path.join(root, "rules", rel), "w", encoding="utf-8") as f:
                    f.write("\n")
            found = check(root)
            if expected is None and found:
                print(f"self-test: a listed tree was rejected: {found}", file=sys.stderr)
                ok = False
            elif expected is not None and not any(expected in p for p in found):
                print(f"self-test: '{expected}' was not reported (got {found})", file=sys.stderr)
                ok = False
            elif expected is not None:
                print(f"self-test: rejected as expected: {expected}")
    return 0 if ok else 1


def main():
    return repo_check.run(
        __doc__, check, self_test, "every layer lists its sources",
        lambda n: f"{n} source listing problem(s) (tests/repo/cmake_sources.py)")


if __name__ == "__main__":
    sys.exit(main())
