// The probes section of the report (text and JSON), over the probe stream view the TUI
// shares (pipeline/probe_streams.h).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/probe_streams.h"
#include "pipeline/tick.h"

namespace rdmatop {

/// The PROBES section of the text report ("" when no prober ran).
std::string render_probe_section_text(const PublishedTick& report);
/// The "probes" member of the JSON report (docs/report-format.md).
nlohmann::ordered_json probe_section_json(const PublishedTick& report);

}  // namespace rdmatop
