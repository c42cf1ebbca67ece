// Parsers for the text that the ethtool command prints, used for offline analysis
// (--ethtool-dir) and to cross-check the live ioctl path in tests. Pure functions.
#pragma once

#include <string_view>

#include "collector/model/result.h"
#include "collector/model/snapshot.h"

namespace rdmatop {

/// `ethtool -S IF`: an optional "NIC statistics:" header, then "     name: value" lines.
/// Names are opaque (may contain spaces, dots, brackets); the value is the text after the LAST
/// ": " on the line. Errors (with the 1-based line number) on a truncated or malformed dump.
/// `layout`: the interface's names from its last dump (CounterLayout), so a dump listing the
/// same names builds its map without allocating a name; updated by a dump that parses.
Result<CounterMap> parse_ethtool_stats_text(std::string_view text, CounterLayout* layout = nullptr);

/// `ethtool -i IF`: "driver: ...", "version: ...", "firmware-version: ...", "bus-info: ...".
Result<DriverInfo> parse_ethtool_driver_info_text(std::string_view text);

/// `ethtool -a IF` or `ethtool -I -a IF`: Autonegotiate/RX/TX on|off and, with -I,
/// "Statistics:" with tx_pause_frames / rx_pause_frames.
Result<PauseInfo> parse_ethtool_pause_text(std::string_view text);

}  // namespace rdmatop
