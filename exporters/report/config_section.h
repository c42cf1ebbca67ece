// The report's "RoCE configuration" section: per port, the netdev's DCB state (PFC per
// priority, ETS, DSCP->priority map, trust order), the PFC storm-prevention timeout and
// link-level pause; per device, devlink firmware versions and health reporters. Text and JSON
// (docs/report-format.md). Absent data is printed as "-" / null with no guessing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pipeline/tick.h"

namespace rdmatop {

std::string render_config_text(const PublishedTick& report);
nlohmann::ordered_json render_config_json(const PublishedTick& report);

}  // namespace rdmatop
