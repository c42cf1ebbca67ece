// The report's "QP counters" section: per port its QP counter mode (`rdma statistic qp mode`)
// and the counters bound to its QPs (`rdma statistic qp show`) with their QPs, owner and key
// error counters, plus a line for a driver that cannot bind counters at all
// (docs/report-format.md). Empty when no port's QP counters were read (not the live host).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "pipeline/tick.h"

namespace rdmatop {

/// Empty when nothing was read.
std::string render_qp_counter_text(const PublishedTick& report);
/// nullopt when nothing was read, so reports without RDMA netlink keep their shape.
std::optional<nlohmann::ordered_json> render_qp_counter_json(const PublishedTick& report);

}  // namespace rdmatop
