// Pingmesh glue for the long-running surfaces: expands targets into probe streams, reloads the
// target file when it changes, and wraps a snapshot provider so every Snapshot carries the
// prober's results (`probes`, `prober`) like any other source.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collector/model/snapshot.h"
#include "collector/snapshot_provider.h"
#include "probes/runner.h"
#include "probes/targets.h"

namespace rdmatop::probes {

/// One stream per (transport, traffic class) of each target: the target's own lists when it
/// has them (YAML groups), else `kinds` and `traffic_class`.
std::vector<StreamSpec> expand_streams(const std::vector<TargetSpec>& targets,
                                       const std::vector<TransportKind>& kinds,
                                       std::optional<std::uint32_t> traffic_class);

/// Keeps a runner's streams in step with a target file. A malformed entry is reported and
/// skipped; an unreadable file keeps the previous streams.
class TargetReloader {
 public:
  using ErrorSink = std::function<void(const std::string&)>;
  TargetReloader(std::string path, std::vector<TransportKind> kinds,
                 std::optional<std::uint32_t> traffic_class, std::shared_ptr<Runner> runner,
                 ErrorSink on_error);
  /// Re-reads the file if it changed and applies it; true when the streams were replaced.
  bool poll();

 private:
  TargetFile file_;
  std::vector<TransportKind> kinds_;
  std::optional<std::uint32_t> traffic_class_;
  std::shared_ptr<Runner> runner_;
  ErrorSink on_error_;
};

/// The collectors' SnapshotProvider (collector/snapshot_provider.h), under the name this file
/// has always used.
using SnapshotSource = SnapshotProvider;

/// Each snapshot from `inner` gets the runner's sample (after `reloader` polled its file, when
/// given), with the probed ports' retransmit counters taken from that same snapshot. The runner
/// and reloader live as long as the returned provider.
SnapshotSource with_probes(SnapshotSource inner, std::shared_ptr<Runner> runner,
                           std::shared_ptr<TargetReloader> reloader = nullptr);

}  // namespace rdmatop::probes
