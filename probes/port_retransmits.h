// Port-level retransmit attribution for probe streams. Per-QP counters (RDMA netlink counter
// binding) are not available on every driver (rxe has none), so a probe stream is credited with
// its RDMA port's retransmit evidence over the stream's life, labelled scope "port": it also
// counts every other QP's retransmits on that port.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collector/collect.h"
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

/// A reader that collects the device's sysfs counters through the collector (`ctx.sysfs`, which
/// must outlive the reader) and applies port_retransmit_evidence.
RetransmitReader port_retransmit_reader(const CollectContext& ctx);

}  // namespace rdmatop::probes
