// The simulated host's devlink replies and ethtool tunable: the rendered bytes are complete
// dumps the collector's own parser accepts, and they say what the model holds (versions,
// reporter counts, the state a failed recovery leaves); through simulator_provider the data
// reaches the Snapshot by collect_devlink, and the tunable by collect_ethtool.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>

#include "collector/parse/devlink_parse.h"
#include "simulator/devlink_render.h"
#include "simulator/sim_sources.h"
#include "simulator/simulator.h"

using namespace rdmatop;
using namespace rdmatop::sim;

namespace {

constexpr std::uint32_t kSeq = 7;

HostModel host_with_extras() {
  std::vector<PortSpec> specs = default_host();
  specs.push_back(*find_extra_nic("mlx5_2"));
  specs.push_back(*find_extra_nic("rxe0"));
  return make_host_model(std::move(specs));
}

const DevlinkInfo* instance(const std::vector<DevlinkInfo>& all, const std::string& pci) {
  const auto it =
      std::find_if(all.begin(), all.end(), [&](const DevlinkInfo& d) { return d.dev_name == pci; });
  return it == all.end() ? nullptr : &*it;
}

const DevlinkHealthReporter* reporter(const std::vector<DevlinkReporterEntry>& all,
                                      const std::string& pci, const std::string& name) {
  for (const auto& e : all) {
    if (e.dev_name == pci && e.reporter.name == name) return &e.reporter;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("Simulated devlink info: one instance per PCI device, versions from the model",
          "[simulator][devlink]") {
  HostModel host = host_with_extras();
  host.ports[0].conditions.fw_stored = "22.41.1010";  // mlx5_0: flashed, not activated
  const auto bytes = render_devlink_info_reply(host, kSimulatedDevlinkFamily, kSeq);
  CHECK(devlink_reply_complete(bytes, kSeq));
  // Without its last message (NLMSG_DONE: header + int) the dump is not complete.
  CHECK_FALSE(devlink_reply_complete(std::span(bytes).first(bytes.size() - 20), kSeq));
  const auto info = parse_devlink_info_reply(bytes, kSimulatedDevlinkFamily, kSeq);
  REQUIRE(info.ok());
  CHECK(info->size() == 4);  // mlx5_0, mlx5_1, bnxt_re0, mlx5_2; rxe0 has no instance
  const DevlinkInfo* mlx5_0 = instance(*info, "0000:3b:00.0");
  REQUIRE(mlx5_0 != nullptr);
  CHECK(mlx5_0->bus_name == "pci");
  CHECK(mlx5_0->driver == "mlx5_core");
  CHECK(mlx5_0->fixed.at("fw.psid") == "MT_0000000012");
  CHECK(mlx5_0->running.at("fw.version") == "22.39.1002");
  CHECK(mlx5_0->stored.at("fw.version") == "22.41.1010");
  const DevlinkInfo* mlx5_1 = instance(*info, "0000:3b:00.1");
  REQUIRE(mlx5_1 != nullptr);
  CHECK(mlx5_1->stored.at("fw.version") == "22.39.1002");  // stored defaults to running
  const DevlinkInfo* bnxt = instance(*info, "0000:41:00.0");
  REQUIRE(bnxt != nullptr);
  CHECK(bnxt->driver == "bnxt_en");
  CHECK(bnxt->running.at("fw") == "227.0.131.0");
  CHECK(instance(*info, "0000:00:04.0") == nullptr);
  // The reply answers its own request only.
  CHECK_FALSE(parse_devlink_info_reply(bytes, kSimulatedDevlinkFamily, kSeq + 1).ok());
}

TEST_CASE("Simulated devlink health: counts follow the model, a failed recovery stays in error",
          "[simulator][devlink]") {
  HostModel host = host_with_extras();
  std::vector<PortConditions> conditions(host.ports.size());
  conditions[1].fw_errors_per_min = 6;        // mlx5_1: 3 syndromes in 30 s, recovered
  conditions[0].fw_fatal_errors_per_min = 2;  // mlx5_0: 1 fatal error in 30 s, not recovered
  conditions[0].health_recovers = false;
  set_conditions(host, conditions);
  advance(host, 30);
  const auto bytes = render_devlink_health_reply(host, kSimulatedDevlinkFamily, kSeq);
  const auto health = parse_devlink_health_reply(bytes, kSimulatedDevlinkFamily, kSeq);
  REQUIRE(health.ok());
  CHECK(health->size() == 7);  // fw + fw_fatal on three mlx5 functions, fw on bnxt_en
  const auto* fw1 = reporter(*health, "0000:3b:00.1", "fw");
  REQUIRE(fw1 != nullptr);
  CHECK(fw1->error_count == 3U);
  CHECK(fw1->recover_count == 3U);
  CHECK(fw1->state == "healthy");
  const auto* fatal0 = reporter(*health, "0000:3b:00.0", "fw_fatal");
  REQUIRE(fatal0 != nullptr);
  CHECK(fatal0->error_count == 1U);
  CHECK(fatal0->recover_count == 0U);
  CHECK(fatal0->state == "error");
  CHECK(fatal0->auto_recover == false);
  const auto* bnxt = reporter(*health, "0000:41:00.0", "fw");
  REQUIRE(bnxt != nullptr);
  CHECK(bnxt->state == "healthy");
  CHECK(reporter(*health, "0000:41:00.0", "fw_fatal") == nullptr);
  // A driver reload recreates the reporters: their counts restart.
  reload_driver(host, "mlx5_0");
  const auto after =
      parse_devlink_health_reply(render_devlink_health_reply(host, kSimulatedDevlinkFamily, kSeq),
                                 kSimulatedDevlinkFamily, kSeq);
  REQUIRE(after.ok());
  CHECK(reporter(*after, "0000:3b:00.0", "fw_fatal")->state == "healthy");
}

TEST_CASE("The simulated ethtool source adds the storm-prevention tunable of mlx5 netdevs",
          "[simulator][devlink]") {
  class NoFiles final : public EthtoolSource {
   public:
    Result<CounterMap> stats(const std::string&) override { return Error{ENOENT, "none"}; }
    Result<DriverInfo> driver_info(const std::string&) override { return Error{ENOENT, "none"}; }
    Result<PauseInfo> pause(const std::string&) override { return Error{ENOENT, "none"}; }
    std::string describe() const override { return "no files"; }
  };
  HostModel host = host_with_extras();
  host.ports[1].conditions.pfc_storm_prevention_ms = 0;
  auto source = make_simulated_ethtool_source(std::make_unique<NoFiles>(), host);
  CHECK(source->pfc_prevention_tout("ens1f0np0").value() == 65535);
  CHECK(source->pfc_prevention_tout("ens1f1np1").value() == 0);
  const auto bnxt = source->pfc_prevention_tout("ens2f0np0");
  REQUIRE_FALSE(bnxt.ok());
  CHECK(bnxt.error().code == EOPNOTSUPP);
  CHECK(source->stats("ens1f0np0").error().code == ENOENT);  // the files answer the rest
}

TEST_CASE("Through the provider, devlink data reaches the Snapshot by the real collector",
          "[simulator][devlink]") {
  auto scenario = parse_scenario(R"(name: t
description: d
nics: [rxe0]
phases:
  - duration: 10s
    ports:
      mlx5_1: {fw_stored: 22.41.1010, pfc_storm_prevention_ms: 0}
)",
                                 "t.yaml");
  REQUIRE(scenario.ok());
  auto sim = Simulator::create(*scenario);
  REQUIRE(sim.ok());
  auto provider = simulator_provider(**sim);
  const auto snap = provider(1);
  REQUIRE(snap.has_value());
  for (const auto& device : snap->devices) {
    INFO(device.name);
    if (device.name == "rxe0") {
      CHECK_FALSE(device.devlink);
      CHECK(device.driver == "rxe");
      continue;
    }
    REQUIRE(device.devlink);
    if (device.name == "mlx5_1") {
      CHECK(device.devlink->running.at("fw.version") == "22.39.1002");
      CHECK(device.devlink->stored.at("fw.version") == "22.41.1010");
      CHECK(device.devlink->reporters.size() == 2);
    }
  }
  for (const auto& netdev : snap->netdevs) {
    INFO(netdev.name);
    if (netdev.name == "ens1f1np1") CHECK(netdev.pfc_prevention_tout_ms == 0);
    if (netdev.name == "ens1f0np0") CHECK(netdev.pfc_prevention_tout_ms == 65535);
    if (netdev.name == "ens2f0np0" || netdev.name == "eth1")
      CHECK_FALSE(netdev.pfc_prevention_tout_ms);
  }
  bool rxe_no_devlink = false;
  for (const auto& status : snap->sources) {
    if (status.source == "devlink" && status.target == "rxe0") {
      rxe_no_devlink = status.state == SourceState::no_data;
    }
  }
  CHECK(rxe_no_devlink);
}
