#!/usr/bin/env python3
"""Writes a synthetic N-port mlx5 host (sysfs root + ethtool dumps) for the poll-cost benchmark.

Each port is one ConnectX-6 Dx PCI function built by the fixture generator's own
`mlx5_function` (tests/fixtures/tools/make_fixture_hosts.py), with the busy traffic model of
the mlx5 fixture's first port: the same files, formats and values a real 100G RoCE port shows,
so rdmatop and node_exporter read exactly what they would read on such a host.

Each port lists a GID table of GID_SLOTS slots (default 256), four of them populated: a
ConnectX port lists its whole table in sysfs, gid_tbl_len = the firmware's
roce_address_table_size (drivers/infiniband/hw/mlx5/main.c, mlx5_query_port_roce), which
`ibv_devinfo -v` of a ConnectX-6 shows as 256 (bench/README.md, "GID tables").

Each netdev's `ethtool -S` dump has CHANNELS channels (default 2, as the sessions before 30
measured; bench/README.md, "the next belief to check").

    bench/make_synthetic_tree.py OUT_DIR [PORTS] [GID_SLOTS] [CHANNELS]
                                                  # OUT_DIR/sys, OUT_DIR/ethtool
"""

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests/fixtures/tools"))
import make_fixture_hosts as fx  # noqa: E402  (the path above must come first)


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(sys.argv[1])
    ports = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    gid_slots = int(sys.argv[3]) if len(sys.argv) > 3 else 256
    channels = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    if out.exists():
        shutil.rmtree(out)
    (out / "ethtool").mkdir(parents=True)
    t, eth = fx.Tree(out / "sys"), fx.Tree(out / "ethtool")
    for i in range(ports):
        # Eight functions per PCI device, one device per bus, like a host full of dual-port NICs
        # split into functions.
        pci = f"0000:{0x3b + i // 8:02x}:00.{i % 8}"
        mac = f"b8:59:9f:a1:{i // 256:02x}:{i % 256:02x}"
        ifname = f"ens{i}np0"
        ipv4 = f"192.168.{i // 250}.{i % 250 + 1}"
        fx.mlx5_function(t, eth, root="pci0000:3a/0000:3a:00.0", pci=pci, ibdev=f"mlx5_{i}",
                         ifname=ifname, mac=mac, image_guid=f"b859:9f03:00a1:{i:04x}",
                         ifindex=4 + i, node_desc=f"bench mlx5_{i}", model=fx.mlx5_busy_model(),
                         up=True, gids=fx.mlx5_gids(mac, ifname, ipv4),
                         hw_counters=fx.MLX5_BUSY_HW, gid_files=gid_slots, channels=channels)
    return 0


if __name__ == "__main__":
    sys.exit(main())
