// What `devlink dev info` and `devlink health show` print, shared by their parsers
// (parse_devlink_info.cpp, parse_devlink_health.cpp). iproute2 devlink/devlink.c prints each
// instance under its handle, "BUS/DEV:" (__pr_out_handle_start), a port's reporters under
// "BUS/DEV/PORT:" (pr_out_port_handle_start_arr); -j nests the same under "info" / "health".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "collector/capture/capture_facts.h"

namespace rdmatop::capture {

/// "pci/0000:08:00.0:" -> "pci/0000:08:00.0", "pci/0000:00:0a.0/1:" -> "pci/0000:00:0a.0/1"
/// (leading blanks allowed: mlx5.rst indents its example); none for any other line.
std::optional<std::string> parse_devlink_handle_line(std::string_view line);

/// A handle as -j prints it ("pci/0000:08:00.0", "pci/0000:00:0a.0/1"): bus, device, and
/// whether it names a port; none when it is not one.
struct DevlinkHandle {
  std::string bus;
  std::string dev;
  bool port = false;
};
std::optional<DevlinkHandle> parse_devlink_handle(std::string_view handle);

/// The facts of one handle, its bus and device names set (a port handle's are its instance's).
DevlinkInfo& devlink_facts(Facts& facts, std::string_view handle);

}  // namespace rdmatop::capture
