// The facts `rdma statistic` gives, shared by its renderings (parse_rdma_statistic.cpp: the
// plain "link DEV/PORT name value ..." lines; parse_rdma_statistic_json.cpp: -j / -p). iproute2
// rdma/stat.c stat_show_parse_cb prints every STAT_HWCOUNTER_ENTRY of the port under the
// driver's own name (res_get_hwcounters), the names sysfs gives the files of hw_counters/.
#pragma once

#include <cstdint>
#include <string_view>

#include "collector/capture/capture_facts.h"

namespace rdmatop::capture {

/// Files one counter of DEV/PORT as hw_counters/<name>. False (nothing filed) when the name is
/// no file name or the value no decimal counter (a value a cut paste lost).
bool put_rdma_hw_counter(Facts& facts, std::string_view dev, std::uint32_t port,
                         std::string_view name, std::string_view value);

}  // namespace rdmatop::capture
