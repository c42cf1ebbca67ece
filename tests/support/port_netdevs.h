// A snapshot whose RDMA ports name given netdevs: what collect_rdma_sysfs leaves behind for the
// netdev collector, for its tests and its benchmark.
#pragma once

#include <string>
#include <vector>

#include "collector/model/snapshot.h"

namespace rdmatop::testing {

/// One device, "mlx5_0", with a port per name (ports 1, 2, ...); an empty name is a port
/// without a netdev.
inline Snapshot with_port_netdevs(const std::vector<std::string>& netdevs) {
  Snapshot snap;
  DeviceSample dev;
  dev.name = "mlx5_0";
  std::uint32_t port = 1;
  for (const auto& name : netdevs) {
    PortSample p;
    p.port = port++;
    p.netdev = name;
    dev.ports.push_back(p);
  }
  snap.devices.push_back(dev);
  return snap;
}

}  // namespace rdmatop::testing
