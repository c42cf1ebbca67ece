#include "cli/common_options.h"

#include <cerrno>
#include <iostream>

#include "collector/source/cached_file_source.h"
#include "collector/source/route_change_feed.h"
#include "recording/recording_provider.h"

namespace rdmatop {

namespace {

/// Reading another host's sysfs tree with this host's live ethtool would mix two machines, so
/// with a non-default --sysfs-root and no --ethtool-dir, ethtool reports "no data" instead.
class DisabledEthtoolSource final : public EthtoolSource {
 public:
  Result<CounterMap> stats(const std::string& ifname) override { return error(ifname); }
  Result<DriverInfo> driver_info(const std::string& ifname) override { return error(ifname); }
  Result<PauseInfo> pause(const std::string& ifname) override { return error(ifname); }
  std::string describe() const override { return "disabled"; }

 private:
  static Error error(const std::string& ifname) {
    return Error{EOPNOTSUPP, "ethtool for " + ifname +
                                 " skipped: --sysfs-root is not /sys and no --ethtool-dir given"};
  }
};

}  // namespace

void add_source_options(CLI::App& command, SourceOptions& options) {
  command
      .add_option("--sysfs-root", options.sysfs_root,
                  "Root of the sysfs tree to read (a live /sys, a fixture or a capture)")
      ->capture_default_str();
  command.add_option("--ethtool-dir", options.ethtool_dir,
                     "Read `ethtool -S/-i/-a` text dumps from DIR instead of the live ioctl "
                     "(files <netdev>.txt, <netdev>.info, <netdev>.pause)");
  command.add_option("--device", options.devices, "Only these RDMA devices (repeatable)");
  command.add_option("--exclude-device", options.exclude_devices,
                     "Skip these RDMA devices (repeatable)");
  command
      .add_option("--counters", options.counters,
                  "Source of per-port hw counters: netlink (one RDMA netlink message per port), "
                  "sysfs (hw_counters/ files) or auto (netlink, else sysfs, per port; sysfs "
                  "when --sysfs-root is not /sys)")
      ->check(CLI::IsMember({"auto", "netlink", "sysfs"}))
      ->capture_default_str();
  command.add_option("--procfs-root", options.procfs_root,
                     "Root of the procfs tree for host readiness (RDMA processes, interrupts); "
                     "default /proc when --sysfs-root is /sys, none otherwise");
  command
      .add_option("--file-cache", options.file_cache,
                  "on: keep sysfs counter files and ethtool -S dumps open (one pread per file "
                  "and tick) and read GIDs, identity, links and ethtool -i/-a dumps again only "
                  "on change or every 60 s; off: open and read every file every tick")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
}

void add_rule_options(CLI::App& command, RuleOptions& options) {
  command.add_option("--rules", options.files,
                     "Extra Prometheus rule files (repeatable); a rule named like a built-in one "
                     "replaces it");
  command.add_flag("--no-builtin-rules", options.no_builtin,
                   "Leave out the built-in RoCE diagnosis pack");
}

RuleSetLoad load_rules(const RuleOptions& options, const std::string& who) {
  RuleSetLoad load = load_rule_set(options.files, !options.no_builtin);
  for (const auto& e : load.errors) std::cerr << who << ": rules: " << e << "\n";
  return load;
}

Result<SnapshotProvider> open_replay(const std::vector<std::string>& paths) {
  auto opened = RecordingSet::open(paths);
  if (!opened) return opened.error();
  return recording_provider(std::move(opened).value());
}

Result<std::unique_ptr<sim::Simulator>> open_demo(const std::string& scenario, bool loop) {
  auto loaded = sim::load_scenario(scenario);
  if (!loaded) return loaded.error();
  sim::SimulatorOptions options;
  options.loop = loop;
  return sim::Simulator::create(std::move(loaded).value(), options);
}

std::string replay_label(const std::vector<std::string>& paths) {
  if (paths.size() <= 1) return paths.empty() ? "" : paths.front();
  return paths.front() + " +" + std::to_string(paths.size() - 1) + " files";
}

namespace {

bool is_live_host(const SourceOptions& options) {
  return options.sysfs_root == "/sys" || options.sysfs_root == "/sys/";
}

std::unique_ptr<FileSource> make_sysfs_source(const SourceOptions& options) {
  if (options.file_cache == "off") return make_directory_file_source(options.sysfs_root);
  FileCacheOptions cache;
  // sysfs sends no inotify events: on the live host the GID tables' changes come announced by
  // rtnetlink, so they are read again on those instead of every refresh period.
  if (is_live_host(options)) cache.announcements = make_route_change_feed();
  return make_cached_file_source(options.sysfs_root, std::move(cache));
}

}  // namespace

HostSources::HostSources(const SourceOptions& options)
    : sysfs_(make_sysfs_source(options)), filter_{options.devices, options.exclude_devices} {
  const bool live_host = is_live_host(options);
  if (!options.ethtool_dir.empty()) {
    ethtool_ = make_dump_ethtool_source(
        options.ethtool_dir, options.file_cache == "off" ? DumpReads::plain : DumpReads::cached);
  } else if (live_host) {
    ethtool_ = make_ioctl_ethtool_source();
  } else {
    ethtool_ = std::make_unique<DisabledEthtoolSource>();
  }
  if (options.counters == "netlink") {
    counters_ = CounterSource::netlink;
  } else if (options.counters == "auto") {
    counters_ = CounterSource::auto_select;
  }
  // Netlink answers for this host's kernel only; another root (fixture, capture, simulator)
  // is read from its files alone, so auto means sysfs there. With --counters sysfs it still
  // serves the resource owners (collect_rdma_processes); the counters come from sysfs.
  if (live_host) {
    netlink_ = make_live_rdma_netlink_source();
    devlink_ = make_live_devlink_source();
    dcb_ = make_live_dcb_source();
    link_stats_ = make_live_link_stats_source();
  }
  // Like ethtool: another host's sysfs with this host's /proc would mix two machines.
  // /proc/interrupts has a column per CPU and a row per IRQ: allow 16 MiB.
  constexpr std::size_t kProcfsMaxRead = 16U << 20U;
  if (!options.procfs_root.empty()) {
    procfs_ = make_directory_file_source(options.procfs_root, kProcfsMaxRead);
  } else if (live_host) {
    procfs_ = make_directory_file_source("/proc", kProcfsMaxRead);
  }
}

CollectContext HostSources::context() const {
  return CollectContext{*sysfs_,        *ethtool_,  filter_,       netlink_.get(),   counters_,
                        devlink_.get(), dcb_.get(), procfs_.get(), link_stats_.get()};
}

}  // namespace rdmatop
