#!/usr/bin/env python3
"""The layering test (issue #19): reads every first-party `#include "..."` line and fails on a
forbidden arrow between layers, naming file:line and the arrow.

The layers and their allowed arrows are described in docs/architecture.md; FORBIDDEN below is
what this test enforces. An arrow that still exists but cannot be removed yet is listed, with its
reason, in the allow-list (tests/repo/layering_allow.txt). The list may only shrink: an entry
that no longer matches an include fails the test too, so the list always tells the truth.

  tests/repo/layering.py [--root DIR] [--allow FILE]   check a tree (default: this repository)
  tests/repo/layering.py --self-test                   show that the check fails when it must

Exit status: 0 clean, 1 a forbidden arrow or a stale allow-list entry, 2 usage.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

# A layer is a path prefix; a file belongs to the longest prefix that matches. collector/ is
# split because its folders have arrows of their own (sources move bytes, parsers are pure).
LAYERS = [
    "util",
    "collector/model",
    "collector/source",
    "collector/parse",
    "collector/normalize",
    "collector/capture",
    "collector/bundle",
    "collector",
    "rules",
    "probes",
    "present",
    "pipeline",
    "simulator",
    "recording",
    "exporters",
    "tui",
    "cli",
    "bench",
    "fuzz",
    "tests",
]

# Everything that sits above the collectors, and the surfaces above the pipeline.
_ABOVE_COLLECTOR = ["rules", "probes", "present", "pipeline", "simulator", "recording",
                    "exporters", "tui", "cli"]
_SURFACES = ["exporters", "tui", "cli"]

# (from layer, to layer, why). "collector" as a from-layer covers all of collector/**; as a
# to-layer likewise; "=collector" is that layer alone (the files directly in collector/). A rule matches an include when the including file is in (or under) `from`
# and the included path is in (or under) `to`.
FORBIDDEN = [
    ("util", t, "util/ holds small helpers every layer may use: it includes only the model")
    for t in ["collector/source", "collector/parse", "collector/normalize", "collector/capture",
              "collector/bundle", "=collector"] + _ABOVE_COLLECTOR
] + [
    ("collector/model", "util", "the data model is plain data, below every helper"),
] + [
    ("collector/bundle", t, "the bundle writer runs the tools and copies their output as they "
     "print it: it reads through no collector")
    for t in ["collector/source", "collector/parse", "collector/normalize", "collector/capture",
              "=collector"]
] + [
    ("collector", t, "the collectors are the bottom layer: they know nothing above them")
    for t in _ABOVE_COLLECTOR
] + [
    ("collector/model", "collector/source", "the data model is plain data, below the sources"),
    ("collector/model", "collector/parse", "the data model is plain data, below the parsers"),
    ("collector/model", "collector/normalize", "the data model is plain data"),
    ("collector/parse", "collector/source",
     "parsers are pure functions of bytes: they never reach for a file or a socket"),
    ("collector/parse", "collector/normalize", "parsers produce samples, not series"),
    ("rules", "collector/source", "rules evaluate series; they never read the host"),
] + [
    ("rules", t, "the rules engine sits below the loop and every surface")
    for t in ["probes", "present", "pipeline", "simulator", "recording"] + _SURFACES
] + [
    ("probes", t, "probes are an input: they feed snapshots, never the loop or a surface")
    for t in ["pipeline", "simulator", "recording"] + _SURFACES
] + [
    (src, t, "inputs provide snapshots (collector/snapshot_provider.h); they do not know the "
     "loop that consumes them or the surfaces")
    for src in ["simulator", "recording"]
    for t in ["pipeline", "probes"] + _SURFACES
] + [
    ("simulator", "recording", "two inputs side by side"),
    ("recording", "simulator", "two inputs side by side"),
    ("present", "exporters", "shared presentation helpers sit below every surface"),
    ("present", "tui", "shared presentation helpers sit below every surface"),
    ("present", "cli", "shared presentation helpers sit below every surface"),
    ("pipeline", "exporters", "the pipeline publishes ticks; surfaces read them, not the reverse"),
    ("pipeline", "tui", "the pipeline publishes ticks; surfaces read them, not the reverse"),
    ("pipeline", "cli", "the pipeline is wired by cli/, it does not call it"),
    ("pipeline", "simulator", "the loop takes any SnapshotProvider; it names no input"),
    ("pipeline", "recording", "the loop takes any SnapshotProvider; it names no input"),
    ("tui", "exporters", "the TUI and the exporters are side by side: neither includes the other"),
    ("exporters", "tui", "the TUI and the exporters are side by side: neither includes the other"),
    ("tui", "collector/source", "the TUI formats the published tick; it never reads the host"),
    ("exporters", "collector/source",
     "outputs format the published tick; reading the host is an input's job"),
    ("exporters", "cli", "outputs are wired by cli/, they do not call it"),
    ("tui", "cli", "the TUI is wired by cli/, it does not call it"),
]

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SOURCE_SUFFIXES = (".cpp", ".h", ".hpp", ".cc", ".in")
# Captured data is kept verbatim; it is not code of ours.
SKIP_PREFIXES = ("tests/fixtures/",)


def layer_of(path):
    for layer in LAYERS:
        if path == layer or path.startswith(layer + "/"):
            return layer
    return None


def under(layer, prefix):
    return layer == prefix or layer.startswith(prefix + "/")


def source_files(root):
    """Tracked and untracked-but-not-ignored files when root is a git work tree (so build
    directories are never read), else every file under root."""
    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"],
            check=True, capture_output=True, text=True).stdout
        files = out.splitlines()
    except (OSError, subprocess.CalledProcessError):
        files = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith(".") and not d.startswith("build")]
            for name in filenames:
                files.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(f for f in files
                  if f.endswith(SOURCE_SUFFIXES) and not f.startswith(SKIP_PREFIXES)
                  and os.path.isfile(os.path.join(root, f)))


def resolve(root, including, target):
    """The repository path an include names, or None when it is not first-party: project
    includes are rooted at the source directory (rdmatop_flags adds it to the include path);
    a bare name is looked up beside the including file."""
    if layer_of(target) is not None:
        return target
    beside = os.path.normpath(os.path.join(os.path.dirname(including), target))
    if os.path.isfile(os.path.join(root, beside)) and layer_of(beside) is not None:
        return beside
    return None


def arrows(root):
    """Every first-party include as (file, line, from layer, included path, to layer)."""
    for path in source_files(root):
        from_layer = layer_of(path)
        if from_layer is None:
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for number, text in enumerate(f, 1):
                m = INCLUDE.match(text)
                if not m:
                    continue
                target = resolve(root, path, m.group(1))
                if target is None:
                    continue
                to_layer = layer_of(target)
                if to_layer != from_layer:
                    yield path, number, from_layer, target, to_layer


def matches(layer, rule_layer):
    if rule_layer.startswith("="):
        return layer == rule_layer[1:]
    return under(layer, rule_layer)


def forbidden(from_layer, to_layer):
    for src, dst, why in FORBIDDEN:
        if matches(from_layer, src) and matches(to_layer, dst) and not matches(from_layer, dst):
            return src, dst, why
    return None


def read_allow_list(path):
    """Entries `FILE -> INCLUDED  # reason`; the reason is required."""
    entries = {}
    if not path or not os.path.exists(path):
        return entries, []
    errors = []
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            line = text.strip()
            if not line or line.startswith("#"):
                continue
            arrow, _, reason = line.partition("#")
            parts = [p.strip() for p in arrow.split("->")]
            if len(parts) != 2 or not all(parts) or not reason.strip():
                errors.append(f"{path}:{number}: expected 'FILE -> INCLUDED  # reason', got: {line}")
                continue
            entries[(parts[0], parts[1])] = (number, reason.strip())
    return entries, errors


def check(root, allow_path):
    allowed, problems = read_allow_list(allow_path)
    used = set()
    for path, number, from_layer, target, to_layer in arrows(root):
        rule = forbidden(from_layer, to_layer)
        if rule is None:
            continue
        if (path, target) in allowed:
            used.add((path, target))
            continue
        src, dst, why = rule
        problems.append(f"{path}:{number}: forbidden arrow {from_layer} -> {to_layer} "
                        f'(#include "{target}"; rule {src} -> {dst}: {why})')
    for key, (number, _) in sorted(allowed.items(), key=lambda kv: kv[1][0]):
        if key not in used:
            problems.append(f"{allow_path}:{number}: allow-listed arrow {key[0]} -> {key[1]} "
                            "no longer exists (or is no longer forbidden): remove the entry")
    return problems


def self_test(script):
    """Builds small trees, runs the checker on each as a separate process (as ctest does) and
    expects a failure naming file:line for every forbidden arrow the issue names, a pass for a
    clean tree and an allow-listed arrow, and a failure for a stale allow-list entry."""
    bad_arrows = [
        ("collector/collect.cpp", "rules/engine.h"),
        ("collector/collect.cpp", "pipeline/monitor.h"),
        ("collector/collect.cpp", "exporters/report/report_render.h"),
        ("collector/collect.cpp", "tui/tui.h"),
        ("collector/collect.cpp", "probes/runner.h"),
        ("collector/parse/gid.cpp", "collector/source/file_source.h"),
        ("rules/rule_set.cpp", "collector/source/file_source.h"),
        ("exporters/prometheus/metrics_collectable.h", "collector/source/file_source.h"),
        ("util/bounded_file.cpp", "collector/source/file_source.h"),
        ("util/bounded_file.cpp", "collector/collect.h"),
        ("collector/bundle/capture_plan.cpp", "collector/source/file_source.h"),
        ("collector/model/snapshot.h", "util/bounded_file.h"),
        ("tui/screens.cpp", "exporters/report/report_render.h"),
        ("exporters/report/report_text.cpp", "tui/canvas.h"),
        ("recording/recording_provider.h", "pipeline/monitor.h"),
        ("simulator/simulator.h", "pipeline/monitor.h"),
        ("probes/with_probes.h", "pipeline/monitor.h"),
    ]
    good_arrows = [
        ("collector/collect.cpp", "collector/source/file_source.h"),
        ("collector/normalize/normalizer.cpp", "collector/model/snapshot.h"),
        ("pipeline/monitor.h", "collector/snapshot_provider.h"),
        ("pipeline/tick.h", "rules/finding.h"),
        ("tui/view_model.h", "pipeline/tick.h"),
        ("tui/view_model.cpp", "present/units.h"),
        ("exporters/report/report_text.cpp", "present/text_table.h"),
        ("cli/tui_command.cpp", "exporters/prometheus/metrics_page.h"),
        ("tests/unit/tui/screens_test.cpp", "collector/source/file_source.h"),
        ("rules/rule_set.cpp", "util/bounded_file.h"),
        ("util/bounded_file.h", "collector/model/result.h"),
        ("collector/bundle/capture_plan.cpp", "util/bounded_file.h"),
    ]
    failures = []

    def tree(includes, allow_text=None):
        root = tempfile.mkdtemp(prefix="layering-")
        for path, target in includes:
            for p in (path, target):
                os.makedirs(os.path.join(root, os.path.dirname(p)), exist_ok=True)
            with open(os.path.join(root, target), "a", encoding="utf-8"):
                pass
            with open(os.path.join(root, path), "a", encoding="utf-8") as f:
                f.write(f'// filler\n#include <vector>\n#include "{target}"\n')
        allow = os.path.join(root, "allow.txt")
        with open(allow, "w", encoding="utf-8") as f:
            f.write(allow_text or "")
        return root, allow

    def run(root, allow):
        proc = subprocess.run([sys.executable, script, "--root", root, "--allow", allow],
                              capture_output=True, text=True)
        return proc.returncode, proc.stdout + proc.stderr

    root, allow = tree(good_arrows)
    code, out = run(root, allow)
    if code != 0:
        failures.append(f"a tree of allowed arrows failed:\n{out}")
    for path, target in bad_arrows:
        root, allow = tree(good_arrows + [(path, target)])
        code, out = run(root, allow)
        # The include is line 3 of the file tree() writes (or later, when a file has several).
        if code != 1 or f"{path}:" not in out or "forbidden arrow" not in out:
            failures.append(f"{path} -> {target} was not reported (exit {code}):\n{out}")
        allowed = f"{path} -> {target}  # a reason\n"
        root, allow = tree(good_arrows + [(path, target)], allowed)
        code, out = run(root, allow)
        if code != 0:
            failures.append(f"allow-listed {path} -> {target} still failed:\n{out}")
    root, allow = tree(good_arrows, "tui/screens.cpp -> exporters/report/report_render.h  # gone\n")
    code, out = run(root, allow)
    if code != 1 or "no longer exists" not in out:
        failures.append(f"a stale allow-list entry was not reported (exit {code}):\n{out}")
    root, allow = tree(good_arrows, "tui/screens.cpp -> exporters/x.h\n")
    code, out = run(root, allow)
    if code != 1 or "reason" not in out:
        failures.append(f"an allow-list entry without a reason was accepted (exit {code}):\n{out}")
    for f in failures:
        print("SELF-TEST FAILED:", f)
    if not failures:
        print(f"layering self-test: {len(bad_arrows)} forbidden arrows reported, allowed arrows "
              "and allow-listed ones pass, stale and reasonless entries fail")
    return 1 if failures else 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.normpath(os.path.join(here, "..", "..")))
    parser.add_argument("--allow", default=None,
                        help="allow-list file (default: layering_allow.txt beside this script "
                        "when checking this repository)")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test(os.path.abspath(__file__))
    allow = args.allow if args.allow is not None else os.path.join(here, "layering_allow.txt")
    problems = check(args.root, allow)
    for p in problems:
        print(p)
    if problems:
        print(f"layering: {len(problems)} problem(s); the layers and their arrows are in "
              "docs/architecture.md")
        return 1
    print("layering: no forbidden include arrow")
    return 0


if __name__ == "__main__":
    sys.exit(main())
