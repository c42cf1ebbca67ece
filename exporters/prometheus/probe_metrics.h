// The active prober's series as Prometheus metric families: counters and gauges as they are,
// and the RTT histogram's _bucket/_sum/_count series folded back into one real histogram per
// stream (TYPE histogram), so Prometheus' histogram_quantile works on it.
#pragma once

#include <prometheus/metric_family.h>
#include <vector>

#include "pipeline/tick.h"

namespace rdmatop {

/// Metric families of `report.probe_series`, sorted by name. Empty when no prober runs.
std::vector<prometheus::MetricFamily> probe_metric_families(const PublishedTick& report);

/// Merges `more` into `families`, keeping them sorted by name (both are sorted on input).
void merge_metric_families(std::vector<prometheus::MetricFamily>& families,
                           std::vector<prometheus::MetricFamily> more);

}  // namespace rdmatop
