#include "recording/recording_provider.h"

#include <utility>

namespace rdmatop {

SnapshotProvider recording_provider(std::shared_ptr<RecordingSet> recording,
                                    RecordingWindow window) {
  return [recording = std::move(recording),
          window = std::move(window)](std::uint64_t /*seq*/) -> std::optional<Snapshot> {
    while (auto snapshot = recording->next()) {
      if (window.from && is_before(*snapshot, *window.from)) continue;
      if (window.to && is_after(*snapshot, *window.to)) return std::nullopt;
      return snapshot;
    }
    return std::nullopt;
  };
}

}  // namespace rdmatop
