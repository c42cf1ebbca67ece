// The OS boundary for ethtool. The live implementation speaks SIOCETHTOOL (and ethtool
// netlink for the standard pause statistics); the offline one reads `ethtool -S` / `ethtool -i`
// text dumps from a directory (--ethtool-dir), so data captured on another host can be analysed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collector/model/result.h"
#include "collector/model/snapshot.h"

namespace rdmatop {

class EthtoolSource {
 public:
  virtual ~EthtoolSource() = default;
  /// `ethtool -S`: the ETH_SS_STATS strings with their values.
  virtual Result<CounterMap> stats(const std::string& ifname) = 0;
  /// The statistics named in `names` (sorted, unique) only: the PFC fast path's read. The
  /// default reads them all and keeps those; the live source caches their positions
  /// (ethtool_stats_reader.h).
  virtual Result<CounterMap> stats_subset(const std::string& ifname,
                                          const std::vector<std::string>& names);
  /// `ethtool -i`: driver, version, firmware, bus-info.
  virtual Result<DriverInfo> driver_info(const std::string& ifname) = 0;
  /// `ethtool -I -a`: link-level pause settings and, where the kernel has them, statistics.
  virtual Result<PauseInfo> pause(const std::string& ifname) = 0;
  /// `ethtool --get-tunable IF pfc-prevention-tout` (ETHTOOL_GTUNABLE): the PFC storm-prevention
  /// timeout in ms (mlx5; 0 = disabled, 65535 = auto). EOPNOTSUPP where it is not available,
  /// which is the default (offline dumps do not carry it).
  virtual Result<std::uint16_t> pfc_prevention_tout(const std::string& ifname);
  /// Called once at the start of every collection pass, before its reads: the offline source
  /// takes its file cache's change notifications here (FileSource::begin_pass).
  virtual void begin_pass() {}
  /// Human-readable description, for messages ("ioctl", "dir tests/fixtures/x/ethtool").
  virtual std::string describe() const = 0;
};

/// Live: SIOCETHTOOL ioctls in the caller's network namespace.
std::unique_ptr<EthtoolSource> make_ioctl_ethtool_source();
/// Offline: `<dir>/<ifname>` or `<dir>/<ifname>.txt` holds `ethtool -S` output;
/// `<dir>/<ifname>.info` holds `ethtool -i` output; `<dir>/<ifname>.pause` holds `ethtool -I -a`.
/// `plain` opens and reads every file on every call (a tree rewritten behind the reader's back,
/// as the simulator does); `cached` reads through the attribute-file cache
/// (cached_file_source.h), which needs begin_pass() before each pass.
enum class DumpReads { plain, cached };
std::unique_ptr<EthtoolSource> make_dump_ethtool_source(std::string dir,
                                                        DumpReads reads = DumpReads::plain);

}  // namespace rdmatop
