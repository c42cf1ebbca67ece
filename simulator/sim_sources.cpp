#include "simulator/sim_sources.h"

#include <cerrno>
#include <string>
#include <utility>

#include "collector/parse/dcbnl_parse.h"
#include "collector/parse/ethtool_text.h"
#include "simulator/dcb_render.h"
#include "simulator/devlink_render.h"
#include "simulator/nldev_render.h"
#include "simulator/tree_render.h"

namespace rdmatop::sim {

namespace {

class SimulatedDevlinkSource final : public DevlinkSource {
 public:
  explicit SimulatedDevlinkSource(const HostModel& host) : host_(host) {}

  Result<std::vector<DevlinkInfo>> info() override {
    const std::uint32_t seq = ++seq_;
    return parse_devlink_info_reply(render_devlink_info_reply(host_, kSimulatedDevlinkFamily, seq),
                                    kSimulatedDevlinkFamily, seq);
  }
  Result<std::vector<DevlinkReporterEntry>> health() override {
    const std::uint32_t seq = ++seq_;
    return parse_devlink_health_reply(
        render_devlink_health_reply(host_, kSimulatedDevlinkFamily, seq), kSimulatedDevlinkFamily,
        seq);
  }

 private:
  const HostModel& host_;
  std::uint32_t seq_ = 0;
};

class SimulatedDcbSource final : public DcbSource {
 public:
  explicit SimulatedDcbSource(const HostModel& host) : host_(host) {}

  Result<DcbInfo> ieee(const std::string& ifname) override {
    const std::uint32_t seq = ++seq_;
    const auto reply = render_dcb_ieee_reply(host_, ifname, seq);
    // What the kernel answers for a netdev without dcbnl_ops (net/dcb/dcbnl.c dcb_doit).
    if (!reply) return Error{EOPNOTSUPP, "dcb ieee " + ifname + ": Operation not supported"};
    Result<DcbInfo> info = parse_dcb_ieee_reply(*reply, seq);
    if (!info) return Error{info.error().code, "dcb ieee " + ifname + ": " + info.error().message};
    return info;
  }

 private:
  const HostModel& host_;
  std::uint32_t seq_ = 0;
};

class SimulatedEthtoolSource final : public EthtoolSource {
 public:
  SimulatedEthtoolSource(std::unique_ptr<EthtoolSource> files, const HostModel& host)
      : files_(std::move(files)), host_(host) {}

  Result<CounterMap> stats(const std::string& ifname) override { return files_->stats(ifname); }
  Result<DriverInfo> driver_info(const std::string& ifname) override {
    return files_->driver_info(ifname);
  }
  Result<PauseInfo> pause(const std::string& ifname) override { return files_->pause(ifname); }
  Result<std::uint16_t> pfc_prevention_tout(const std::string& ifname) override {
    for (const PortState& port : host_.ports) {
      // ConnectX-6 Dx has the PCAM pfcc_mask and stall_detect bits the tunable needs
      // (docs/domain.md#storm-prevention); bnxt_en and virtio_net have no such tunable.
      if (port.spec.netdev == ifname && port.spec.kind == NicKind::mlx5) {
        return port.conditions.pfc_storm_prevention_ms;
      }
    }
    return files_->pfc_prevention_tout(ifname);
  }
  std::string describe() const override { return "simulator, " + files_->describe(); }

 private:
  std::unique_ptr<EthtoolSource> files_;
  const HostModel& host_;
};

class SimulatedLiveEthtoolSource final : public EthtoolSource {
 public:
  explicit SimulatedLiveEthtoolSource(const HostModel& host) : host_(host) {}

  Result<CounterMap> stats(const std::string& ifname) override {
    for (const PortState& port : host_.ports) {
      if (port.spec.netdev != ifname) continue;
      const TreeImage image = render_port(port);
      const auto it = image.files.find("ethtool/" + ifname + ".txt");
      if (it == image.files.end()) break;
      return parse_ethtool_stats_text(it->second);
    }
    return Error{ENODEV, "ethtool stats " + ifname + ": no such simulated netdev"};
  }
  Result<DriverInfo> driver_info(const std::string& ifname) override {
    return Error{EOPNOTSUPP, "driver info " + ifname + ": not read by the fast path"};
  }
  Result<PauseInfo> pause(const std::string& ifname) override {
    return Error{EOPNOTSUPP, "pause " + ifname + ": not read by the fast path"};
  }
  std::string describe() const override { return "simulator, live model"; }

 private:
  const HostModel& host_;
};

class SimulatedRdmaNetlinkSource final : public RdmaNetlinkSource {
 public:
  explicit SimulatedRdmaNetlinkSource(const HostModel& host) : host_(host) {}

  Result<std::vector<NldevDevice>> devices() override { return now().devices(); }
  Result<std::vector<NldevPort>> ports(std::uint32_t dev_index) override {
    return now().ports(dev_index);
  }
  Result<CounterMap> port_counters(std::uint32_t dev_index, std::uint32_t port) override {
    return now().port_counters(dev_index, port);
  }
  Result<std::vector<NldevCounterStatus>> counter_status(std::uint32_t dev_index,
                                                         std::uint32_t port) override {
    return now().counter_status(dev_index, port);
  }
  Result<std::vector<NldevResources>> resources() override { return now().resources(); }
  Result<std::vector<NldevResOwner>> resource_owners(NldevResKind kind,
                                                     std::uint32_t dev_index) override {
    return now().resource_owners(kind, dev_index);
  }
  Result<NldevQpCounterMode> qp_counter_mode(std::uint32_t dev_index, std::uint32_t port) override {
    return now().qp_counter_mode(dev_index, port);
  }
  Result<std::vector<NldevBoundCounter>> bound_counters(std::uint32_t dev_index,
                                                        std::uint32_t port) override {
    return now().bound_counters(dev_index, port);
  }

 private:
  /// The replay source of the host as it is now: rendered once per simulated instant.
  RdmaNetlinkSource& now() {
    if (!replay_ || rendered_at_ != host_.elapsed_s) {
      replay_ = make_replay_rdma_netlink_source(simulated_nldev_recording(host_));
      rendered_at_ = host_.elapsed_s;
    }
    return *replay_;
  }

  const HostModel& host_;
  std::unique_ptr<RdmaNetlinkSource> replay_;
  double rendered_at_ = 0;
};

}  // namespace

std::unique_ptr<DevlinkSource> make_simulated_devlink_source(const HostModel& host) {
  return std::make_unique<SimulatedDevlinkSource>(host);
}

std::unique_ptr<DcbSource> make_simulated_dcb_source(const HostModel& host) {
  return std::make_unique<SimulatedDcbSource>(host);
}

std::unique_ptr<RdmaNetlinkSource> make_simulated_rdma_netlink_source(const HostModel& host) {
  return std::make_unique<SimulatedRdmaNetlinkSource>(host);
}

std::unique_ptr<EthtoolSource> make_simulated_live_ethtool_source(const HostModel& host) {
  return std::make_unique<SimulatedLiveEthtoolSource>(host);
}

std::unique_ptr<EthtoolSource> make_simulated_ethtool_source(std::unique_ptr<EthtoolSource> files,
                                                             const HostModel& host) {
  return std::make_unique<SimulatedEthtoolSource>(std::move(files), host);
}

}  // namespace rdmatop::sim
