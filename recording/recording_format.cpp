#include "recording/recording_format.h"

#include <nlohmann/json.hpp>

namespace rdmatop {

using nlohmann::json;

std::string encode_header(const RecordingHeader& header) {
  const nlohmann::ordered_json doc{{"format", kRecordingFormat},
                                   {"version", header.version},
                                   {"rdmatop_version", header.rdmatop_version},
                                   {"host", header.host},
                                   {"started_at", header.started_at},
                                   {"interval_seconds", header.interval_seconds}};
  return doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

Result<RecordingHeader> decode_header(std::string_view line) {
  const json doc = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Error{0, "not an rdmatop recording (the first line is not a JSON object)"};
  }
  const auto format = doc.find("format");
  if (format == doc.end() || !format->is_string() || *format != kRecordingFormat) {
    return Error{0, std::string("not an rdmatop recording (\"format\" is not \"") +
                        kRecordingFormat + "\")"};
  }
  const auto version = doc.find("version");
  if (version == doc.end() || !version->is_number_unsigned() || *version == 0) {
    return Error{0, "header: \"version\" must be a positive integer"};
  }
  if (version->get<std::uint64_t>() > static_cast<std::uint64_t>(kRecordingFormatVersion)) {
    return Error{0, "recording format version " + std::to_string(version->get<std::uint64_t>()) +
                        " is newer than this rdmatop supports (" +
                        std::to_string(kRecordingFormatVersion) + ")"};
  }
  RecordingHeader header;
  header.version = version->get<int>();
  for (const auto& [key, field] :
       {std::pair{"rdmatop_version", &header.rdmatop_version}, std::pair{"host", &header.host},
        std::pair{"started_at", &header.started_at}}) {
    const auto it = doc.find(key);
    if (it == doc.end() || !it->is_string()) {
      return Error{0, std::string("header: \"") + key + "\" must be a string"};
    }
    *field = it->get<std::string>();
  }
  const auto interval = doc.find("interval_seconds");
  if (interval == doc.end() || !interval->is_number()) {
    return Error{0, "header: \"interval_seconds\" must be a number"};
  }
  header.interval_seconds = interval->get<double>();
  return header;
}

}  // namespace rdmatop
