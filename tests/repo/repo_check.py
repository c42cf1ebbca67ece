"""The command line the repository checks share (cmake_sources.py, unit_mirror.py): `--root DIR`
checks a tree (default: this repository), `--self-test` shows that the check fails when it must.
"""

import argparse
import os
import sys


def run(doc, check, self_test, clean, summary):
    """Parses the arguments and runs `check(root)` (a list of complaints) or `self_test()`.
    Prints each complaint and `summary(n)` on stderr, or `clean`; returns the exit status."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(sys.argv[0]), "..", ".."))
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    problems = check(args.root)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(summary(len(problems)), file=sys.stderr)
        return 1
    print(clean)
    return 0
