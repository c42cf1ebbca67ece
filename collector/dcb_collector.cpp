// collect_dcb: IEEE DCB state (PFC per priority, ETS, APP table, trust order) of every netdev
// backing an RDMA port, by rtnetlink dcbnl. One status "dcb"/<ifname> each: EOPNOTSUPP (a
// netdev without dcbnl_ops: veth, virtio, most software devices) is no_data, other failures
// are errors.
#include <cerrno>

#include "collector/collect.h"

namespace rdmatop {

void collect_dcb(const CollectContext& ctx, Snapshot& out) {
  if (ctx.dcb == nullptr) return;
  for (auto& netdev : out.netdevs) {
    StatusTimer timer("dcb", netdev.name);
    auto info = ctx.dcb->ieee(netdev.name);
    if (info) {
      netdev.dcb = std::move(info).value();
      out.sources.push_back(timer.finish(SourceState::ok));
    } else if (info.error().code == EOPNOTSUPP) {
      out.sources.push_back(
          timer.finish(SourceState::no_data, "no DCB support: " + info.error().message));
    } else {
      out.sources.push_back(timer.finish(SourceState::error, info.error().message));
    }
  }
}

}  // namespace rdmatop
