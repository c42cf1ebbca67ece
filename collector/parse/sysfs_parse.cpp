#include "collector/parse/sysfs_parse.h"

#include <charconv>
#include <system_error>

namespace rdmatop {
namespace {

// u64 max has 20 digits; anything much longer is not a value a kernel printed.
constexpr std::size_t max_number_text = 64;

// " \t\n\v\f\r" (isspace in the "C" locale), tested without searching a set per character:
// these loops run for every counter value read.
bool is_whitespace(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_hex_digit(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool all_of(std::string_view text, bool (*pred)(char)) {
  for (char c : text) {
    if (!pred(c)) return false;
  }
  return true;
}

Error parse_error(std::string_view what, std::string_view text) {
  return Error{0, std::string(what) + ": " + escape_for_message(text)};
}

std::string_view trim_trailing(std::string_view text) {
  while (!text.empty() && is_whitespace(text.back())) text.remove_suffix(1);
  return text;
}

// Length of the UTF-8 sequence starting at text[i] if it is valid and not a control character
// (C0, DEL, C1), else 0. Rejects overlong forms, surrogates and code points above U+10FFFF.
std::size_t printable_utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x20 || lead == 0x7f) return 0;
  if (lead < 0x80) return 1;
  std::size_t len = 0;
  std::uint32_t cp = 0;
  if ((lead & 0xe0) == 0xc0) {
    len = 2;
    cp = lead & 0x1fu;
  } else if ((lead & 0xf0) == 0xe0) {
    len = 3;
    cp = lead & 0x0fu;
  } else if ((lead & 0xf8) == 0xf0) {
    len = 4;
    cp = lead & 0x07u;
  } else {
    return 0;  // continuation byte or 0xf8..0xff as a lead
  }
  if (i + len > text.size()) return 0;  // truncated sequence
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3fu);
  }
  static constexpr std::uint32_t min_for_len[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_for_len[len]) return 0;         // overlong encoding
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;  // UTF-16 surrogate
  if (cp > 0x10ffff) return 0;                 // beyond Unicode
  if (cp >= 0x80 && cp <= 0x9f) return 0;      // C1 control
  return len;
}

Result<IdName> parse_id_name(std::string_view text, std::string_view what) {
  if (text.size() > max_attribute_size) return parse_error(std::string(what) + " too long", text);
  const std::string_view trimmed = trim_attribute(text);
  const auto colon = trimmed.find(':');
  if (colon == std::string_view::npos || colon == 0) {
    return parse_error(std::string("not a ") + std::string(what) + " (\"<id>: <name>\")", text);
  }
  const std::string_view id_text = trimmed.substr(0, colon);
  IdName out;
  if (!all_of(id_text, is_digit) ||
      std::from_chars(id_text.data(), id_text.data() + id_text.size(), out.id).ec != std::errc{}) {
    return parse_error(std::string(what) + " id is not a small unsigned number", text);
  }
  const std::string_view name = trim_attribute(trimmed.substr(colon + 1));
  if (name.empty()) return parse_error(std::string(what) + " has no name", text);
  auto checked = parse_text_attribute(name);
  if (!checked) return parse_error(std::string(what) + " name is not printable text", text);
  out.name = std::move(checked).value();
  return out;
}

}  // namespace

std::string escape_for_message(std::string_view text, std::size_t max_bytes) {
  static constexpr char hex[] = "0123456789abcdef";
  const std::string_view shown = text.substr(0, max_bytes);
  std::string out = "\"";
  for (char c : shown) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (u >= 0x20 && u < 0x7f) {
          out += c;
        } else {
          out += "\\x";
          out += hex[u >> 4];
          out += hex[u & 0xf];
        }
    }
  }
  out += '"';
  if (shown.size() < text.size()) out += "...(" + std::to_string(text.size()) + " bytes)";
  return out;
}

std::string_view trim_attribute(std::string_view text) {
  while (!text.empty() && is_whitespace(text.front())) text.remove_prefix(1);
  return trim_trailing(text);
}

Result<std::string> parse_text_attribute(std::string_view text) {
  if (text.size() > max_attribute_size) return parse_error("attribute text too long", text);
  const std::string_view trimmed = trim_attribute(text);
  for (std::size_t i = 0; i < trimmed.size();) {
    const std::size_t len = printable_utf8_length(trimmed, i);
    if (len == 0) {
      return parse_error("attribute text has a control character or invalid UTF-8", text);
    }
    i += len;
  }
  return std::string(trimmed);
}

Result<std::uint64_t> parse_counter_value(std::string_view text) {
  if (text.size() > max_number_text) return parse_error("counter value too long", text);
  const std::string_view digits = trim_trailing(text);
  // Up to 19 digits cannot exceed 2^64-1: summed without from_chars' overflow check, which
  // cost as much again per value (every counter file and `ethtool -S` line comes here: ~8,000
  // values per tick on a 16-port host, issue 18), and in the same pass that checks that they
  // are digits. Anything else is told apart below. Longer ones may overflow: from_chars says.
  constexpr std::size_t max_unchecked_digits = 19;
  if (!digits.empty() && digits.size() <= max_unchecked_digits) {
    std::uint64_t value = 0;
    bool only_digits = true;
    for (const char c : digits) {
      const auto digit = static_cast<unsigned char>(c - '0');
      only_digits &= digit <= 9;
      value = value * 10 + digit;
    }
    if (only_digits) return value;
  }
  if (digits.empty()) return parse_error("empty counter value", text);
  if (digits.front() == '-') return parse_error("negative counter value", text);
  if (!all_of(digits, is_digit)) return parse_error("not an unsigned decimal number", text);
  std::uint64_t value = 0;
  if (std::from_chars(digits.data(), digits.data() + digits.size(), value).ec != std::errc{}) {
    return parse_error("counter value exceeds 2^64-1", text);
  }
  return value;
}

Result<std::int64_t> parse_signed_value(std::string_view text) {
  if (text.size() > max_number_text) return parse_error("value too long", text);
  const std::string_view number = trim_trailing(text);
  if (number.empty()) return parse_error("empty value", text);
  const std::string_view magnitude = number.front() == '-' ? number.substr(1) : number;
  if (magnitude.empty() || !all_of(magnitude, is_digit)) {
    return parse_error("not a decimal number", text);
  }
  std::int64_t value = 0;
  if (std::from_chars(number.data(), number.data() + number.size(), value).ec != std::errc{}) {
    return parse_error("value out of the 64-bit signed range", text);
  }
  return value;
}

Result<std::uint32_t> parse_index_name(std::string_view name) {
  std::uint32_t value = 0;
  if (name.empty() || name.size() > 10 || !all_of(name, is_digit) ||
      (name.size() > 1 && name.front() == '0') ||
      std::from_chars(name.data(), name.data() + name.size(), value).ec != std::errc{}) {
    return parse_error("not a decimal index", name);
  }
  return value;
}

Result<IdName> parse_state(std::string_view text) {
  return parse_id_name(text, "port state");
}

Result<IdName> parse_phys_state(std::string_view text) {
  return parse_id_name(text, "port phys_state");
}

Result<IdName> parse_node_type(std::string_view text) {
  return parse_id_name(text, "node_type");
}

Result<double> parse_rate(std::string_view text) {
  static constexpr std::string_view unit = " Gb/sec";
  if (text.size() > max_attribute_size) return parse_error("rate too long", text);
  const std::string_view trimmed = trim_attribute(text);
  // "<int>[.<digits>]": the kernel prints "%d" plus an optional ".5".
  std::size_t pos = 0;
  while (pos < trimmed.size() && is_digit(trimmed[pos])) ++pos;
  const std::size_t int_digits = pos;
  if (pos < trimmed.size() && trimmed[pos] == '.') {
    const std::size_t frac_start = ++pos;
    while (pos < trimmed.size() && is_digit(trimmed[pos])) ++pos;
    if (pos == frac_start) return parse_error("rate has an empty fraction", text);
  }
  if (int_digits == 0) return parse_error("rate does not start with a number", text);
  if (trimmed.substr(pos, unit.size()) != unit) {
    return parse_error("rate is not \"<n> Gb/sec (<w>X <speed>)\"", text);
  }
  const std::string_view number = trimmed.substr(0, pos);
  std::string_view rest = trimmed.substr(pos + unit.size());
  // The "(<width>X <speed>)" suffix has been printed since the file exists; validate it when
  // present, but a bare "<n> Gb/sec" still carries the rate. The speed name is empty for SDR
  // and unknown speeds (core/sysfs.c rate_show: `speed = ""` in the default case), which
  // i40iw ports print as "10 Gb/sec (4X)".
  if (!rest.empty()) {
    std::size_t k = 0;
    const bool ok_open = rest.size() > 2 && rest[0] == ' ' && rest[1] == '(' && rest.back() == ')';
    if (ok_open) {
      rest = rest.substr(2, rest.size() - 3);
      while (k < rest.size() && is_digit(rest[k])) ++k;
    }
    const bool ok_width = ok_open && k > 0 && k < rest.size() && rest[k] == 'X';
    const std::string_view speed = ok_width ? trim_attribute(rest.substr(k + 1)) : "";
    const bool no_speed_name = ok_width && k + 1 == rest.size();
    const bool ok_speed =
        no_speed_name || (!speed.empty() && speed.find_first_of("()") == std::string_view::npos &&
                          parse_text_attribute(speed).ok());
    if (!ok_speed) return parse_error("rate has a malformed \"(<w>X <speed>)\" suffix", text);
  }
  double gbps = 0;
  const auto res = std::from_chars(number.data(), number.data() + number.size(), gbps);
  if (res.ec != std::errc{} || res.ptr != number.data() + number.size()) {
    return parse_error("rate number out of range", text);
  }
  return gbps;
}

Result<std::string> parse_gid(std::string_view text) {
  static constexpr std::size_t gid_text_size = 8 * 4 + 7;
  if (text.size() > max_number_text) return parse_error("GID text too long", text);
  const std::string_view trimmed = trim_trailing(text);
  bool ok = trimmed.size() == gid_text_size;
  for (std::size_t i = 0; ok && i < trimmed.size(); ++i) {
    ok = i % 5 == 4 ? trimmed[i] == ':' : is_hex_digit(trimmed[i]);
  }
  if (!ok) return parse_error("not a GID (8 colon-separated groups of 4 hex digits)", text);
  std::string gid(trimmed);
  for (char& c : gid) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  }
  return gid;
}

bool is_pci_address(std::string_view name) {
  // "%04x:%02x:%02x.%d" (drivers/pci/probe.c pci_setup_device); the domain can be wider.
  const auto first = name.find(':');
  if (first == std::string_view::npos) return false;
  const std::string_view domain = name.substr(0, first);
  const std::string_view rest = name.substr(first + 1);
  return domain.size() >= 4 && domain.size() <= 8 && all_of(domain, is_hex_digit) &&
         rest.size() == 7 && is_hex_digit(rest[0]) && is_hex_digit(rest[1]) && rest[2] == ':' &&
         is_hex_digit(rest[3]) && is_hex_digit(rest[4]) && rest[5] == '.' && rest[6] >= '0' &&
         rest[6] <= '7';
}

bool is_valid_netdev_name(std::string_view name) {
  constexpr std::size_t ifnamsiz = 16;  // include/uapi/linux/if.h, including the NUL
  if (name.empty() || name.size() >= ifnamsiz || name == "." || name == "..") return false;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    // dev_valid_name rejects '/', ':' and isspace(); control bytes are rejected here as well
    // so that a name is always safe to print.
    if (c == '/' || c == ':' || u <= 0x20 || u == 0x7f) return false;
  }
  return true;
}

}  // namespace rdmatop
