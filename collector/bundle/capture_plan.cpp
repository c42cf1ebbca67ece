#include "collector/bundle/capture_plan.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <string_view>
#include <system_error>

#include "util/bounded_file.h"

namespace rdmatop::bundle {
namespace {

namespace fs = std::filesystem;

/// A sysfs attribute is one page at most; 64 KiB covers /proc/interrupts lines too.
constexpr std::size_t kAttributeBytes = 64U << 10U;
constexpr std::size_t kProcInterruptsBytes = 4U << 20U;

std::vector<std::string> sorted_entries(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    out.push_back(it->path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The first line of a sysfs attribute, without its newline; "" when unreadable.
std::string attribute(const std::string& path) {
  auto bytes = read_bounded_file(path, kAttributeBytes);
  if (!bytes) return {};
  std::string text = std::move(bytes).value();
  text = text.substr(0, text.find('\n'));
  return text;
}

/// Every regular file of `dir` (sorted), as full paths.
void add_files(std::vector<std::string>& out, const std::string& dir) {
  for (const std::string& name : sorted_entries(dir)) {
    std::error_code ec;
    if (fs::is_regular_file(dir + "/" + name, ec)) out.push_back(dir + "/" + name);
  }
}

/// "RoCE v2" -> "v2", "IB/RoCE v1" -> "v1" (show_gids's VER column).
std::string gid_version(const std::string& type) {
  if (type.find("v2") != std::string::npos) return "v2";
  if (type.find("v1") != std::string::npos) return "v1";
  return type;
}

/// The dotted IPv4 address of an IPv4-mapped GID (::ffff:a.b.c.d), else "".
std::string mapped_ipv4(const std::string& gid) {
  constexpr std::string_view kPrefix = "0000:0000:0000:0000:0000:ffff:";
  if (gid.size() != 39 || gid.compare(0, kPrefix.size(), kPrefix) != 0) return {};
  const std::string hex = gid.substr(30, 4) + gid.substr(35, 4);
  std::string out;
  for (std::size_t i = 0; i < 8; i += 2) {
    if (!out.empty()) out += '.';
    out += std::to_string(std::stoul(hex.substr(i, 2), nullptr, 16));
  }
  return out;
}

/// show_gids's table (mlnx-tools `show_gids`: the header, the dashes, a tab-separated line per
/// populated GID, then n_gids_found=N), read from gids/N, gid_attrs/types/N, gid_attrs/ndevs/N.
std::string show_gids_read(const HostNames& host, const std::string& ib) {
  std::string out = "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n";
  out += "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n";
  std::size_t found = 0;
  for (const HostNames::Port& p : host.ports) {
    const std::string base = ib + "/" + p.device + "/ports/" + p.port;
    std::vector<std::string> indexes = sorted_entries(base + "/gids");
    std::sort(indexes.begin(), indexes.end(), [](const std::string& a, const std::string& b) {
      return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    for (const std::string& index : indexes) {
      const std::string gid = attribute(base + "/gids/" + index);
      if (gid.empty() || gid == "0000:0000:0000:0000:0000:0000:0000:0000") continue;
      const std::string ndev = attribute(base + "/gid_attrs/ndevs/" + index);
      const std::string type = attribute(base + "/gid_attrs/types/" + index);
      if (ndev.empty() && type.empty()) continue;
      out += p.device + "\t" + p.port + "\t" + index + "\t" + gid + "\t" + mapped_ipv4(gid) +
             "  \t" + gid_version(type) + "\t" + ndev + "\n";
      ++found;
    }
  }
  out += "n_gids_found=" + std::to_string(found) + "\n";
  return out;
}

/// The netdev of a port: the netdev of its first GID entry that names one.
std::string port_netdev(const std::string& ib, const HostNames::Port& p) {
  const std::string dir = ib + "/" + p.device + "/ports/" + p.port + "/gid_attrs/ndevs";
  for (const std::string& index : sorted_entries(dir)) {
    std::string name = attribute(dir + "/" + index);
    if (!name.empty()) return name;
  }
  return {};
}

/// ibdev2netdev's lines (mlnx-tools `ibdev2netdev`): "DEV port N ==> NETDEV (Up|Down)".
std::string ibdev2netdev_read(const HostNames& host, const std::string& sysfs_root) {
  const std::string ib = sysfs_root + "/class/infiniband";
  std::string out;
  for (const HostNames::Port& p : host.ports) {
    const std::string netdev = port_netdev(ib, p);
    if (netdev.empty()) continue;
    const std::string state = attribute(sysfs_root + "/class/net/" + netdev + "/operstate");
    out += p.device + " port " + p.port + " ==> " + netdev + (state == "up" ? " (Up)" : " (Down)") +
           "\n";
  }
  return out;
}

std::string whole_file(const std::string& path, std::size_t cap) {
  auto bytes = read_bounded_file(path, cap);
  return bytes ? std::move(bytes).value() : std::string{};
}

}  // namespace

HostNames discover_host(const std::string& sysfs_root) {
  HostNames host;
  const std::string ib = sysfs_root + "/class/infiniband";
  std::set<std::string> netdevs;
  for (const std::string& dev : sorted_entries(ib)) {
    host.devices.push_back(dev);
    for (const std::string& port : sorted_entries(ib + "/" + dev + "/ports")) {
      host.ports.push_back(HostNames::Port{dev, port});
      const std::string ndevs = ib + "/" + dev + "/ports/" + port + "/gid_attrs/ndevs";
      for (const std::string& index : sorted_entries(ndevs)) {
        std::string name = attribute(ndevs + "/" + index);
        if (!name.empty()) netdevs.insert(std::move(name));
      }
    }
    for (const std::string& name : sorted_entries(ib + "/" + dev + "/device/net")) {
      netdevs.insert(name);
    }
  }
  host.netdevs.assign(netdevs.begin(), netdevs.end());
  return host;
}

std::string grep_all_lines(const std::vector<std::string>& files) {
  std::string out;
  for (const std::string& file : files) {
    auto bytes = read_bounded_file(file, kAttributeBytes);
    if (!bytes) continue;
    const std::string& text = *bytes;
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      if (files.size() > 1) out += file + ":";
      out.append(text, start, end - start);
      out += '\n';
      start = end + 1;
    }
  }
  return out;
}

std::string bundle_file_name(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    const std::size_t first = w.find_first_not_of('-');  // "-S" -> "S"
    if (first == std::string::npos) continue;
    if (!out.empty()) out += '-';
    for (const char c : std::string_view(w).substr(first)) {
      const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
      out += keep ? c : '_';
    }
  }
  return out;
}

std::vector<PlannedCommand> plan_commands(const HostNames& host, const std::string& sysfs_root,
                                          const std::string& procfs_root) {
  std::vector<PlannedCommand> out;
  auto run = [&out](std::vector<std::string> argv) {
    out.push_back(PlannedCommand{"commands/" + bundle_file_name(argv) + ".txt", argv, {}, {}});
  };
  const std::string ib = sysfs_root + "/class/infiniband";
  // rdma(8) from iproute2: rdma-statistic(8), rdma-link(8), rdma-dev(8), rdma-resource(8).
  run({"rdma", "dev"});
  run({"rdma", "link"});
  run({"rdma", "statistic", "show"});
  run({"rdma", "statistic", "qp", "mode"});
  run({"rdma", "statistic", "qp", "show"});  // with the mode: tells none from manual
  run({"rdma", "resource"});                 // the summary: every RES_SUMMARY count, zeros too
  run({"rdma", "res", "show", "qp"});
  run({"rdma", "res", "show", "cq"});
  run({"rdma", "res", "show", "mr"});
  run({"ibv_devinfo", "-v"});  // ibv_devinfo(1), rdma-core
  run({"ibstat"});             // ibstat(8), infiniband-diags
  run({"show_gids"});          // mlnx-tools
  out.back().own_read = [host, ib] { return show_gids_read(host, ib); };
  out.back().own_read_name =
      "rdmatop's own read of gids/N and gid_attrs/{types,ndevs}/N, in show_gids's format";
  run({"ibdev2netdev"});  // mlnx-tools
  out.back().own_read = [host, sysfs_root] { return ibdev2netdev_read(host, sysfs_root); };
  out.back().own_read_name =
      "rdmatop's own read of gid_attrs/ndevs and operstate, in ibdev2netdev's format";
  for (const HostNames::Port& p : host.ports) {
    run({"perfquery", "-x", "-C", p.device, "-P", p.port});  // perfquery(8)
  }
  // grep "" of every counter file: "PATH:VALUE" per file (grep(1) with several files).
  for (const char* dir : {"hw_counters", "counters"}) {
    std::vector<std::string> files;
    for (const HostNames::Port& p : host.ports) {
      add_files(files, ib + "/" + p.device + "/ports/" + p.port + "/" + dir);
    }
    if (files.empty()) continue;
    std::vector<std::string> argv{"grep", ""};
    argv.insert(argv.end(), files.begin(), files.end());
    out.push_back(PlannedCommand{"commands/grep-" + std::string(dir) + ".txt", argv,
                                 [files] { return grep_all_lines(files); },
                                 "rdmatop's own read of the files, in grep \"\" FILE...'s format"});
  }
  // The port and netdev attributes no command above prints as sysfs has them (the rate, the
  // netdev's sysfs statistics and carrier_changes): sysfs-rdma(5) ABI files, by grep "".
  std::vector<std::string> attributes;
  for (const HostNames::Port& p : host.ports) {
    for (const char* name : {"rate", "state", "phys_state", "link_layer"}) {
      attributes.push_back(ib + "/" + p.device + "/ports/" + p.port + "/" + name);
    }
  }
  for (const std::string& netdev : host.netdevs) {
    const std::string net = sysfs_root + "/class/net/" + netdev;
    for (const char* name : {"mtu", "operstate", "carrier_changes", "speed"}) {
      attributes.push_back(net + "/" + name);
    }
    add_files(attributes, net + "/statistics");
  }
  if (!attributes.empty()) {
    std::vector<std::string> argv{"grep", ""};
    argv.insert(argv.end(), attributes.begin(), attributes.end());
    out.push_back(PlannedCommand{"commands/grep-attributes.txt", argv,
                                 [attributes] { return grep_all_lines(attributes); },
                                 "rdmatop's own read of the files, in grep \"\" FILE...'s format"});
  }
  for (const std::string& netdev : host.netdevs) {
    run({"ethtool", "-S", netdev});  // ethtool(8)
    run({"ethtool", "-i", netdev});
    run({"ethtool", "-a", netdev});
    run({"ethtool", "--get-tunable", netdev, "rx-copybreak", "tx-copybreak",
         "pfc-prevention-tout"});
    run({"mlnx_qos", "-i", netdev});             // mlnx-tools
    run({"dcb", "pfc", "show", "dev", netdev});  // dcb-pfc(8), dcb-ets(8), dcb-app(8)
    run({"dcb", "ets", "show", "dev", netdev});
    run({"dcb", "app", "show", "dev", netdev});
    run({"lldptool", "-t", "-i", netdev, "-V", "PFC"});  // lldptool-pfc(8)
    run({"lldptool", "-t", "-i", netdev, "-V", "ETS-CFG"});
  }
  run({"devlink", "dev", "info"});     // devlink-dev(8)
  run({"devlink", "health", "show"});  // devlink-health(8)
  run({"ip", "-s", "link"});           // ip-link(8)
  // /proc/interrupts is a file: read as `cat` prints it (proc(5)).
  const std::string interrupts = procfs_root + "/interrupts";
  out.push_back(
      PlannedCommand{"commands/proc-interrupts.txt",
                     {},
                     [interrupts] { return whole_file(interrupts, kProcInterruptsBytes); },
                     "rdmatop's own read of " + interrupts + ", as cat prints it"});
  return out;
}

}  // namespace rdmatop::bundle
