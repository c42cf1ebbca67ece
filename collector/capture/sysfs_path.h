// Where a pasted sysfs path puts its value (shared by the sysfs-values and ttar parsers).
#pragma once

#include <string>
#include <string_view>

#include "collector/capture/capture_facts.h"

namespace rdmatop::capture {

/// Files `value` under the object `path` names: ".../infiniband/<dev>/<rel>" (any prefix:
/// /sys/class/, /sys/devices/.../, a ttar's "sys/class/") goes to the device, and
/// "ports/<n>/<rel>" to its port; ".../net/<if>/<rel>" to the netdev. A `path` ending in "/"
/// records a directory the paste shows (a ttar "Directory:"). False when it names neither.
bool put_sysfs_value(std::string_view path, std::string value, Facts& facts);

}  // namespace rdmatop::capture
