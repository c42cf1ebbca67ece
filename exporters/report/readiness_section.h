// The report's "host readiness" section: per PCI RDMA device, its NUMA node and the interrupt
// counts and rates of its MSI/MSI-X vectors; the processes holding RDMA objects with their
// memlock limit, pinned memory and NUMA placement (docs/report-format.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pipeline/tick.h"

namespace rdmatop {

std::string render_readiness_text(const PublishedTick& report);
nlohmann::ordered_json render_readiness_json(const PublishedTick& report);

}  // namespace rdmatop
