// The report's "fast path" section: which ports the PFC fast path watched during the report's
// interval, by which measure (pause-duration counters, or frames x quanta as an estimate), how
// many counters it read per poll, and for the others why it could not run there. Shown only when
// the fast path was on.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pipeline/tick.h"

namespace rdmatop {

/// "" when the fast path was off.
std::string render_fast_path_text(const PublishedTick& report);
/// null when the fast path was off.
nlohmann::ordered_json render_fast_path_json(const PublishedTick& report);

}  // namespace rdmatop
