#include "collector/parse/gid.h"

#include <cctype>

namespace rdmatop {

namespace {

constexpr std::size_t kGroups = 8;
constexpr std::size_t kGroupDigits = 4;
constexpr std::size_t kGidTextLength = kGroups * kGroupDigits + (kGroups - 1);

}  // namespace

GidKind classify_gid(std::string_view gid) {
  if (gid.size() != kGidTextLength) return GidKind::invalid;
  for (std::size_t i = 0; i < gid.size(); ++i) {
    const bool separator_position = (i % (kGroupDigits + 1)) == kGroupDigits;
    const char c = gid[i];
    if (separator_position ? c != ':' : std::isxdigit(static_cast<unsigned char>(c)) == 0) {
      return GidKind::invalid;
    }
  }
  if (gid == "0000:0000:0000:0000:0000:0000:0000:0000") return GidKind::unpopulated;
  if (gid.substr(0, 25) == "0000:0000:0000:0000:0000:" &&
      (gid.substr(25, 4) == "ffff" || gid.substr(25, 4) == "FFFF")) {
    return GidKind::ipv4_mapped;
  }
  // fe80::/10: the first group is fe80..febf.
  const char second = static_cast<char>(std::tolower(static_cast<unsigned char>(gid[2])));
  if ((gid[0] == 'f' || gid[0] == 'F') && (gid[1] == 'e' || gid[1] == 'E') &&
      (second == '8' || second == '9' || second == 'a' || second == 'b')) {
    return GidKind::link_local;
  }
  return GidKind::global;
}

bool is_routable_roce_v2(const GidEntry& entry) {
  if (entry.type != "RoCE v2") return false;
  const GidKind kind = classify_gid(entry.gid);
  return kind == GidKind::ipv4_mapped || kind == GidKind::global;
}

std::optional<GidEntry> first_routable_roce_v2(const std::vector<GidEntry>& gids) {
  for (const auto& entry : gids) {
    if (is_routable_roce_v2(entry)) return entry;
  }
  return std::nullopt;
}

}  // namespace rdmatop
