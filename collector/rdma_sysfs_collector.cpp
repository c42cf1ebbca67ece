// class/infiniband -> DeviceSample/PortSample. Layout and formats: drivers/infiniband/core/
// sysfs.c (docs/domain.md#sysfs-formats). One SourceStatus per device ("mlx5_0") and per port
// ("mlx5_0/1"), source "sysfs"; the error policy lives in SysfsObjectReader.
#include <algorithm>
#include <array>
#include <cerrno>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collector/collect.h"
#include "collector/parse/gid.h"
#include "collector/parse/sysfs_parse.h"
#include "collector/sysfs_object_reader.h"

namespace rdmatop {
namespace {

using Presence = SysfsObjectReader::Presence;
using DirOutcome = SysfsObjectReader::DirOutcome;
using Refresh = SysfsObjectReader::Refresh;

constexpr std::string_view class_dir = "class/infiniband";
constexpr std::string_view kSysfsSource = "sysfs";

std::string_view basename_of(std::string_view path) {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The last PCI-address component of a sysfs device path, or "".
std::string_view last_pci_component(std::string_view path) {
  std::string_view found;
  std::size_t pos = 0;
  while (pos <= path.size()) {
    const std::size_t slash = std::min(path.find('/', pos), path.size());
    const std::string_view part = path.substr(pos, slash - pos);
    if (is_pci_address(part)) found = part;
    pos = slash + 1;
  }
  return found;
}

// The RDMA driver family, from the kernel driver bound to the device's parent. mlx5_ib,
// bnxt_re and irdma register the ib_device on the PCI function (driver mlx5_core, bnxt_en,
// ice/i40e) or, in newer and out-of-tree versions, on an auxiliary device bound to the RDMA
// driver itself (irdma: "ice.roce.0" -> irdma). irdma replaced i40iw for X722 in 5.14.
std::string driver_from_parent(std::string_view parent_driver) {
  static constexpr std::pair<std::string_view, std::string_view> table[] = {
      {"mlx5_core", "mlx5"}, {"mlx5_ib", "mlx5"}, {"bnxt_en", "bnxt_re"}, {"bnxt_re", "bnxt_re"},
      {"irdma", "irdma"},    {"ice", "irdma"},    {"i40e", "irdma"},
  };
  for (const auto& [kernel, family] : table) {
    if (parent_driver == kernel) return std::string(family);
  }
  return {};
}

// Fallback for devices without a parent driver link (rxe is virtual) or with an unknown one:
// the kernel's default device names ("mlx5_%d", "bnxt_re%d", "irdma%d"; rxe names are chosen by
// `rdma link add`, conventionally "rxe...").
std::string driver_from_name(std::string_view device) {
  // Bonded devices keep the driver's prefix ("mlx5_bond_0", "bnxt_re_bond0"). HiSilicon's
  // hns_roce registers "hns_%d" (hns_roce_main.c). The rdma-core udev rename scheme's names
  // ("rocep59s0f0", "roceo1") say nothing about the driver: the identity attributes and the
  // netdev's driver decide for those.
  static constexpr std::pair<std::string_view, std::string_view> table[] = {
      {"mlx5_", "mlx5"}, {"bnxt_re", "bnxt_re"}, {"irdma", "irdma"},
      {"rxe", "rxe"},    {"hns_", "hns"},        {"hns", "hns"},
  };
  for (const auto& [prefix, family] : table) {
    if (device.substr(0, prefix.size()) == prefix) return std::string(family);
  }
  return {};
}

// From the identity attributes when the device has neither a driver link nor a known name (a
// renamed device, a capture without the link): mlx5_ib sets hca_type to "MT" + the PCI device
// ID (mlx5/main.c hca_type_show: "MT%d", dev->pdev->device), and the ConnectX-4 and later
// families are 4113..4131 (0x1011..0x1023) and the BlueField DPUs 41682, 41686, 41692
// (0xa2d2, 0xa2d6, 0xa2dc; mlx5/core/main.c mlx5_core_pci_table).
std::string driver_from_identity(std::string_view hca_type) {
  if (hca_type.size() < 3 || hca_type.substr(0, 2) != "MT") return {};
  std::uint32_t id = 0;
  for (const char c : hca_type.substr(2)) {
    if (c < '0' || c > '9' || id > 1000000) return {};
    id = id * 10 + static_cast<std::uint32_t>(c - '0');
  }
  if ((id >= 4113 && id <= 4131) || id == 41682 || id == 41686 || id == 41692) return "mlx5";
  return {};
}

std::optional<std::uint32_t> to_u32(std::uint64_t value) {
  if (value > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
  return static_cast<std::uint32_t>(value);
}

// `lifespan` sits among the hw_counters but is the cache lifetime in ms, not a counter
// (drivers/infiniband/core/sysfs.c show_stats_lifespan): read_counters sets it aside.
constexpr std::string_view kLifespan = "lifespan";

void read_state_files(SysfsObjectReader& port, PortSample& out) {
  using Parser = Result<IdName> (*)(std::string_view);
  const auto read_id_name = [&](std::string_view file, Parser parse,
                                std::optional<std::uint32_t>& id, std::string& name) {
    const auto text = port.read(file, Presence::required);
    if (!text) return;
    const auto parsed = parse(*text);
    if (!parsed) return port.record_parse_error(file, parsed.error());
    id = parsed->id;
    name = parsed->name;
  };
  read_id_name("state", parse_state, out.state_id, out.state);
  read_id_name("phys_state", parse_phys_state, out.phys_state_id, out.phys_state);

  if (auto rate = port.read_text("rate", Presence::required)) {
    const auto gbps = parse_rate(*rate);
    if (gbps) {
      out.rate_gbps = *gbps;
    } else {
      port.record_parse_error("rate", gbps.error());
    }
    out.rate_text = std::move(*rate);
  }
  if (auto layer = port.read_text("link_layer", Presence::required, Refresh::on_change)) {
    out.link_layer = *layer;
  }
}

/// A port's GID table as read and parsed, with what went wrong on the way: kept by a caching
/// source between passes (FileSource::derive_static).
struct GidTable final : DerivedValue {
  std::vector<GidEntry> entries;
  bool whole = false;  ///< PortSample::gid_table_read
  ProblemLog problems;
};

// The GID table: gids/<i>, gid_attrs/types/<i>, gid_attrs/ndevs/<i>. Tables have up to
// gid_tbl_len entries (256 on a ConnectX, 1024 on rxe), nearly all of them empty, so the
// directory is listed once and only populated slots cost more than one read.
void parse_gid_table(SysfsObjectReader& port, GidTable& out) {
  const auto names = port.list("gids", Presence::required);
  if (!names) return;
  // Whole means every slot 0..n-1 listed and every populated entry's gid and type read: only
  // then does "no routable entry" say that the port has no address (absent is not zero).
  bool whole = true;
  std::vector<std::pair<std::uint32_t, const std::string*>> slots;
  slots.reserve(names->size());
  for (const auto& name : *names) {
    const auto index = parse_index_name(name);
    if (!index) {
      port.record_parse_error(join_path("gids", name), index.error());
      whole = false;
      continue;
    }
    slots.emplace_back(*index, &name);
  }
  std::sort(slots.begin(), slots.end());
  // The kernel lists every slot of the table (gid_tbl_len files): a gap is a capture that
  // missed a file.
  for (std::size_t i = 0; i < slots.size(); ++i) whole = whole && slots[i].first == i;

  for (const auto& [index, name] : slots) {
    const std::string gid_file = join_path("gids", *name);
    const auto text = port.read(gid_file, Presence::required, Refresh::on_change);
    if (port.vanished()) return;
    if (!text) {
      whole = false;
      continue;
    }
    const auto gid = parse_gid(*text);
    if (!gid) {
      port.record_parse_error(gid_file, gid.error());
      whole = false;
      continue;
    }
    if (classify_gid(*gid) == GidKind::unpopulated) continue;

    // An unpopulated (or just-deleted) slot fails with EINVAL (core/sysfs.c
    // show_port_gid_attr_gid_type via rdma_get_gid_attr): not an entry, not a problem.
    const std::string type_file = join_path("gid_attrs/types", *name);
    auto type = port.read_raw(type_file, Refresh::on_change);
    if (!type && type.error().code == EINVAL) continue;
    GidEntry entry{index, *gid, {}, {}};
    if (type) {
      auto text_type = parse_text_attribute(*type);
      if (text_type) {
        entry.type = std::move(text_type).value();
      } else {
        port.record_parse_error(type_file, text_type.error());
        whole = false;
      }
    } else {
      port.record(type_file, type.error(), Presence::optional);
      whole = false;
    }

    // EINVAL here means the GID has no netdev (an InfiniBand port): empty, not a problem.
    const std::string ndev_file = join_path("gid_attrs/ndevs", *name);
    const auto ndev = port.read_raw(ndev_file, Refresh::on_change);
    if (ndev) {
      auto ifname = parse_text_attribute(*ndev);
      if (ifname && is_valid_netdev_name(*ifname)) {
        entry.netdev = std::move(ifname).value();
      } else {
        port.record_parse_error(ndev_file,
                                Error{0, "not a netdev name: " + escape_for_message(*ndev)});
      }
    } else if (ndev.error().code != EINVAL) {
      port.record(ndev_file, ndev.error(), Presence::optional);
    }
    if (port.vanished()) return;
    out.entries.push_back(std::move(entry));
  }
  out.whole = whole;
}

/// The port's GID table: gids/N, gid_attrs/types/N and gid_attrs/ndevs/N for every slot (256
/// files each on a ConnectX), read and parsed again only when a caching source would no longer
/// serve one of them from memory. Its problems go to `log` at every pass, as when it is read.
/// `owner`: the port reader's (the device directory).
void read_gid_table(const FileSource& fs, const SysfsObjectReader& port, const std::string& owner,
                    ProblemLog& log, PortSample& out) {
  const std::array<std::string, 3> inputs = {join_path(port.base(), "gids"),
                                             join_path(port.base(), "gid_attrs/types"),
                                             join_path(port.base(), "gid_attrs/ndevs")};
  // A RoCE port's table changes only with an rtnetlink link or address notification; an
  // InfiniBand port's follows the subnet manager (the subnet prefix), which nothing announces.
  const Changes changes = out.link_layer == "Ethernet" ? Changes::announced : Changes::unannounced;
  const Derived derived = fs.derive_static(inputs.front(), inputs, changes, [&] {
    auto table = std::make_shared<GidTable>();
    SysfsObjectReader reader(fs, port.base(), owner, table->problems);
    parse_gid_table(reader, *table);
    // A vanished port is found again by the port's next read; nothing of it is kept.
    if (reader.vanished()) return Derived{};
    return Derived{table, reader.static_age()};
  });
  if (derived.value == nullptr) return;
  const auto& table = static_cast<const GidTable&>(*derived.value);
  out.gids = table.entries;
  out.gid_table_read = table.whole;
  // With the port's own static values read before it (link_layer), as report-format.md says.
  out.gid_table_age = std::max(port.static_age(), derived.age);
  log.append(table.problems);
}

/// `served`: the port's hw counters as RDMA netlink gave them, if it did.
void read_port_counters(SysfsObjectReader& port, ProblemLog& log, const NetlinkPortData* served,
                        CounterSource mode, PortSample& out) {
  // counters/ exists only when the driver answers PMA MADs (mlx5 yes, rxe no).
  if (port.read_counters("counters", out.counters) == DirOutcome::absent) {
    log.note("no counters/ directory (driver has no PMA)");
  }
  if (served != nullptr) {
    // One netlink message replaced the N hw_counters/ file reads; only the cache lifetime,
    // which netlink does not carry, still comes from sysfs.
    out.hw_counters = served->counters;
    out.optional_counters = served->optional_counters;
    out.counter_source = "netlink";
    if (const auto lifespan = port.read_u64("hw_counters/lifespan", Presence::optional)) {
      out.hw_counters_lifespan_ms = to_u32(*lifespan);
    }
    return;
  }
  // --counters netlink: a port netlink could not serve has no hw counters (its netlink status
  // says why) rather than silently mixing sources.
  if (mode == CounterSource::netlink) return;
  out.counter_source = "sysfs";
  std::optional<std::uint64_t> lifespan;
  if (port.read_counters("hw_counters", out.hw_counters, kLifespan, &lifespan) ==
      DirOutcome::absent) {
    log.note("no hw_counters/ directory");
  }
  out.hw_counters_lifespan_ms = lifespan ? to_u32(*lifespan) : std::nullopt;
}

/// A device's identity and parent links as read and parsed, with what went wrong on the way:
/// kept by a caching source between passes (FileSource::derive_static).
struct DeviceIdentity final : DerivedValue {
  /// node_type, fw_ver, the GUIDs, hca_type, board_id, hw_rev, pci_address and driver only.
  DeviceSample fields;
  bool has_parent = false;  ///< the `device` link exists
  ProblemLog problems;
};

/// Reads one device; the collected ports' statuses go to `port_statuses`.
class DeviceCollector {
 public:
  DeviceCollector(const FileSource& fs, const NetlinkData& netlink, CounterSource mode,
                  std::string name)
      : fs_(fs),
        netlink_(netlink),
        mode_(mode),
        name_(std::move(name)),
        base_(join_path(class_dir, name_)),
        device_(fs, base_, base_, log_) {}

  /// False when the device vanished while it was being read.
  bool collect(DeviceSample& out, std::vector<SourceStatus>& port_statuses) {
    out.name = name_;
    read_identity(out);
    if (const auto it = netlink_.resources.find(name_); it != netlink_.resources.end()) {
      out.resources = it->second;
    }
    // The device scope keeps no lifespan (it is not a counter either). Most RoCE devices have
    // no hw_counters/ of their own: the core makes it for a driver with alloc_hw_device_stats
    // (core/sysfs.c), which mlx5 sets in switchdev mode only (mlx5/counters.c,
    // mlx5_ib_counters_init) and rxe, bnxt_re and irdma never. Its absence asks nothing of
    // the device; the ports' listing below finds a device that vanished.
    device_.read_counters("hw_counters", out.hw_counters, kLifespan, nullptr,
                          SysfsObjectReader::Presence::usually_absent);
    if (device_.vanished()) return false;
    return read_ports(out, port_statuses);
  }

  SourceStatus status(const StatusTimer& timer, bool vanished) const {
    if (vanished) return timer.finish(SourceState::error, "device vanished during read");
    return timer.finish(log_.state(), log_.message());
  }

 private:
  /// The identity and parent links (read_identity_files), read and parsed again only when a
  /// caching source would no longer serve one of them from memory (FileSource::derive_static):
  /// ten values per device and pass otherwise.
  void read_identity(DeviceSample& out) {
    const std::array<std::string, 2> inputs = {base_, join_path(base_, "device")};
    const Derived derived = fs_.derive_static(base_, inputs, Changes::unannounced, [&] {
      auto identity = std::make_shared<DeviceIdentity>();
      SysfsObjectReader reader(fs_, base_, base_, identity->problems);
      read_identity_files(reader, identity->fields, identity->has_parent);
      // A vanished device is found again by the device's next read; nothing of it is kept.
      if (reader.vanished()) return Derived{};
      return Derived{identity, reader.static_age()};
    });
    if (derived.value == nullptr) return;
    const auto& identity = static_cast<const DeviceIdentity&>(*derived.value);
    const DeviceSample& fields = identity.fields;
    out.node_type = fields.node_type;
    out.fw_ver = fields.fw_ver;
    out.node_guid = fields.node_guid;
    out.sys_image_guid = fields.sys_image_guid;
    out.hca_type = fields.hca_type;
    out.board_id = fields.board_id;
    out.hw_rev = fields.hw_rev;
    out.pci_address = fields.pci_address;
    out.driver = fields.driver;
    has_parent_ = identity.has_parent;
    log_.append(identity.problems);
    out.static_age = std::max(device_.static_age(), derived.age);
  }

  void read_identity_files(SysfsObjectReader& device, DeviceSample& out, bool& has_parent) const {
    if (const auto text = device.read("node_type", Presence::required, Refresh::on_change)) {
      const auto parsed = parse_node_type(*text);
      if (parsed) {
        out.node_type = parsed->name;
      } else {
        device.record_parse_error("node_type", parsed.error());
      }
    }
    // fw_ver, the GUIDs are core attributes; hca_type, board_id, hw_rev are driver attributes
    // (mlx5, bnxt_re) that rxe and others lack: absent -> empty string either way.
    const std::pair<std::string_view, std::string*> text_files[] = {
        {"fw_ver", &out.fw_ver},
        {"node_guid", &out.node_guid},
        {"sys_image_guid", &out.sys_image_guid},
        {"hca_type", &out.hca_type},
        {"board_id", &out.board_id},
        {"hw_rev", &out.hw_rev},
    };
    for (const auto& [file, field] : text_files) {
      if (auto text = device.read_text(file, Presence::optional, Refresh::on_change)) {
        *field = std::move(*text);
      }
    }
    read_parent(device, out, has_parent);
  }

  // `device` links the ib_device to its parent bus device (absent for virtual devices).
  void read_parent(SysfsObjectReader& device, DeviceSample& out, bool& has_parent) const {
    const auto parent = device.read_link("device");
    if (parent) {
      has_parent = true;
      const std::string_view leaf = basename_of(*parent);
      out.pci_address = std::string(leaf);
      if (!is_pci_address(leaf)) {
        // An auxiliary parent ("ice.roce.0") sits under the PCI function; the class link's
        // target is the full /sys/devices path, which names it. Best effort: a fixture tree
        // may hold a plain directory there, and a vanished device shows in the reads after.
        if (const auto self = fs_.read_link_static(base_)) {
          const std::string_view pci = last_pci_component(*self);
          if (!pci.empty()) out.pci_address = std::string(pci);
        }
      }
      if (const auto driver = device.read_link("device/driver")) {
        out.driver = driver_from_parent(basename_of(*driver));
      }
    }
    if (out.driver.empty()) out.driver = driver_from_name(name_);
    if (out.driver.empty()) out.driver = driver_from_identity(out.hca_type);
  }

  bool read_ports(DeviceSample& out, std::vector<SourceStatus>& port_statuses) {
    const auto names = device_.list("ports", Presence::required);
    if (!names) return !device_.vanished();
    std::vector<std::pair<std::uint32_t, const std::string*>> ports;
    for (const auto& name : *names) {
      const auto number = parse_index_name(name);
      if (!number) {
        device_.record_parse_error(join_path("ports", name), number.error());
        continue;
      }
      ports.emplace_back(*number, &name);
    }
    std::sort(ports.begin(), ports.end());

    for (const auto& [number, name] : ports) {
      StatusTimer timer(std::string(kSysfsSource), name_ + "/" + *name);
      ProblemLog log;
      SysfsObjectReader port(fs_, join_path(base_, join_path("ports", *name)), base_, log);
      PortSample sample;
      sample.port = number;
      read_state_files(port, sample);
      read_gid_table(fs_, port, base_, log, sample);
      const auto served = netlink_.ports.find({name_, number});
      read_port_counters(port, log, served == netlink_.ports.end() ? nullptr : &served->second,
                         mode_, sample);
      if (!port.vanished()) sample.netdev = port_netdev(sample, ports.size());
      if (port.vanished() || device_.vanished()) return false;
      port_statuses.push_back(timer.finish(log.state(), log.message()));
      out.ports.push_back(std::move(sample));
    }
    return true;
  }

  // The GID table names the port's netdev authoritatively (also for bonds and rxe). Without a
  // populated entry, a single-port PCI device's device/net/ can still name it
  // (docs/domain.md#finding-the-netdev); with several entries (switchdev) there is no way to
  // choose.
  std::string port_netdev(const PortSample& port, std::size_t port_count) {
    for (const auto& gid : port.gids) {
      if (!gid.netdev.empty()) return gid.netdev;
    }
    if (!has_parent_ || port_count != 1) return {};
    const auto nets = device_.list("device/net", Presence::optional);
    if (!nets || nets->size() != 1 || !is_valid_netdev_name(nets->front())) return {};
    return nets->front();
  }

  const FileSource& fs_;
  const NetlinkData& netlink_;
  CounterSource mode_;
  std::string name_;
  std::string base_;
  ProblemLog log_;
  SysfsObjectReader device_;
  bool has_parent_ = false;
};

}  // namespace

void collect_rdma_sysfs(const CollectContext& ctx, Snapshot& out) {
  collect_rdma_sysfs(ctx, out, NetlinkData{});
}

namespace {

Result<std::vector<std::string>> rdma_device_names(const CollectContext& ctx,
                                                   const RdmaDeviceList* devices) {
  if (devices != nullptr && devices->ok() && !(*devices)->empty()) {
    std::vector<std::string> names;
    names.reserve((*devices)->size());
    for (const NldevDevice& d : **devices) names.push_back(d.name);
    std::sort(names.begin(), names.end());  // as FileSource::list orders them
    return names;
  }
  return ctx.sysfs.list_current(class_dir);
}

}  // namespace

void collect_rdma_sysfs(const CollectContext& ctx, Snapshot& out, const NetlinkData& netlink,
                        const RdmaDeviceList* devices) {
  StatusTimer class_timer(std::string(kSysfsSource), "");
  const auto names = rdma_device_names(ctx, devices);
  if (!names) {
    const Error& err = names.error();
    if (err.code == ENOENT) {
      out.sources.push_back(
          class_timer.finish(SourceState::no_data, "no RDMA devices (class/infiniband absent)"));
    } else {
      out.sources.push_back(class_timer.finish(SourceState::error, err.message));
    }
    return;
  }
  if (names->empty()) {
    out.sources.push_back(
        class_timer.finish(SourceState::no_data, "no RDMA devices (class/infiniband is empty)"));
    return;
  }

  std::vector<std::string> accepted;
  for (const auto& name : *names) {
    if (ctx.filter.accepts(name)) accepted.push_back(name);
  }
  if (accepted.empty()) {
    std::string found;
    for (const auto& name : *names) found += (found.empty() ? "" : ", ") + name;
    out.sources.push_back(class_timer.finish(
        SourceState::no_data, "no RDMA device passes the device filter (found: " + found + ")"));
    return;
  }

  for (const auto& name : accepted) {
    StatusTimer timer(std::string(kSysfsSource), name);
    DeviceCollector collector(ctx.sysfs, netlink, ctx.counters, name);
    DeviceSample device;
    std::vector<SourceStatus> port_statuses;
    const bool complete = collector.collect(device, port_statuses);
    // A vanished device is dropped whole: a half-read device would look like a live one whose
    // counters went missing.
    out.sources.push_back(collector.status(timer, !complete));
    if (!complete) continue;
    out.sources.insert(out.sources.end(), std::make_move_iterator(port_statuses.begin()),
                       std::make_move_iterator(port_statuses.end()));
    out.devices.push_back(std::move(device));
  }
  std::stable_sort(out.devices.begin(), out.devices.end(),
                   [](const DeviceSample& a, const DeviceSample& b) { return a.name < b.name; });
}

}  // namespace rdmatop
