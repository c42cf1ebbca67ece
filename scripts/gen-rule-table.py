#!/usr/bin/env python3
"""Prints the docs/rules.md table "Every rule: inputs, fallback, lifetime interpretation" from the
built-in pack (rules/builtin/*.yaml) and the lifetime table of docs/rules.md. Run after changing
the pack and paste the output between the markers in docs/rules.md; the unit test
docs_lists_every_rule checks that no rule is missing."""
import glob
import os
import re
import yaml

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "rules", "builtin")
lifetime_of = {}
fallback = {
 "ratio": "denominator `rdma_packets_total`: counter-table alternatives per driver (mlx5: PMA `counters/`, else the vport RDMA ethtool counters, else the optional hw counters)",
}
FB = {
 "RdmaAckTimeouts": fallback["ratio"], "RdmaOutOfSequence": fallback["ratio"], "RdmaOutOfSequenceCritical": fallback["ratio"],
 "RdmaSeqErrNaks": fallback["ratio"], "RdmaTransportLivelock": fallback["ratio"],
 "RdmaPfcNotEnabledOnRoceTraffic": "`rdma_bytes_total` by driver alternatives as above; `rdma_pfc_enabled` from DCB netlink, else inferred from mlx5's per-priority ethtool strings",
 "RdmaLosslessPriorityDrops": "`rdma_pfc_enabled` from DCB netlink, else inferred from mlx5's ethtool strings",
 "RdmaPfcStormFromNic": "rx delivery on the priority unknown counts as collapsed (`or` branch); pause time has no fallback from frame counts (ice/irdma: not evaluable, said in COVERAGE)",
 "RdmaLinkFlap": "per driver: ethtool `link_down_events_phy` / hw `link_downed`, else the 8-bit PMA `link_downed` (saturates at 255)",
 "RdmaLinkFlapping": "as RdmaLinkFlap",
 "RdmaCrcErrors": "driver ethtool counter, else the generic netdev statistics `rx_crc_errors`",
 "RdmaSymbolErrors": "mlx5 ethtool `rx_symbol_err_phy`, else the 16-bit PMA `symbol_error`",
 "RdmaFecUncorrectable": "uncorrectable FEC blocks, else post-FEC (PCS) symbol errors",
 "RdmaFirmwareVersionSkew": "devlink running version and PSID, else sysfs `fw_ver` and `board_id`",
 "RdmaPortNotActive": "state unknown: the netdev's operstate (info)",
 "RdmaCqeErrors": "none: silent without the flush counter (errors include flushes)",
}
rows = []
for f in sorted(glob.glob(root + "/*.yaml")):
    if f.endswith("_test.yaml"): continue
    doc = yaml.safe_load(open(f))
    for g in doc["groups"]:
        for r in g["rules"]:
            if "alert" not in r: continue
            name = r["alert"]; expr = r["expr"]
            metrics = sorted(set(re.findall(r"\b(rdma_[a-z0-9_]+|rdmatop:[a-z0-9_:]+)", expr)))
            sev = r["labels"].get("severity", "")
            if sev.startswith("{{"): sev = "by case"
            life = r["labels"].get("evidence") == "lifetime"
            rows.append((os.path.basename(f), name, sev, metrics, life, expr))
# lifetime twins: parse docs/rules.md lifetime table
twins = {}
doc = open(os.path.join(here, "..", "docs", "rules.md")).read()
for line in doc.split("\n"):
    if line.startswith("| RdmaLifetime"):
        cells = [c.strip() for c in line.strip("|").split("|")]
        for live in re.findall(r"Rdma[A-Za-z]+", cells[3]):
            twins.setdefault(live, []).extend(re.findall(r"RdmaLifetime[A-Za-z]+", cells[0]))
out = ["| rule | file | severity | inputs | fallback | lifetime interpretation |", "|---|---|---|---|---|---|"]
for fname, name, sev, metrics, life, expr in rows:
    inputs = ", ".join(f"`{m}`" for m in metrics) or "(by regex)"
    if life:
        lt = "is itself lifetime evidence (evaluated once on the first observation)"
    elif name in twins:
        lt = "read from totals by " + ", ".join(sorted(set(twins[name])))
    elif name.startswith("RdmaProbe"):
        lt = "none: probe series exist only while a prober runs"
    else:
        lt = "none needed: reads current values (runs on the first observation too)" if "rate(" not in expr and "increase(" not in expr and "deriv(" not in expr else "none: needs rates (watch it live)"
    out.append(f"| {name} | {fname} | {sev} | {inputs} | {FB.get(name, 'none')} | {lt} |")
print("\n".join(out))
