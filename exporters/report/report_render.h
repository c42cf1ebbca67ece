// Renders a PublishedTick as readable text or as the versioned JSON document
// (docs/report-format.md).
#pragma once

#include <string>

#include "pipeline/tick.h"

namespace rdmatop {

/// The JSON document's format name and version; bump the version on incompatible changes.
inline constexpr const char* kReportFormat = "rdmatop.report";
inline constexpr int kReportFormatVersion = 1;

std::string render_report_text(const PublishedTick& report);
/// Pretty-printed JSON (2-space indent), keys in a stable order, newline-terminated.
std::string render_report_json(const PublishedTick& report);

}  // namespace rdmatop
