// JSON of the host configuration model (host_config.h), shared by the recording format and
// `rdmatop report --json`: the same field names in both (docs/recording.md,
// docs/report-format.md). Absent optionals are null; absent objects (no devlink instance, no
// DCB data) are null.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "collector/model/host_config.h"

namespace rdmatop {

nlohmann::ordered_json devlink_json(const std::optional<DevlinkInfo>& info);
nlohmann::ordered_json dcb_json(const std::optional<DcbInfo>& dcb);
nlohmann::ordered_json irqs_json(const std::vector<IrqSample>& irqs);
nlohmann::ordered_json rdma_process_json(const RdmaProcess& process);

}  // namespace rdmatop
