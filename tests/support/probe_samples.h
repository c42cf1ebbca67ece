// Hand-built probe samples for the tests of the probe surfaces (normalizer, exporter, report,
// TUI): one stream with a small histogram, filled like the prober fills it.
#pragma once

#include <cstdint>
#include <string>

#include "collector/model/snapshot.h"

namespace rdmatop::test {

/// A stream with `answered` of `sent` probes answered; the histogram's three buckets (10 µs,
/// 100 µs, 1 ms) hold 50%, 90% and 100% of the answers.
inline ProbeTargetSample probe_stream(std::string target, std::string transport, std::uint64_t sent,
                                      std::uint64_t answered) {
  ProbeTargetSample p;
  p.target = std::move(target);
  p.transport = std::move(transport);
  p.local_device = p.transport == "tcp" ? "" : "mlx5_0";
  p.connected = true;
  p.sent = sent;
  p.answered = answered;
  p.timed_out = sent - answered;
  p.bucket_upper_seconds = {1e-5, 1e-4, 1e-3};
  p.bucket_counts = {answered / 2, answered * 9 / 10, answered};
  p.rtt_sum_seconds = static_cast<double>(answered) * 2e-5;
  return p;
}

}  // namespace rdmatop::test
