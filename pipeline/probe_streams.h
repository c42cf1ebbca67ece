// The view of Snapshot::probes that the report's probes section (text and JSON) and the TUI's
// probe panel share: per stream its window RTTs, loss over the interval, errors, retransmits,
// and the TCP baseline of the same target next to each RDMA stream. Pure, built from one
// published tick, so every surface shows the same figures.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pipeline/tick.h"

namespace rdmatop {

struct ProbeStreamView {
  const ProbeTargetSample* sample = nullptr;  ///< into PublishedTick::snapshot.probes
  Rate sent_rate;                             ///< probes per second over the interval
  Rate timeout_rate;
  Rate retransmit_rate;  ///< state init when the stream has no retransmit count
  /// Timed-out share of the probes sent in the interval; none when no rate (first sample,
  /// reset) or nothing was sent.
  std::optional<double> interval_loss;
  /// The TCP stream to the same target (for RDMA streams); nullptr when there is none.
  const ProbeTargetSample* tcp_baseline = nullptr;
};

/// One view per probe stream, in Snapshot::probes order (target, transport, traffic class).
std::vector<ProbeStreamView> probe_stream_views(const PublishedTick& report);

/// Loss to show: over the interval when known, else since the prober started; none when
/// nothing was ever sent.
std::optional<double> shown_loss(const ProbeStreamView& view);

/// The stream's window p50 as a multiple of its TCP baseline's; none without both windows.
std::optional<double> p50_vs_tcp(const ProbeStreamView& view);

/// "rc_send tc=106", "tcp": a stream's transport and traffic class.
std::string stream_name(const ProbeTargetSample& sample);

}  // namespace rdmatop
