// Per-port hardware counters by RDMA netlink (one STAT_GET per port instead of one file read
// per counter), the optional-counter status and the resource summary of every device. Runs
// before the sysfs walk, which takes what this served (collect_rdma_sysfs). Statuses: source
// "netlink" for the device list ("") and each port ("mlx5_0/1"), "netlink-resources" for the
// summaries. With --counters auto a failure is "no data" (sysfs serves the port instead);
// with --counters netlink it is an error.
#include <cerrno>
#include <string>
#include <utility>

#include "collector/collect.h"

namespace rdmatop {
namespace {

constexpr const char* kNetlinkSource = "netlink";

/// The optional counters as a map, and the status note for those that are off. Setting
/// `optional-counters` replaces the enabled set, so the suggested command lists every optional
/// counter of the port, not only the ones that are off (iproute2 rdma/stat.c stat_set_link).
std::string optional_counter_note(const std::string& target,
                                  const std::vector<NldevCounterStatus>& status,
                                  std::map<std::string, bool, std::less<>>& optional) {
  std::string off;
  std::string all;
  for (const auto& counter : status) {
    if (!counter.enabled) continue;
    optional[counter.name] = *counter.enabled;
    all += (all.empty() ? "" : ",") + counter.name;
    if (!*counter.enabled) off += (off.empty() ? "" : ", ") + counter.name;
  }
  if (off.empty()) return {};
  return "optional counters off: " + off + " (enable with `rdma statistic set link " + target +
         " optional-counters " + all + "`)";
}

class NetlinkCollector {
 public:
  NetlinkCollector(const CollectContext& ctx, Snapshot& out, const RdmaDeviceList& devices)
      : ctx_(ctx), out_(out), devices_(devices) {}

  NetlinkData collect() {
    NetlinkData data;
    if (ctx_.counters == CounterSource::sysfs) return data;
    StatusTimer timer(kNetlinkSource, "");
    if (ctx_.netlink == nullptr) {
      // Only --counters netlink gets here with something to say: auto on a non-live root
      // means sysfs by design.
      if (ctx_.counters == CounterSource::netlink) {
        out_.sources.push_back(
            timer.finish(SourceState::error,
                         "RDMA netlink reads only the live host (--sysfs-root is not /sys)"));
      }
      return data;
    }
    if (!devices_) {
      out_.sources.push_back(timer.finish(fallback_state(), devices_.error().message));
      return data;
    }
    out_.sources.push_back(timer.finish(SourceState::ok));
    for (const auto& device : *devices_) {
      if (!ctx_.filter.accepts(device.name)) continue;
      for (std::uint32_t port = 1; port <= device.port_count; ++port) {
        read_port(device, port, data);
      }
    }
    read_resources(data);
    return data;
  }

 private:
  SourceState fallback_state() const {
    return ctx_.counters == CounterSource::auto_select ? SourceState::no_data : SourceState::error;
  }
  std::string fallback_note() const {
    return ctx_.counters == CounterSource::auto_select ? "; hw counters from sysfs" : "";
  }

  void read_port(const NldevDevice& device, std::uint32_t port, NetlinkData& data) {
    const std::string target = device.name + "/" + std::to_string(port);
    StatusTimer timer(kNetlinkSource, target);
    auto counters = ctx_.netlink->port_counters(device.index, port);
    if (!counters) {
      out_.sources.push_back(
          timer.finish(fallback_state(), counters.error().message + fallback_note()));
      return;
    }
    NetlinkPortData served{std::move(counters).value(), {}};
    std::string note;
    auto status = ctx_.netlink->counter_status(device.index, port);
    if (status) {
      note = optional_counter_note(target, *status, served.optional_counters);
    } else if (status.error().code != EINVAL && status.error().code != EOPNOTSUPP) {
      // A kernel without STAT_GET_STATUS rejects the unknown command with EINVAL
      // (core/netlink.c is_nl_valid): no optional counters to report, not a problem.
      note = "optional-counter status unavailable: " + status.error().message;
    }
    data.ports.emplace(std::pair{device.name, port}, std::move(served));
    out_.sources.push_back(timer.finish(SourceState::ok, std::move(note)));
  }

  void read_resources(NetlinkData& data) {
    StatusTimer timer("netlink-resources", "");
    auto resources = ctx_.netlink->resources();
    if (!resources) {
      out_.sources.push_back(timer.finish(fallback_state(), resources.error().message));
      return;
    }
    for (auto& res : *resources) {
      if (ctx_.filter.accepts(res.dev_name)) data.resources[res.dev_name] = std::move(res.counts);
    }
    out_.sources.push_back(timer.finish(SourceState::ok));
  }

  const CollectContext& ctx_;
  Snapshot& out_;
  const RdmaDeviceList& devices_;
};

}  // namespace

NetlinkData collect_rdma_netlink(const CollectContext& ctx, Snapshot& out,
                                 const RdmaDeviceList& devices) {
  return NetlinkCollector(ctx, out, devices).collect();
}

}  // namespace rdmatop
