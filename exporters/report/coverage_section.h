// The report's "coverage" section: which rules could not evaluate on this host and why. A rule
// over a series no driver here provides stays silent, and the person reading the report must
// know that silence from it is not health (docs/rules.md, "Coverage").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pipeline/tick.h"

namespace rdmatop {

/// Why no series named `metric` exists on the host of `snapshot`, in one sentence: no driver
/// here has such a counter (and which drivers do), the counter exists for this driver but was
/// not found in what was read, or the source that derives it was not read.
std::string explain_missing_metric(const std::string& metric, const Snapshot& snapshot);

std::string render_coverage_text(const PublishedTick& report);
nlohmann::ordered_json render_coverage_json(const PublishedTick& report);

}  // namespace rdmatop
