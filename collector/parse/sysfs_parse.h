// Pure parsers for the attribute files of /sys/class/infiniband and /sys/class/net.
// Formats are the kernel's printf strings (drivers/infiniband/core/sysfs.c, net/core/net-sysfs.c;
// docs/domain.md#sysfs-formats). Every parser takes the file's bytes exactly as read
// and returns a clear Error (code 0, the offending text escaped and truncated) on anything else:
// the bytes come from the kernel, a fixture tree or a simulator, and none of them is trusted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "collector/model/result.h"

namespace rdmatop {

/// Longest attribute text the parsers accept. sysfs attributes are at most PAGE_SIZE; anything
/// longer did not come from a sysfs show() function.
inline constexpr std::size_t max_attribute_size = 4096;

/// Printable, quoted, length-limited rendering of untrusted bytes for error messages:
/// printable ASCII is kept, `"` and `\` are escaped, every other byte becomes \n, \t, \r or
/// \xNN; text longer than `max_bytes` is cut and marked "...(N bytes)".
std::string escape_for_message(std::string_view text, std::size_t max_bytes = 40);

/// Strips leading and trailing ASCII whitespace (sysfs adds "\n"; rxe's fw_ver is just "\n").
std::string_view trim_attribute(std::string_view text);

/// A free-text attribute (fw_ver, board_id, hca_type, link_layer, operstate, a netdev name):
/// trimmed; rejected if longer than max_attribute_size, not valid UTF-8, or containing control
/// characters (NUL included). Empty after trimming is valid (rxe fw_ver).
Result<std::string> parse_text_attribute(std::string_view text);

/// A counter file: "%llu\n" (hw_counters, counters/, statistics/*). Only trailing whitespace is
/// tolerated around the digits; empty, signed, non-decimal and > UINT64_MAX values are errors.
Result<std::uint64_t> parse_counter_value(std::string_view text);

/// A signed decimal attribute: "%d\n" (class/net speed prints -1 when unknown).
Result<std::int64_t> parse_signed_value(std::string_view text);

/// A decimal directory entry name with no surrounding text: port numbers ("1") and GID table
/// indices ("1023"). Leading zeros other than "0" itself are rejected (the kernel never makes
/// them, and "01" would alias "1").
Result<std::uint32_t> parse_index_name(std::string_view name);

/// "<id>: <name>", the shape of `state` ("%d: %s"), `phys_state` ("%u: %s") and `node_type`
/// ("%u: %s"). The name may contain spaces ("7: Phy Test", "6: usNIC UDP").
struct IdName {
  std::uint32_t id = 0;
  std::string name;
};

/// Port `state`: "4: ACTIVE"; ids 0..5 are defined, others print "UNKNOWN" (accepted).
Result<IdName> parse_state(std::string_view text);
/// Port `phys_state`: "5: LinkUp", "3: Disabled", "7: Phy Test", "<n>: <unknown>".
Result<IdName> parse_phys_state(std::string_view text);
/// Device `node_type`: "1: CA", "4: RNIC".
Result<IdName> parse_node_type(std::string_view text);

/// Port `rate`: "%d%s Gb/sec (%dX%s)" where %s is "" or ".5" (drivers/infiniband/core/sysfs.c
/// rate_show): "100 Gb/sec (4X EDR)" -> 100.0, "2.5 Gb/sec (1X SDR)" -> 2.5. Returns Gb/s.
Result<double> parse_rate(std::string_view text);

/// A GID as `gids/<i>` prints it ("%pI6": 8 colon-separated groups of exactly 4 hex digits,
/// never compressed), returned in that canonical form, lowercased. Classification (unpopulated,
/// IPv4-mapped, link-local, global) is collector/parse/gid.h `classify_gid`.
Result<std::string> parse_gid(std::string_view text);

/// True for a PCI function address "DDDD:BB:DD.F" (domain may have more than 4 hex digits, as
/// VMD domains do). Used to pick the PCI address out of a sysfs device path.
bool is_pci_address(std::string_view name);

/// True for a name the kernel accepts for a netdev (net/core/dev.c dev_valid_name): 1..15
/// bytes, not "." or "..", no '/', ':' or whitespace. Names read from sysfs are checked before
/// they become part of a path.
bool is_valid_netdev_name(std::string_view name);

}  // namespace rdmatop
