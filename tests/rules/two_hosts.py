#!/usr/bin/env python3
"""Multi-host variants of the rule unit tests (issue #20: fleet-correct rules).

For every test case of every given `promtool test rules` file, writes a variant where the same
input series exist on two faulty hosts (instance="h1" and instance="h2"; a series that already
has an instance label gets "h1-<value>" and "h2-<value>"), and every expected alert is expected
once per faulty host with that host's instance and the single-host annotations. A third, healthy
host (instance="h0") has every counter of the case flat at its first value and none of its
gauges: it must fire nothing, and its series must change nothing on the faulty hosts.

A rule that drops `instance` from an aggregation (`sum by (device)`) doubles its values, so the
annotations no longer match; one that joins without `instance` (`on (device, port)`) meets a
many-to-many match or an alert labelled by the wrong host; either fails the variant in both
engines. Rules that compare hosts on purpose carry the label `scope: fleet`: a test case that
expects such an alert is left out of the variant, with a line on stderr saying so.

Usage: two_hosts.py OUTDIR TEST_FILE...   (prints the written paths, one per line)
"""
import os
import re
import sys

import yaml

HOSTS = ("h1", "h2")
HEALTHY = "h0"
INSTANCE = re.compile(r'instance\s*=\s*"([^"]*)"')


def series_on_host(series, host):
    """The series selector with its instance label set for `host`."""
    if INSTANCE.search(series):
        return INSTANCE.sub(lambda m: f'instance="{host}-{m.group(1)}"', series, count=1)
    if "{" in series:
        head, rest = series.split("{", 1)
        rest = rest.lstrip()
        sep = "" if rest.startswith("}") else ","
        return f'{head}{{instance="{host}"{sep}{rest}'
    return f'{series}{{instance="{host}"}}'


def metric_name(series):
    name = series.split("{", 1)[0].strip()
    if name:
        return name
    match = re.search(r'__name__\s*=\s*"([^"]*)"', series)
    return match.group(1) if match else ""


def healthy_copy(item):
    """The series on the healthy host: a counter that never moves, or None for a gauge."""
    if not metric_name(item["series"]).endswith("_total"):
        return None
    values = str(item.get("values", "")).split()
    first = values[0].split("+")[0].split("-")[0].split("x")[0] if values else "0"
    if first in ("_", "stale", ""):
        return None
    return dict(item, series=series_on_host(item["series"], HEALTHY), values=f"{first}x{len(values) * 60}")


def labels_on_host(labels, host):
    labels = dict(labels or {})
    labels["instance"] = f"{host}-{labels['instance']}" if "instance" in labels else host
    return labels


def expects_fleet_alert(case):
    for check in case.get("alert_rule_test") or []:
        for alert in check.get("exp_alerts") or []:
            if (alert.get("exp_labels") or {}).get("scope") == "fleet":
                return True
    return False


def two_host_case(case):
    out = dict(case)
    out["name"] = f"{case.get('name', 'unnamed')} (two hosts)"
    out["input_series"] = [
        dict(item, series=series_on_host(item["series"], host))
        for item in case.get("input_series") or []
        for host in HOSTS
    ]
    out["input_series"] += [h for h in map(healthy_copy, case.get("input_series") or []) if h]
    checks = []
    for check in case.get("alert_rule_test") or []:
        check = dict(check)
        check["exp_alerts"] = [
            dict(alert, exp_labels=labels_on_host(alert.get("exp_labels"), host))
            for host in HOSTS
            for alert in check.get("exp_alerts") or []
        ]
        checks.append(check)
    if checks:
        out["alert_rule_test"] = checks
    # Expression tests query arbitrary PromQL (often aggregating over every host on purpose):
    # only the alerting rules are held to the two-host contract.
    out.pop("promql_expr_test", None)
    return out


def main():
    outdir, files = sys.argv[1], sys.argv[2:]
    os.makedirs(outdir, exist_ok=True)
    for path in files:
        with open(path) as f:
            # Every scalar as the text it was written as: YAML 1.1 would read "0x40" (zero,
            # forty times) as the integer 64.
            doc = yaml.load(f, Loader=yaml.BaseLoader)
        base = os.path.dirname(os.path.abspath(path))
        cases = []
        for case in doc.get("tests") or []:
            if not case.get("alert_rule_test"):
                continue
            if expects_fleet_alert(case):
                print(f"{path}: '{case.get('name')}' expects a scope: fleet alert; "
                      "not varied across hosts", file=sys.stderr)
                continue
            cases.append(two_host_case(case))
        if not cases:
            continue
        doc["rule_files"] = [os.path.join(base, r) for r in doc.get("rule_files") or []]
        doc["tests"] = cases
        name = os.path.basename(path).replace("_test.yaml", "_two_hosts_test.yaml")
        target = os.path.join(outdir, name)
        with open(target, "w") as f:
            f.write(f"# Generated by tests/rules/two_hosts.py from {os.path.relpath(path)}\n")
            yaml.safe_dump(doc, f, sort_keys=False, width=1000)
        print(target)


if __name__ == "__main__":
    main()
