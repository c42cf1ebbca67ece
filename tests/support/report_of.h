// A report and the exporter's text exposition of one hand-built Snapshot, for tests of the
// report sections and the series served for them.
#pragma once

#include <prometheus/text_serializer.h>

#include <memory>
#include <string>
#include <utility>

#include "collector/model/snapshot.h"
#include "exporters/prometheus/metrics_collectable.h"
#include "pipeline/tick.h"

namespace rdmatop::test {

/// The report of a single tick (no previous one, so no rates).
inline PublishedTick report_of(Snapshot s) {
  return build_tick(nullptr, make_observation(std::move(s)));
}

/// What the exporter serves after one poll of `s`, in the Prometheus text format.
inline std::string exposition_of(Snapshot s) {
  ExporterView view;
  view.report = std::make_shared<const PublishedTick>(report_of(std::move(s)));
  view.poll.polls = 1;
  return prometheus::TextSerializer().Serialize(build_metric_families(view, MetricsOptions{}));
}

}  // namespace rdmatop::test
