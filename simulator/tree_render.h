// Prints the host model as the offline input format (tests/fixtures/README.md): a sysfs root
// (`sys/class/infiniband`, `sys/class/net`, `sys/devices/...` with the kernel's symlinks) and
// an `ethtool/` dump directory (`<if>.txt`, `.info`, `.pause`). Pure: model in, file image out.
#pragma once

#include <map>
#include <string>

#include "simulator/host_model.h"

namespace rdmatop::sim {

/// Files and symbolic links relative to the simulator's root, e.g. "sys/class/net/x".
struct TreeImage {
  std::map<std::string, std::string> files;  ///< path -> exact content
  std::map<std::string, std::string> links;  ///< path -> link text (relative, as sysfs has)
};

TreeImage render_host(const HostModel& host);
/// One port's share of the image (its sysfs entries and `ethtool/<if>.*` dumps), as it is now:
/// what the simulated fast path reads between ticks (sim_sources.h).
TreeImage render_port(const PortState& port);

/// A model counter as the driver prints it: truncated to an integer and, for 32-bit hardware
/// counters, modulo 2^32 (mlx5 Q-counters, docs/domain.md#counter-widths;
/// collector/normalize/counter_table.cpp widths).
std::uint64_t printed_value(double total, int width_bits);

}  // namespace rdmatop::sim
