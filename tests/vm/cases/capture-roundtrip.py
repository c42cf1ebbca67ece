#!/usr/bin/env python3
"""rdmatop capture's round trip (docs/capture.md "rdmatop capture"): compares `report --json`
taken inside the rxe VM with `report --json --capture BUNDLE` taken on the host. Same devices,
ports, netdevs and port -> netdev links, same findings (rule, target), every series name of the
inside report except those the bundle cannot carry (EXPECTED_MISSING, with the reason), and the
same QP counter mode values (SAME_VALUE) and devices' resources in use.
Usage: capture-roundtrip.py INSIDE.json OUTSIDE.json"""
import json
import sys

# Series a bundle of command outputs cannot give back, and why: none. (The QP counter mode comes
# back from `rdma statistic qp mode` with a whole `rdma statistic qp show`, docs/capture.md.)
EXPECTED_MISSING = set()


def inventory(report):
    out = set()
    for dev in report["devices"]:
        out.add(("device", dev["name"]))
        for port in dev["ports"]:
            out.add(("port", dev["name"], str(port["port"])))
            out.add(("link", dev["name"], str(port["port"]), port.get("netdev")))
    for nd in report["netdevs"]:
        out.add(("netdev", nd["name"]))
    return out


def series(report):
    return {s["name"] for dev in report["devices"] for port in dev["ports"]
            for s in port.get("series", [])}


# Series whose values a bundle read back must give exactly: what rdma statistic qp mode and qp
# show say of each port.
SAME_VALUE = ("rdma_port_qp_counter_mode", "rdma_port_qp_counter_auto_mask", "rdma_port_bound_counters")


def values(report):
    return {(s["name"], dev["name"], str(port["port"])): s["value"]
            for dev in report["devices"] for port in dev["ports"]
            for s in port.get("series", []) if s["name"] in SAME_VALUE}


def resources(report):
    return {dev["name"]: dev.get("resources") for dev in report["devices"]}


def findings(report):
    return {(f.get("rule"), json.dumps(f.get("target"), sort_keys=True)) for f in report["findings"]}


def main():
    inside = json.load(open(sys.argv[1]))
    outside = json.load(open(sys.argv[2]))
    errors = []
    if inventory(inside) != inventory(outside):
        errors.append(f"inventory differs: inside only {sorted(inventory(inside) - inventory(outside))}, "
                      f"bundle only {sorted(inventory(outside) - inventory(inside))}")
    missing = series(inside) - series(outside) - EXPECTED_MISSING
    extra = series(outside) - series(inside)
    if missing or extra:
        errors.append(f"series differ: not in the bundle's report {sorted(missing)}, only there {sorted(extra)}")
    if values(inside) != values(outside):
        errors.append(f"QP counter values differ: inside {sorted(values(inside).items())}, "
                      f"bundle {sorted(values(outside).items())}")
    if not values(inside):
        errors.append("no QP counter mode series inside the VM")
    if resources(inside) != resources(outside):
        errors.append(f"resources differ: inside {resources(inside)}, bundle {resources(outside)}")
    if findings(inside) != findings(outside):
        errors.append(f"findings differ: inside {sorted(findings(inside))}, bundle {sorted(findings(outside))}")
    if not inside["devices"]:
        errors.append("no RDMA device inside the VM")
    for e in errors:
        print("FAIL:", e)
    print(f"compared {len(inventory(inside))} inventory items, {len(series(inside))} series, "
          f"{len(findings(inside))} findings")
    return 1 if errors else 0


sys.exit(main())
