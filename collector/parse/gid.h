// GID classification. sysfs prints GIDs as 8 groups of 4 lowercase hex digits ("%pI6",
// drivers/infiniband/core/sysfs.c). RoCE v2 is routable only with an IPv4-mapped or a global
// IPv6 address; link-local entries are not (RFC 4291; docs/domain.md#gid-routability).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "collector/model/snapshot.h"

namespace rdmatop {

enum class GidKind : std::uint8_t {
  invalid,      ///< not 8 groups of 4 hex digits
  unpopulated,  ///< all zero: an empty table slot
  ipv4_mapped,  ///< ::ffff:a.b.c.d
  link_local,   ///< fe80::/10
  global,       ///< any other IPv6 address
};

GidKind classify_gid(std::string_view gid);

/// True for a "RoCE v2" entry whose address is routable (IPv4-mapped or global IPv6).
bool is_routable_roce_v2(const GidEntry& entry);

/// The first routable RoCE v2 entry of a table, if any (never assume index 3: rxe differs).
std::optional<GidEntry> first_routable_roce_v2(const std::vector<GidEntry>& gids);

}  // namespace rdmatop
