// Port-level retransmit attribution for probe streams. Per-QP counters (RDMA netlink counter
// binding) are not available on every driver (rxe has none), so a probe stream is credited with
// its RDMA port's retransmit evidence over the stream's life, labelled scope "port": it also
// counts every other QP's retransmits on that port. The counters come from the tick's Snapshot
// (the collectors already read them): nothing here does I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "collector/model/snapshot.h"
#include "collector/normalize/series.h"
#include "probes/runner.h"

namespace rdmatop::probes {

/// The port's cumulative retransmit evidence from canonical series: rdma_retransmits_total when
/// the driver has it (rxe's completer_retry_err counts every requester retry, after a timeout or
/// a sequence NAK: rxe_comp.c COMPST_ERROR_RETRY), else the sum of rdma_ack_timeouts_total and
/// rdma_seq_err_naks_total present (mlx5, bnxt_re, irdma: the two causes of a retransmission).
/// nullopt when the port has none of them.
std::optional<std::uint64_t> port_retransmit_evidence(const std::vector<Series>& series,
                                                      const std::string& device,
                                                      std::uint32_t port);

/// The evidence of each of `ports` (every RDMA port of the snapshot when null) found in a
/// tick's Snapshot, for Runner::sample(). Only those ports' device samples are normalized, so a
/// pingmesh on a host with many ports costs little per tick. Ports without evidence are left
/// out (unknown, not zero).
PortRetransmits port_retransmits(const Snapshot& snapshot,
                                 const std::set<PortKey>* ports = nullptr);

}  // namespace rdmatop::probes
