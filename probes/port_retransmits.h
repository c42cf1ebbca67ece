// Retransmit evidence for probe streams, from the tick's Snapshot (the collectors already read
// the counters): nothing here does I/O. Per QP: the bound counters (PortSample::bound_counters,
// `rdma statistic qp show`) holding a probe QP, which exist where the driver binds QP counters
// (mlx5; qp_counter_binding.h binds them). Per port: the port's evidence over the stream's
// life, labelled scope "port", for the drivers that cannot (rxe); it also counts every other
// QP's retransmits on that port.
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

/// The retransmit evidence of every bound counter on `ports` (every RDMA port when null), by
/// each QP it holds: the same canonical series as port_retransmit_evidence, computed from the
/// counter's hw_counters (same raw names as the port's: nldev.c fill_res_counter_entry). QPs
/// of counters without evidence are left out.
QpRetransmits qp_retransmits(const Snapshot& snapshot, const std::set<PortKey>* ports = nullptr);

}  // namespace rdmatop::probes
