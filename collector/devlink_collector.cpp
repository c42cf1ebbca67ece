// collect_devlink: firmware versions and health reporters of the RDMA devices' devlink
// instances, matched by PCI address (devlink names a PCI instance "pci/<address>", the same
// address as the RDMA device's `device` link).
//
// Statuses: "devlink" (host-wide, the INFO_GET dump), "devlink-health" (host-wide, the
// HEALTH_REPORTER_GET dump) and "devlink"/<device> per RDMA device:
//  * no "devlink" family (ENOENT), EOPNOTSUPP, EPERM → no_data with the reason: the subsystem is
//    absent or closed here, nothing is wrong with the host;
//  * a device without an instance (rxe and other virtual devices, or a driver without devlink)
//    → no_data for that device;
//  * anything else → error.
#include <algorithm>
#include <cerrno>
#include <string>

#include "collector/collect.h"

namespace rdmatop {
namespace {

SourceState state_for(const Error& e) {
  return e.code == ENOENT || e.code == EOPNOTSUPP || e.code == EPERM ? SourceState::no_data
                                                                     : SourceState::error;
}

std::string reason(const Error& e) {
  if (e.code == ENOENT) return "no devlink in this kernel (" + e.message + ")";
  return e.message;
}

}  // namespace

void collect_devlink(const CollectContext& ctx, Snapshot& out) {
  if (ctx.devlink == nullptr) return;
  StatusTimer info_timer("devlink", "");
  auto instances = ctx.devlink->info();
  if (!instances) {
    out.sources.push_back(
        info_timer.finish(state_for(instances.error()), reason(instances.error())));
    return;
  }
  out.sources.push_back(info_timer.finish(SourceState::ok));

  StatusTimer health_timer("devlink-health", "");
  auto reporters = ctx.devlink->health();
  if (reporters) {
    out.sources.push_back(health_timer.finish(SourceState::ok));
  } else {
    out.sources.push_back(
        health_timer.finish(state_for(reporters.error()), reason(reporters.error())));
  }

  for (auto& device : out.devices) {
    StatusTimer timer("devlink", device.name);
    const auto it = std::find_if(instances->begin(), instances->end(), [&](const DevlinkInfo& d) {
      return d.bus_name == "pci" && !device.pci_address.empty() && d.dev_name == device.pci_address;
    });
    if (it == instances->end()) {
      out.sources.push_back(timer.finish(SourceState::no_data,
                                         device.pci_address.empty()
                                             ? "virtual device: no devlink instance"
                                             : "no devlink instance pci/" + device.pci_address));
      continue;
    }
    DevlinkInfo info = *it;
    if (reporters) {
      for (const auto& r : *reporters) {
        if (r.bus_name == info.bus_name && r.dev_name == info.dev_name) {
          info.reporters.push_back(r.reporter);
        }
      }
    }
    device.devlink = std::move(info);
    out.sources.push_back(timer.finish(SourceState::ok));
  }
}

}  // namespace rdmatop
