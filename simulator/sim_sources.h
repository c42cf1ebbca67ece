// The simulated host's non-file sources, for the collectors that do not read the tree: devlink
// (generic netlink), RDMA netlink (the resource dumps naming the processes that hold RDMA
// objects, QP counters) and the ethtool PFC storm-prevention tunable (an ioctl). Each answers from
// the host model through the same interface and, for devlink, the same parser as the live
// host: the devlink source renders the kernel's reply bytes (devlink_render.h) and parses them
// with collector/parse/devlink_parse.h, so nothing is put into the Snapshot directly.
#pragma once

#include <memory>

#include "collector/source/dcbnl_source.h"
#include "collector/source/devlink_source.h"
#include "collector/source/ethtool_source.h"
#include "collector/source/rdma_netlink_source.h"
#include "simulator/host_model.h"

namespace rdmatop::sim {

/// devlink of `host` (which must outlive the source), read at each call.
std::unique_ptr<DevlinkSource> make_simulated_devlink_source(const HostModel& host);

/// IEEE DCB of `host` (which must outlive the source): the kernel's DCB_CMD_IEEE_GET reply bytes
/// (dcb_render.h) through the collector's parser; EOPNOTSUPP for netdevs without dcbnl_ops.
std::unique_ptr<DcbSource> make_simulated_dcb_source(const HostModel& host);

/// RDMA netlink of `host` (which must outlive the source) as it is at each call: the kernel's
/// reply bytes (nldev_render.h), rendered again whenever simulated time has moved (bound
/// counters advance with the port's counters), served by the replay source, so the requests,
/// the replies and their parsing are the live client's (rdma_netlink_source.h).
std::unique_ptr<RdmaNetlinkSource> make_simulated_rdma_netlink_source(const HostModel& host);

/// `files` (the tree's ethtool dumps) plus the pfc-prevention-tout tunable of the simulated
/// mlx5 netdevs; other netdevs answer EOPNOTSUPP, as drivers without the tunable do.
std::unique_ptr<EthtoolSource> make_simulated_ethtool_source(std::unique_ptr<EthtoolSource> files,
                                                             const HostModel& host);

/// The ethtool statistics of the simulated host as they are at this simulated instant, between
/// ticks too: each read renders the port's `ethtool -S` text from the model and parses it with
/// the dump parser (so the fast path reads exactly what the tree would hold). Everything but
/// stats() is EOPNOTSUPP: the fast path reads nothing else.
std::unique_ptr<EthtoolSource> make_simulated_live_ethtool_source(const HostModel& host);

}  // namespace rdmatop::sim
