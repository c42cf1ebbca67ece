// What `rdmatop capture` runs on a live host (docs/capture.md "rdmatop capture"): the host's
// RDMA devices, ports and netdevs as sysfs names them, and per command the bundle file, the
// argv and, where the tool has one, rdmatop's own read in that tool's format.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace rdmatop::bundle {

struct HostNames {
  struct Port {
    std::string device;
    std::string port;
  };
  std::vector<std::string> devices;  ///< /sys/class/infiniband/*
  std::vector<Port> ports;
  std::vector<std::string> netdevs;  ///< the ports' netdevs (gid_attrs/ndevs, device/net)
};

/// Reads the names under `sysfs_root` (normally /sys).
HostNames discover_host(const std::string& sysfs_root);

struct PlannedCommand {
  std::string path;               ///< bundle path, e.g. "commands/ethtool-S-eth0.txt"
  std::vector<std::string> argv;  ///< empty: only the own read
  /// rdmatop's own read in the tool's format, used when argv[0] is not installed (or always,
  /// when argv is empty); empty: none.
  std::function<std::string()> own_read;
  std::string own_read_name;  ///< the manifest's "fallback" text
};

/// Every command of the bundle for `host`, sysfs read under `sysfs_root`, /proc under
/// `procfs_root`.
std::vector<PlannedCommand> plan_commands(const HostNames& host, const std::string& sysfs_root,
                                          const std::string& procfs_root);

/// `grep "" FILE...` as GNU grep prints it for several files: "FILE:LINE" per line (one file
/// alone: the bare lines). Unreadable files are left out, as grep leaves them out of stdout.
std::string grep_all_lines(const std::vector<std::string>& files);

/// A bundle file name: `words` without their leading '-' joined by '-', anything but
/// [A-Za-z0-9._-] replaced by '_' ("ethtool", "-S", "eth0" -> "ethtool-S-eth0").
std::string bundle_file_name(const std::vector<std::string>& words);

}  // namespace rdmatop::bundle
