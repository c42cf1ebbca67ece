// Why a series a rule needs is missing on a host, in one sentence: the report's coverage
// section (text and JSON) and the TUI's rule screen both say it, in the same words.
#pragma once

#include <string>

#include "collector/model/snapshot.h"

namespace rdmatop {

/// Why no series named `metric` exists on the host of `snapshot`, in one sentence: no driver
/// here has such a counter (and which drivers do), the counter exists for this driver but was
/// not found in what was read, or the source that derives it was not read.
std::string explain_missing_metric(const std::string& metric, const Snapshot& snapshot);

}  // namespace rdmatop
