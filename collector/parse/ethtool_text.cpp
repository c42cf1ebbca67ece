// Parsers for `ethtool -S`, `ethtool -i` and `ethtool -I -a` text. The formats are the ones the
// ethtool 6.x CLI prints [src: ethtool.c do_gstats / dump_drvinfo, netlink/pause.c
// pause_reply_cb] (docs/domain.md#ethtool-statistics):
//   -S : "NIC statistics:\n" then one "     %.*s: %llu\n" line per ETH_SS_STATS string;
//   -i : "driver: %s\n", "version: %s\n", "firmware-version: %s\n", ... "bus-info: %s\n";
//   -a : "Pause parameters for %s:\n", "Autonegotiate:\t%s\n", "RX:\t\t%s\n", "TX:\t\t%s\n",
//        optionally "RX negotiated: %s\n" / "TX negotiated: %s\n", and with -I
//        "Statistics:\n" followed by "  tx_pause_frames: %llu\n" / "  rx_pause_frames: %llu\n".
// All three are strict about shape: a line the CLI cannot print is an error naming the 1-based
// line and quoting it (escaped), so a corrupted or truncated capture is never half-read
// silently. Well-formed lines with keys this code does not know (new `ethtool -i` fields, new
// pause statistics) are accepted and skipped, so a newer ethtool does not break old captures.
// Duplicate `-S` names keep the first value (see parse_ethtool_stats_text).
#include "collector/parse/ethtool_text.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "collector/parse/sysfs_parse.h"

namespace rdmatop {

namespace {

// ETH_GSTRING_LEN [src: include/uapi/linux/ethtool.h]: ethtool prints names with "%.*s" and
// this length, so a longer name cannot come from `ethtool -S`.
constexpr std::size_t kEthGstringLen = 32;
// How much of an offending line an error message quotes.
constexpr std::size_t kQuoteLimit = 80;

struct Line {
  std::string_view text;    // without the line terminator ("\n" or "\r\n")
  std::size_t number = 0;   // 1-based
  bool terminated = false;  // false only for a last line without "\n": a possible cut
};

// Splits text into lines; a "\r" before the "\n" (a capture copied through Windows) is dropped.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : rest_(text) {}

  std::optional<Line> next() {
    if (rest_.empty()) return std::nullopt;
    Line line;
    line.number = ++count_;
    const std::size_t newline = rest_.find('\n');
    if (newline == std::string_view::npos) {
      line.text = rest_;
      rest_ = {};
    } else {
      line.text = rest_.substr(0, newline);
      line.terminated = true;
      rest_.remove_prefix(newline + 1);
    }
    if (!line.text.empty() && line.text.back() == '\r') line.text.remove_suffix(1);
    return line;
  }

  /// What is left, from the start of the next line.
  std::string_view rest() const { return rest_; }
  /// Passes over the next line, `length` bytes with its "\n", read by the caller from rest().
  void skip_line(std::size_t length) {
    ++count_;
    rest_.remove_prefix(length);
  }

 private:
  std::string_view rest_;
  std::size_t count_ = 0;
};

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}

std::string_view trim(std::string_view s) {
  s = trim_left(s);
  while (!s.empty() && (is_space(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Also true for several lines of whitespace (trim_attribute strips "\n" too).
bool is_blank(std::string_view s) {
  return trim_attribute(s).empty();
}

// Kernel ethtool strings and driver-info fields are printable ASCII; anything else (control
// bytes, NUL, non-UTF-8 or UTF-8 bytes) means the capture is corrupt.
bool is_printable_ascii(std::string_view s) {
  for (const char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte > 0x7e) return false;
  }
  return true;
}

// Parse errors carry code 0 (no errno applies), like the sysfs parsers.
Error line_error(std::string_view what, const Line& line, std::string_view reason) {
  std::string message = std::string(what) + " line " + std::to_string(line.number) + ": ";
  // A malformed last line without its newline is what a capture cut mid-write looks like.
  if (!line.terminated) message += "truncated (last line has no newline): ";
  message += std::string(reason) + " (line: " + escape_for_message(line.text, kQuoteLimit) + ")";
  return Error{0, std::move(message)};
}

Error whole_error(std::string_view what, std::string_view reason) {
  return Error{0, std::string(what) + ": " + std::string(reason)};
}

// ---- ethtool -S -------------------------------------------------------------------------

constexpr std::string_view kStatsWhat = "ethtool -S dump";
constexpr std::string_view kStatsHeader = "NIC statistics:";

struct Counter {
  std::string_view name;
  std::uint64_t value = 0;
};

// body.rfind(": ") without a memcmp call at every position from the end, which is what
// string_view::rfind of a two-byte needle makes (once per line of a 400-line dump).
std::size_t last_colon_space(std::string_view body) {
  for (std::size_t i = body.size(); i-- > 1;) {
    if (body[i] == ' ' && body[i - 1] == ':') return i - 1;
  }
  return std::string_view::npos;
}

// One "     name: value" line. The name is opaque (irdma-style "RNR sent", ice-style
// "rx_dropped.nic", bnxt-style "[0]: rx_ucast_packets"), so the value is what follows the LAST
// ": " on the line.
std::optional<std::string> counter_problem(std::string_view text, Counter& out) {
  const std::string_view body = trim_left(text);
  const std::size_t separator = last_colon_space(body);
  if (separator == std::string_view::npos) return "expected \"name: value\"";
  out.name = body.substr(0, separator);
  if (out.name.empty()) return "empty counter name";
  if (out.name.size() > kEthGstringLen) {
    return "counter name longer than ETH_GSTRING_LEN (32 bytes)";
  }
  if (!is_printable_ascii(out.name)) return "counter name has a non-printable or non-ASCII byte";
  auto value = parse_counter_value(body.substr(separator + 2));
  if (!value) return value.error().message;
  out.value = value.value();
  return std::nullopt;
}

// The length of the next line, "\n" included, when it is "<blanks><name>: <digits>\n" with the
// layout's next name and at most 19 digits, its value then added to `counters`; 0 otherwise, and
// the line goes the general way (another name, a longer or odd value, a "\r", trailing blanks,
// the last line without "\n": each then gets the checks and messages of counter_problem). The
// name passed those checks when the layout was made, and 19 digits cannot exceed 2^64-1; a
// counter value has no ": ", so the ": " after the name is the last one of the line, as the
// general path finds it. One pass over the line, no line split first: on a dump re-read every
// tick, as `--ethtool-dir` does, nearly every line comes here (a dump parsed in 55% of the
// instructions the split, trim and parse of each line took before, issue 18).
std::size_t take_expected_line(std::string_view rest, CounterMapBuilder& counters) {
  const std::string_view name = counters.expected_name();
  if (name.empty()) return 0;
  // ethtool indents every line by five spaces ("     %.*s: %llu\n"): taken in one comparison,
  // the rest of any indent byte by byte.
  constexpr std::string_view kIndent = "     ";
  std::size_t at = rest.starts_with(kIndent) ? kIndent.size() : 0;
  while (at < rest.size() && is_space(rest[at])) ++at;
  if (rest.size() - at < name.size() + 2 ||
      std::memcmp(rest.data() + at, name.data(), name.size()) != 0) {
    return 0;
  }
  at += name.size();
  if (rest[at] != ':' || rest[at + 1] != ' ') return 0;
  at += 2;
  const std::size_t digits_begin = at;
  std::uint64_t value = 0;
  for (; at < rest.size(); ++at) {
    const auto digit = static_cast<unsigned char>(rest[at] - '0');
    if (digit > 9) break;
    value = value * 10 + digit;
  }
  constexpr std::size_t kMaxUncheckedDigits = 19;
  const std::size_t digits = at - digits_begin;
  if (digits == 0 || digits > kMaxUncheckedDigits || at == rest.size() || rest[at] != '\n') {
    return 0;
  }
  counters.add_expected(value);
  return at + 1;
}

// ---- ethtool -i -------------------------------------------------------------------------

constexpr std::string_view kInfoWhat = "ethtool -i dump";

// ---- ethtool -a / -I -a -----------------------------------------------------------------

constexpr std::string_view kPauseWhat = "ethtool -a dump";
constexpr std::string_view kPauseHeaderPrefix = "Pause parameters for ";

// ethtool prints booleans as "on"/"off", and "n/a" when the kernel omitted the attribute
// [src: ethtool netlink/netlink.h show_bool_val].
std::optional<std::string> bool_problem(std::string_view text, std::optional<bool>& out) {
  if (text == "on") {
    out = true;
  } else if (text == "off") {
    out = false;
  } else if (text == "n/a") {
    out = std::nullopt;
  } else {
    return "expected on, off or n/a";
  }
  return std::nullopt;
}

}  // namespace

Result<CounterMap> parse_ethtool_stats_text(std::string_view text, CounterLayout* layout) {
  if (is_blank(text)) return whole_error(kStatsWhat, "empty input");
  CounterMapBuilder counters(layout);
  std::optional<Line> pending_blank;  // a blank line is fine only if nothing follows it
  LineReader reader(text);
  while (true) {
    if (!pending_blank) {
      if (const std::size_t length = take_expected_line(reader.rest(), counters)) {
        reader.skip_line(length);
        continue;
      }
    }
    const auto line = reader.next();
    if (!line) break;
    if (is_blank(line->text)) {
      if (!pending_blank) pending_blank = line;
      continue;
    }
    if (pending_blank) {
      return line_error(kStatsWhat, *pending_blank, "blank line inside the dump");
    }
    if (line->number == 1 && line->text == kStatsHeader) continue;
    Counter counter;
    if (const auto problem = counter_problem(line->text, counter)) {
      return line_error(kStatsWhat, *line, *problem);
    }
    // Some drivers repeat a string (e.g. per-queue names after a channel change between the
    // GSTRINGS and GSTATS calls). Keep the first value: it pairs with the first string, and one
    // odd name must not discard the whole dump.
    counters.add(counter.name, counter.value);
  }
  if (counters.added() == 0) {
    return whole_error(kStatsWhat, "no counter lines after the header (truncated capture?)");
  }
  return std::move(counters).finish();
}

Result<DriverInfo> parse_ethtool_driver_info_text(std::string_view text) {
  if (is_blank(text)) return whole_error(kInfoWhat, "empty input");
  DriverInfo info;
  bool have_driver = false, have_version = false, have_firmware = false, have_bus = false;
  LineReader reader(text);
  while (const auto line = reader.next()) {
    if (is_blank(line->text)) continue;
    const std::size_t colon = line->text.find(':');
    if (colon == std::string_view::npos) {
      return line_error(kInfoWhat, *line, "expected \"key: value\"");
    }
    const std::string_view key = line->text.substr(0, colon);
    // "expansion-rom-version: " has an empty value; editors often strip the trailing space.
    const std::string_view value = trim(line->text.substr(colon + 1));
    if (key.empty() || !is_printable_ascii(key) || key != trim(key)) {
      return line_error(kInfoWhat, *line, "malformed key");
    }
    if (!is_printable_ascii(value)) {
      return line_error(kInfoWhat, *line, "value has a non-printable or non-ASCII byte");
    }
    // Duplicate keys cannot come from ethtool; keep the first like the -S parser does.
    auto take = [&](bool& seen, std::string& field) {
      if (!seen) field = std::string(value);
      seen = true;
    };
    if (key == "driver") {
      take(have_driver, info.driver);
    } else if (key == "version") {
      take(have_version, info.version);
    } else if (key == "firmware-version") {
      take(have_firmware, info.fw_version);
    } else if (key == "bus-info") {
      take(have_bus, info.bus_info);
    }
    // Other keys (expansion-rom-version, supports-*) are valid and not needed.
  }
  if (!have_driver) return whole_error(kInfoWhat, "no \"driver:\" line");
  return info;
}

Result<PauseInfo> parse_ethtool_pause_text(std::string_view text) {
  if (is_blank(text)) return whole_error(kPauseWhat, "empty input");
  PauseInfo pause;
  bool have_header = false, in_statistics = false;
  bool have_autoneg = false, have_rx = false, have_tx = false;
  bool have_rx_frames = false, have_tx_frames = false;
  LineReader reader(text);
  while (const auto line = reader.next()) {
    if (is_blank(line->text)) continue;
    if (!have_header) {
      const std::string_view header = trim(line->text);
      if (header.substr(0, kPauseHeaderPrefix.size()) != kPauseHeaderPrefix ||
          header.size() <= kPauseHeaderPrefix.size() + 1 || header.back() != ':') {
        return line_error(kPauseWhat, *line, "expected \"Pause parameters for <if>:\"");
      }
      have_header = true;
      continue;
    }
    const bool indented = is_space(line->text.front());
    const std::string_view body = trim(line->text);
    if (!indented && body == "Statistics:") {
      in_statistics = true;
      continue;
    }
    const std::size_t colon = body.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      return line_error(kPauseWhat, *line, "expected \"key: value\"");
    }
    const std::string_view key = body.substr(0, colon);
    const std::string_view value = trim(body.substr(colon + 1));
    if (indented && in_statistics) {
      const auto parsed = parse_counter_value(value);
      if (!parsed) return line_error(kPauseWhat, *line, parsed.error().message);
      const std::uint64_t number = parsed.value();
      if (key == "tx_pause_frames" && !have_tx_frames) {
        pause.tx_frames = number;
        have_tx_frames = true;
      } else if (key == "rx_pause_frames" && !have_rx_frames) {
        pause.rx_frames = number;
        have_rx_frames = true;
      }
      // Newer statistics (tx_pause_storm_events) are validated above and not modelled yet.
      continue;
    }
    in_statistics = false;
    std::optional<bool> flag;
    if (key == "Autonegotiate" || key == "RX" || key == "TX" || key == "RX negotiated" ||
        key == "TX negotiated") {
      if (const auto problem = bool_problem(value, flag)) {
        return line_error(kPauseWhat, *line, *problem);
      }
    }
    auto take = [&](bool& seen, std::optional<bool>& field) {
      if (!seen) field = flag;
      seen = true;
    };
    if (key == "Autonegotiate") {
      take(have_autoneg, pause.autoneg);
    } else if (key == "RX") {
      take(have_rx, pause.rx);
    } else if (key == "TX") {
      take(have_tx, pause.tx);
    }
    // "RX/TX negotiated" (validated above) and unknown future keys are not modelled.
  }
  if (!have_header) return whole_error(kPauseWhat, "no \"Pause parameters for\" header");
  return pause;
}

}  // namespace rdmatop
