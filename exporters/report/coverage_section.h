// The report's "coverage" section: which rules could not evaluate on this host and why. A rule
// over a series no driver here provides stays silent, and the person reading the report must
// know that silence from it is not health (docs/rules.md, "Coverage").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pipeline/tick.h"
#include "present/missing_metric.h"

namespace rdmatop {

std::string render_coverage_text(const PublishedTick& report);
nlohmann::ordered_json render_coverage_json(const PublishedTick& report);

}  // namespace rdmatop
