// The `ethtool -S` sequence (string count, names, values) with a per-interface cache of the
// names and a guard against the string set changing under us. The three kernel calls are behind
// EthtoolStatsCalls so the sequencing can be tested without a kernel; the live calls
// (SIOCETHTOOL) are in ethtool_ioctl_source.cpp.
//
// Why the guard: the ETH_SS_STATS set changes at runtime. mlx5 adds/removes
// rx_prio<p>_pause* when PFC is reconfigured, and many drivers (veth included) emit per-queue
// counters, so a channel-count change resizes the set. Between the calls the kernel holds no
// lock, so names and values can disagree. Older kernels answer GSTRINGS/GSTATS with the count
// they have *now*, ignoring the count in the request, and write past a buffer sized for the old
// count [src: torvalds/linux net/ethtool/ioctl.c ethtool_get_strings/ethtool_get_stats];
// kernels with commit 7b07be1ff1cb ("ethtool: Avoid overflowing userspace buffer on stats
// query", 6.19, backported to stable) answer a count mismatch with len/n_stats = 0 instead.
// Both show up here as a result whose size differs from the count we asked for.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "collector/model/result.h"
#include "collector/model/snapshot.h"

namespace rdmatop {

/// The three kernel calls behind `ethtool -S`. Implementations report what the kernel returned:
/// a result whose size differs from `expected` (shorter, or empty on kernels that refuse a
/// mismatched count) means the set changed; Error{EFAULT} means it grew past the buffer sized
/// for `expected` (older kernels).
class EthtoolStatsCalls {
 public:
  virtual ~EthtoolStatsCalls() = default;
  /// ETHTOOL_GSSET_INFO for ETH_SS_STATS (GDRVINFO.n_stats on old kernels).
  /// Error{EOPNOTSUPP} when the driver has no statistics.
  virtual Result<std::uint32_t> count(const std::string& ifname) = 0;
  /// ETHTOOL_GSTRINGS for ETH_SS_STATS with room for `expected` names.
  virtual Result<std::vector<std::string>> names(const std::string& ifname,
                                                 std::uint32_t expected) = 0;
  /// ETHTOOL_GSTATS with room for `expected` values.
  virtual Result<std::vector<std::uint64_t>> values(const std::string& ifname,
                                                    std::uint32_t expected) = 0;
};

/// The live calls: SIOCETHTOOL on a socket of the caller's network namespace. Each reply buffer
/// ends at an inaccessible page, so an older kernel's reply for a set that grew fails with EFAULT
/// instead of writing past the buffer. Defined in ethtool_ioctl_source.cpp.
std::unique_ptr<EthtoolStatsCalls> make_ioctl_ethtool_stats_calls();

/// Runs the sequence; owns the name cache. Not thread-safe (one per source object).
class EthtoolStatsReader {
 public:
  /// Attempts per read() when the set keeps changing between the calls.
  static constexpr int kMaxAttempts = 4;
  /// The cache is keyed by the count, but a reconfiguration can swap names at the same count
  /// (PFC moved from priority 3 to 4 keeps the number of rx_prio*_pause strings). Re-reading
  /// the names every this-many reads bounds how long such a swap can mislabel values.
  static constexpr unsigned kRefreshEveryReads = 10;

  explicit EthtoolStatsReader(EthtoolStatsCalls& calls) : calls_(calls) {}

  /// Names → values for `ifname`. Errors carry the kernel's errno (ENODEV: the netdev vanished;
  /// EOPNOTSUPP: no statistics), or EAGAIN when the set changed on every attempt.
  Result<CounterMap> read(const std::string& ifname);

  /// The same read, keeping only the strings named in `only` (sorted, unique): the PFC fast
  /// path. The positions of those names are cached with the names, so a read is GSSET_INFO +
  /// GSTATS and a pick of a few values, GSTRINGS only when the names are (re)fetched.
  Result<CounterMap> read(const std::string& ifname, const std::vector<std::string>& only);

  /// Drops the cached names of `ifname` (or of every interface when empty).
  void forget(const std::string& ifname = {});

 private:
  struct CachedNames {
    std::vector<std::string> names;
    unsigned reads = 0;                  ///< reads served from these names since they were fetched
    std::vector<std::string> subset_of;  ///< the `only` list `subset` was computed for
    std::vector<std::size_t> subset;     ///< positions of its names in `names`
    CounterLayout layout;                ///< the names' sorted map, kept between reads
    CounterLayout subset_layout;         ///< the same for `subset`
  };
  Result<CounterMap> read_impl(const std::string& ifname, const std::vector<std::string>* only);

  EthtoolStatsCalls& calls_;
  std::map<std::string, CachedNames, std::less<>> cache_;
};

/// Decodes the data area of an ETHTOOL_GSTRINGS reply: `count` names of ETH_GSTRING_LEN (32)
/// bytes each, NUL-padded; a name of exactly 32 characters has no NUL. Error{EPROTO} when
/// `data` is shorter than count * 32.
Result<std::vector<std::string>> decode_ethtool_strings(std::span<const std::uint8_t> data,
                                                        std::uint32_t count);

}  // namespace rdmatop
