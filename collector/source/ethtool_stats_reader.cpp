#include "collector/source/ethtool_stats_reader.h"

#include <linux/ethtool.h>

#include <algorithm>
#include <cerrno>

namespace rdmatop {

Result<std::vector<std::string>> decode_ethtool_strings(std::span<const std::uint8_t> data,
                                                        std::uint32_t count) {
  if (data.size() / ETH_GSTRING_LEN < count) {
    return Error{EPROTO, "ethtool strings: " + std::to_string(data.size()) + " bytes cannot hold " +
                             std::to_string(count) + " names"};
  }
  std::vector<std::string> names;
  names.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto slot = data.subspan(std::size_t{i} * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
    // Like ethtool's "%.*s" with ETH_GSTRING_LEN: stop at the first NUL or after 32 bytes.
    const auto end = std::find(slot.begin(), slot.end(), std::uint8_t{0});
    names.emplace_back(slot.begin(), end);
  }
  return names;
}

Result<CounterMap> EthtoolStatsReader::read(const std::string& ifname) {
  return read_impl(ifname, nullptr);
}

Result<CounterMap> EthtoolStatsReader::read(const std::string& ifname,
                                            const std::vector<std::string>& only) {
  return read_impl(ifname, &only);
}

Result<CounterMap> EthtoolStatsReader::read_impl(const std::string& ifname,
                                                 const std::vector<std::string>* only) {
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    auto count = calls_.count(ifname);
    if (!count) {
      cache_.erase(ifname);  // ENODEV: a netdev of that name may come back as another device
      return count.error();
    }
    const std::uint32_t n = *count;
    if (n == 0) {
      cache_.erase(ifname);
      return errno_error(EOPNOTSUPP, "ethtool stats " + ifname + " (the driver reports 0)");
    }

    auto cached = cache_.find(ifname);
    const bool usable = cached != cache_.end() && cached->second.names.size() == n &&
                        cached->second.reads < kRefreshEveryReads;
    if (!usable) {
      auto names = calls_.names(ifname, n);
      if (!names) {
        cache_.erase(ifname);
        if (names.error().code == EFAULT) continue;  // the set grew past our buffer
        return names.error();
      }
      if (names->size() != n) {  // the set changed between GSSET_INFO and GSTRINGS
        cache_.erase(ifname);
        continue;
      }
      // The layouts stay: names fetched again are mostly the same names.
      if (cached == cache_.end()) cached = cache_.try_emplace(ifname).first;
      cached->second.names = std::move(*names);
      cached->second.reads = 0;
      cached->second.subset_of.clear();
      cached->second.subset.clear();
    }

    auto values = calls_.values(ifname, n);
    if (!values || values->size() != n) {
      // Whatever happened, the names can no longer be trusted to pair with the next values.
      cache_.erase(cached);
      if (!values && values.error().code != EFAULT) return values.error();
      continue;  // the set changed between GSTRINGS (or the cached read) and GSTATS
    }

    CachedNames& entry = cached->second;
    ++entry.reads;
    const auto& names = entry.names;
    if (only != nullptr) {
      if (entry.subset_of != *only || entry.reads == 1) {
        entry.subset_of = *only;
        entry.subset.clear();
        for (std::size_t i = 0; i < n; ++i) {
          if (std::binary_search(only->begin(), only->end(), names[i])) entry.subset.push_back(i);
        }
      }
      CounterMapBuilder out(&entry.subset_layout);
      for (const std::size_t i : entry.subset) out.add(names[i], (*values)[i]);
      return std::move(out).finish();
    }
    // Some drivers repeat a name; the first occurrence wins, as a reader of the text would see
    // it first.
    CounterMapBuilder out(&entry.layout);
    for (std::size_t i = 0; i < n; ++i) out.add(names[i], (*values)[i]);
    return std::move(out).finish();
  }
  return errno_error(EAGAIN, "ethtool stats " + ifname + ": the string set changed on each of " +
                                 std::to_string(kMaxAttempts) + " attempts");
}

void EthtoolStatsReader::forget(const std::string& ifname) {
  if (ifname.empty()) {
    cache_.clear();
  } else {
    cache_.erase(ifname);
  }
}

}  // namespace rdmatop
