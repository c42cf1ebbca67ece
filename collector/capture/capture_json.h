// The JSON renderings of the tools the capture reader knows: `rdma -j` / `rdma -p` and
// `devlink -j` / `devlink -p` print one document through iproute2's json_writer
// (lib/json_print.c, lib/json_writer.c): a compact line, or pretty lines when -p is given. A
// paste cut before the document's end does not parse and is reported, never guessed at.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "collector/capture/capture_facts.h"

namespace rdmatop::capture {

/// A section read as one JSON document.
struct JsonSection {
  std::optional<nlohmann::json> doc;  ///< none when the text is no JSON or does not parse
  /// Why `doc` is none: "JSON cut before its end" (a paste cut short), "JSON damaged at byte N",
  /// or "not JSON" (the first character opens neither an array nor an object).
  std::string error;
};
JsonSection read_json(const Section& s);
/// read_json for a parser: when the section does not parse, every line is counted as ignored
/// for "<what> <error>: not used" and none is returned.
std::optional<nlohmann::json> read_json_or_count(const Section& s, LineLog& log,
                                                 std::string_view what);

/// True when the section's first non-blank character opens a JSON array or object.
bool looks_like_json(const Section& s);

/// How often `"key":` occurs in the section (any spacing before the colon, as -p prints it):
/// how a JSON rendering is recognised from the names only its format prints, also when it was
/// cut and does not parse. 0 unless the section looks like JSON.
std::size_t count_json_key(const Section& s, std::string_view key);

/// Counts every line of a JSON section once: blank lines as "blank", the others used when
/// `used`, otherwise ignored for `reason`.
void count_json_lines(const Section& s, LineLog& log, bool used, std::string_view reason);

/// A JSON value as a counter: a non-negative integer (json_print's print_u64 / print_uint).
std::optional<std::uint64_t> json_u64(const nlohmann::json& v);
/// The "port" member of an `rdma` JSON object: 1..255, as parse_dev_port takes it.
std::optional<std::uint32_t> json_port(const nlohmann::json& object);
/// A JSON string member of `object`, or "" when absent or not a string.
std::string json_text(const nlohmann::json& object, std::string_view key);

}  // namespace rdmatop::capture
