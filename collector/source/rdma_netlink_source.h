// RDMA netlink (NETLINK_RDMA, nldev) as a source: devices, ports, per-port hardware counters,
// optional-counter status, resource summaries and QP counters, one request each. Message
// building/parsing is collector/parse/nldev_parse.h; implementations only move bytes, so the live
// socket and the replay double share every line of protocol handling.
#pragma once

#include <cerrno>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "collector/model/result.h"
#include "collector/model/snapshot.h"
#include "collector/parse/nldev_parse.h"

namespace rdmatop {

class RdmaNetlinkSource {
 public:
  virtual ~RdmaNetlinkSource() = default;
  virtual Result<std::vector<NldevDevice>> devices() = 0;
  virtual Result<std::vector<NldevPort>> ports(std::uint32_t dev_index) = 0;
  /// The port's hardware counters: the same raw names and values as sysfs hw_counters/, plus
  /// enabled optional counters (which sysfs never shows).
  virtual Result<CounterMap> port_counters(std::uint32_t dev_index, std::uint32_t port) = 0;
  virtual Result<std::vector<NldevCounterStatus>> counter_status(std::uint32_t dev_index,
                                                                 std::uint32_t port) = 0;
  virtual Result<std::vector<NldevResources>> resources() = 0;
  /// The owner of every object of `kind` on one device (`rdma resource show qp` and friends).
  virtual Result<std::vector<NldevResOwner>> resource_owners(NldevResKind kind,
                                                             std::uint32_t dev_index) = 0;
  /// The port's QP counter mode (`rdma statistic qp mode`).
  virtual Result<NldevQpCounterMode> qp_counter_mode(std::uint32_t dev_index,
                                                     std::uint32_t port) = 0;
  /// The counters bound to QPs of the port (`rdma statistic qp show`).
  virtual Result<std::vector<NldevBoundCounter>> bound_counters(std::uint32_t dev_index,
                                                                std::uint32_t port) = 0;
  /// Binds QP `qpn` to a new counter of its own (`rdma statistic qp bind`): the one request
  /// that changes kernel state, made by the prober for its own QPs. Sources that only read
  /// (simulator, counting doubles) keep this default.
  virtual Result<NldevQpCounterBinding> bind_qp_counter(std::uint32_t /*dev_index*/,
                                                        std::uint32_t /*port*/,
                                                        std::uint32_t /*qpn*/) {
    return Error{EOPNOTSUPP, "this RDMA netlink source cannot bind QP counters"};
  }
};

/// The live kernel: one NETLINK_RDMA socket in the caller's network namespace. Never fails to
/// construct; a socket that cannot be opened makes every call return that error.
std::unique_ptr<RdmaNetlinkSource> make_live_rdma_netlink_source();

/// Recorded replies by request: the key is the request bytes as the build_*_request functions
/// make them with seq 0; the value is the whole reply (datagrams concatenated).
using NetlinkRecording = std::map<std::vector<std::uint8_t>, std::vector<std::uint8_t>>;

/// Test double: answers each request with its recorded reply, every message's sequence number
/// set to the request's. A request without a recording fails with ENODATA.
std::unique_ptr<RdmaNetlinkSource> make_replay_rdma_netlink_source(NetlinkRecording recording);

}  // namespace rdmatop
