// devlink as a source: the instances (`devlink dev info`) and their health reporters
// (`devlink health show`), each one dump over generic netlink. Message building and parsing is
// collector/parse/devlink_parse.h; the live implementation only moves bytes.
#pragma once

#include <memory>
#include <vector>

#include "collector/model/host_config.h"
#include "collector/model/result.h"
#include "collector/parse/devlink_parse.h"

namespace rdmatop {

class DevlinkSource {
 public:
  virtual ~DevlinkSource() = default;
  /// Every devlink instance with driver, serials and versions (no reporters). Errors: ENOENT
  /// when the kernel has no "devlink" family; otherwise the kernel's errno.
  virtual Result<std::vector<DevlinkInfo>> info() = 0;
  /// Every health reporter of every instance (and port).
  virtual Result<std::vector<DevlinkReporterEntry>> health() = 0;
};

/// The live kernel, over NETLINK_GENERIC in the caller's network namespace. The family id is
/// resolved on first use. Never fails to construct; a socket that cannot be opened makes every
/// call return that error.
std::unique_ptr<DevlinkSource> make_live_devlink_source();

}  // namespace rdmatop
