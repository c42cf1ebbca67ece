#!/usr/bin/env python3
"""Converts Prometheus's PromQL test data (promql/testdata/*.test, the format of
prometheus/promql/test.go) into `promtool test rules` files.

Usage: convert.py --commit SHA --source-dir DIR --out DIR FILE.test...

Each `eval instant at T EXPR` case becomes one test group of promtool's format
(https://prometheus.io/docs/prometheus/latest/configuration/unit_testing_rules/): the series
loaded since the last `clear` become `input_series`, the case a `promql_expr_test`. Cases that
promtool's format cannot express are written to unconvertible.txt with the reason.

What the conversion has to bridge (prometheus/cmd/promtool/unittest.go and promql/test.go of
the same release):
  * test.go may load blocks with different steps; promtool has one `interval` per test group.
    Several steps are joined on their greatest common divisor, every series re-expanded with
    `_` gaps (expanding notation `a+bxn` is expanded by repeated addition, as
    promql/parser/generated_parser.y does).
  * promtool loads samples lazily, only up to the last evaluation loop timestamp at or before
    the largest eval_time of the group (LazyLoader.WithSamplesTill), whereas test.go loads
    everything. When samples lie beyond the last loop timestamp, a second expression test,
    `vector(1)` at a later eval_time, makes promtool load them all.
  * a scalar result is compared as a sample without labels (promtool's query()).
"""

import argparse
import math
import os
import re
import sys

PAT_LOAD = re.compile(r"^load\s+(.+?)$")
PAT_EVAL = re.compile(r"^eval(?:_(fail|ordered))?\s+instant\s+(?:at\s+(.+?))?\s+(.+)$")
DUR = re.compile(r"^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$")
UNITS = [365 * 86400000, 7 * 86400000, 86400000, 3600000, 60000, 1000, 1]
LOAD_STEP_MS = 60000  # promtool's default evaluation_interval: its evaluation loop step


def parse_duration(text):
    m = DUR.match(text)
    if not m or text == "":
        raise ValueError("bad duration %r" % text)
    return sum(int(g) * u for g, u in zip(m.groups(), UNITS) if g)


def format_duration(ms):
    """model.Duration.String()."""
    if ms == 0:
        return "0s"
    out = ""
    for unit, name in zip(UNITS, ["y", "w", "d", "h", "m", "s", "ms"]):
        if name in ("y", "w") and ms % unit != 0:
            continue
        if ms >= unit:
            out += "%d%s" % (ms // unit, name)
            ms %= unit
    return out


def split_series_desc(line):
    """'name{a="b"} 1 2 3' -> ('name{a="b"}', '1 2 3'); quotes may hold braces and spaces."""
    i = 0
    n = len(line)
    while i < n and (line[i].isalnum() or line[i] in "_:"):
        i += 1
    if i < n and line[i] == "{":
        quote = None
        while i < n:
            c = line[i]
            if quote:
                if c == "\\":
                    i += 1
                elif c == quote:
                    quote = None
            elif c in "\"'`":
                quote = c
            elif c == "}":
                i += 1
                break
            i += 1
    return line[:i].strip(), line[i:].strip()


def parse_number(text):
    """promql/test.go parseNumber: strconv.ParseInt(s, 0, 64), else ParseFloat."""
    t = text.strip()
    try:
        return float(int(t, 0))
    except ValueError:
        pass
    low = t.lower().lstrip("+-")
    if low in ("inf", "infinity", "nan") or re.match(r"^[0-9.]+(e[+-]?[0-9]+)?$", low):
        v = float(t)
        return v
    raise ValueError("not a number: %r" % text)


def expand_values(text):
    """The expanding notation of promql/parser/generated_parser.y (series_values): a list of
    floats, None for `_`, 'stale' for a staleness marker."""
    out = []
    for word in text.split():
        if word == "_":
            out.append(None)
            continue
        if word == "stale":
            out.append("stale")
            continue
        m = re.match(r"^(.*?)x(\d+)$", word)
        if not m:
            out.append(parse_number(word))
            continue
        head, count = m.group(1), int(m.group(2))
        if head == "_":
            out.extend([None] * count)
            continue
        m2 = re.match(r"^([+-]?[^+-]+?(?:[eE][+-]?\d+)?)([+-][^+-]+)$", head)
        if m2:
            start, step = parse_number(m2.group(1)), parse_number(m2.group(2))
        else:
            start, step = parse_number(head), 0.0
        v = start
        for _ in range(count + 1):
            out.append(v)
            v += step
    return out


def go_float(v):
    """A float as text Go's strconv.ParseFloat reads back to the same double."""
    if isinstance(v, str):
        return v
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    r = repr(v)
    if r.endswith(".0"):
        r = r[:-2]
    return r


def yaml_str(s):
    return "'" + s.replace("'", "''") + "'"


class Load:
    def __init__(self, step_ms, line):
        self.step_ms = step_ms
        self.line = line
        self.series = []  # (desc, values text)


def convert_file(path, rel, commit):
    lines = [l.strip() for l in open(path, encoding="utf-8").read().split("\n")]
    lines = ["" if l.startswith("#") else l for l in lines]
    loads = []
    cases = []
    skipped = []
    i = 0
    while i < len(lines):
        l = lines[i]
        if l == "":
            i += 1
            continue
        if l == "clear":
            loads = []
            i += 1
            continue
        if l.startswith("load"):
            m = PAT_LOAD.match(l)
            ld = Load(parse_duration(m.group(1)), i + 1)
            i += 1
            while i < len(lines) and lines[i] != "":
                ld.series.append(split_series_desc(lines[i]))
                i += 1
            loads.append(ld)
            continue
        if l.startswith("eval"):
            m = PAT_EVAL.match(l)
            if not m:
                skipped.append((i + 1, l, "not an instant evaluation"))
                i += 1
                continue
            mod, at, expr = m.group(1), m.group(2), m.group(3)
            start = i + 1
            expected = []
            scalar = None
            i += 1
            while i < len(lines) and lines[i] != "":
                d = lines[i]
                try:
                    scalar = parse_number(d)
                    i += 1
                    break
                except ValueError:
                    pass
                desc, val = split_series_desc(d)
                expected.append((desc, val))
                i += 1
            while i < len(lines) and lines[i] != "":
                i += 1
            case = dict(line=start, mod=mod, at=at, expr=expr, expected=expected, scalar=scalar,
                        loads=list(loads))
            reason = unconvertible(case)
            if reason:
                skipped.append((start, l, reason))
            else:
                cases.append(case)
            continue
        skipped.append((i + 1, l, "unknown command"))
        i += 1
    return cases, skipped


def unconvertible(case):
    if case["mod"] == "fail":
        return ("eval_fail: promtool's promql_expr_test cannot expect an error "
                "(an error is always a test failure)")
    if case["expr"].lstrip().startswith(('"', "'", "`")):
        return "string result: promtool compares vectors and scalars only"
    for desc, val in case["expected"]:
        if len(val.split()) != 1:
            return "expected value list is not a single value"
    return None


def case_group(case, name, anchors):
    loads = case["loads"]
    eval_ms = parse_duration(case["at"])
    if loads:
        step = 0
        for ld in loads:
            step = math.gcd(step, ld.step_ms)
    else:
        step = 60000
    series = {}  # desc -> {t: value}; order of first appearance
    order = []
    verbatim = len(loads) == 1
    for ld in loads:
        for desc, text in ld.series:
            vals = expand_values(text)
            if desc not in series:
                series[desc] = {}
                order.append((desc, text))
            else:
                verbatim = False
            for k, v in enumerate(vals):
                if v is not None:
                    series[desc][k * ld.step_ms] = v
    last_t = max([max(pts) for pts in series.values() if pts] or [0])
    out = []
    out.append("  - name: %s" % yaml_str(name))
    out.append("    interval: %s" % format_duration(step))
    series_lines = []
    for desc, text in order:
        if verbatim:
            values = text
        else:
            pts = series[desc]
            end = max(pts) if pts else -1
            vals = []
            for t in range(0, end + 1, step):
                vals.append(go_float(pts[t]) if t in pts else "_")
            values = " ".join(compress_gaps(vals))
        series_lines.append("      - series: %s" % yaml_str(desc))
        series_lines.append("        values: %s" % yaml_str(values))
    # Cases of one load share its series through a YAML anchor (both tools read aliases).
    key = "\n".join(series_lines)
    if not series_lines:
        out.append("    input_series: []")
    elif key in anchors:
        out.append("    input_series: *%s" % anchors[key])
    else:
        anchors[key] = "load%d" % (len(anchors) + 1)
        out.append("    input_series: &%s" % anchors[key])
        out.extend(series_lines)
    out.append("    promql_expr_test:")
    out.append("      - expr: %s" % yaml_str(case["expr"]))
    out.append("        eval_time: %s" % format_duration(eval_ms))
    if case["scalar"] is not None:
        out.append("        exp_samples:")
        out.append("          - labels: '{}'")
        out.append("            value: %s" % yaml_value(case["scalar"]))
    elif case["expected"]:
        out.append("        exp_samples:")
        for desc, val in case["expected"]:
            out.append("          - labels: %s" % yaml_str(desc if desc else "{}"))
            out.append("            value: %s" % yaml_value(parse_value(val)))
    else:
        out.append("        exp_samples: []")
    # promtool loads samples only up to its last evaluation loop timestamp (see above).
    last_loop = (eval_ms // LOAD_STEP_MS) * LOAD_STEP_MS
    if last_t > last_loop:
        load_all = -(-last_t // LOAD_STEP_MS) * LOAD_STEP_MS
        out.append("      - expr: 'vector(1)'  # makes promtool load every sample (see convert.py)")
        out.append("        eval_time: %s" % format_duration(max(load_all, eval_ms)))
        out.append("        exp_samples:")
        out.append("          - labels: '{}'")
        out.append("            value: 1")
    return "\n".join(out)


def parse_value(text):
    if text == "stale":
        raise ValueError("stale expected")
    return parse_number(text)


def yaml_value(v):
    if math.isnan(v):
        return ".nan"
    if math.isinf(v):
        return ".inf" if v > 0 else "-.inf"
    r = repr(v)
    return r


def compress_gaps(vals):
    out = []
    k = 0
    while k < len(vals):
        if vals[k] == "_":
            j = k
            while j < len(vals) and vals[j] == "_":
                j += 1
            n = j - k
            out.append("_" if n == 1 else "_x%d" % n)
            k = j
        else:
            out.append(vals[k])
            k += 1
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--commit", required=True)
    ap.add_argument("--tag", default="")
    ap.add_argument("--source-prefix", default="promql/testdata/")
    ap.add_argument("--out", required=True)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    skipped_all = []
    total = 0
    for path in args.files:
        base = os.path.basename(path)
        rel = args.source_prefix + base
        cases, skipped = convert_file(path, rel, args.commit)
        body = []
        body.append("# Converted by tests/promql_conformance/convert.py from Prometheus's")
        body.append("# %s at commit %s%s (Apache-2.0; see NOTICE)." %
                    (rel, args.commit, " (%s)" % args.tag if args.tag else ""))
        body.append("# One test group per `eval instant` case, named after its source line.")
        body.append("tests:")
        anchors = {}
        for c in cases:
            body.append(case_group(c, "%s:%d" % (rel, c["line"]), anchors))
        total += len(cases)
        with open(os.path.join(args.out, base.replace(".test", "_test.yaml")), "w") as f:
            f.write("\n".join(body) + "\n")
        for line, text, reason in skipped:
            skipped_all.append("%s:%d\t%s\t%s" % (rel, line, reason, text))
    with open(os.path.join(args.out, "unconvertible.txt"), "w") as f:
        f.write("# Cases of %s (commit %s) that promtool's test format cannot express.\n" %
                (args.source_prefix, args.commit))
        f.write("# source:line<TAB>reason<TAB>command\n")
        for s in skipped_all:
            f.write(s + "\n")
    print("converted %d cases, %d unconvertible" % (total, len(skipped_all)))


if __name__ == "__main__":
    sys.exit(main())
