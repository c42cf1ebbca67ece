// Probe target lists (pingmesh): a plain file with one host[:port] per line, or a small YAML
// file with groups (ToR, pod) and per-group options. Parsing is pure; TargetFile re-reads the
// file only when it changed (mtime, size, then content hash). A malformed entry gives an error
// naming file and line and is skipped; the rest still loads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collector/model/result.h"
#include "probes/transport.h"

namespace rdmatop::probes {

struct TargetSpec {
  std::string target;  ///< as configured: "10.0.0.2" or "10.0.0.2:19000" (the series label)
  Endpoint endpoint;
  std::string group;           ///< YAML group name; empty for plain lists and command-line targets
  std::optional<double> rate;  ///< probes/s per stream; none: the default
  std::vector<TransportKind> transports;       ///< empty: the default transports
  std::vector<std::uint32_t> traffic_classes;  ///< empty: the default traffic class
};

struct TargetList {
  std::vector<TargetSpec> targets;  ///< in file order, duplicates removed
  std::vector<std::string> errors;  ///< "<origin>:<line>: <what>"
  bool unreadable = false;  ///< the file itself could not be read or parsed: keep the old list
};

/// "host", "host:port", "[v6]:port" or a bare IPv6 address; the port defaults to
/// `default_port`. Errors name what is wrong (empty host, bad port, stray characters).
Result<Endpoint> parse_endpoint(std::string_view text, std::uint16_t default_port);
/// "rc_send", "rc_write" or "tcp".
std::optional<TransportKind> parse_transport_kind(std::string_view text);
/// "rc_send,tcp" -> kinds, in order, without repeats. Error for an unknown or empty name.
Result<std::vector<TransportKind>> parse_transport_list(std::string_view text);

/// One target per line; `#` starts a comment; blank lines are skipped.
TargetList parse_target_text(std::string_view text, std::string_view origin,
                             std::uint16_t default_port = kDefaultProbePort);
/// `defaults:` {port, rate, transports, tclass} and `groups:` [{name, targets, and the same
/// options}], or a top-level `targets:` list.
TargetList parse_target_yaml(std::string_view text, std::string_view origin,
                             std::uint16_t default_port = kDefaultProbePort);
/// YAML when `origin` ends in .yaml/.yml, else the plain format.
TargetList parse_target_file(std::string_view text, std::string_view origin,
                             std::uint16_t default_port = kDefaultProbePort);

/// A target file watched for changes.
class TargetFile {
 public:
  explicit TargetFile(std::string path, std::uint16_t default_port = kDefaultProbePort);
  /// The list on the first call and whenever the content changed since the last successful
  /// read; nullopt when unchanged. An unreadable file gives a list with `unreadable` set.
  std::optional<TargetList> poll();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::uint16_t default_port_;
  bool loaded_ = false;
  std::int64_t mtime_ns_ = 0;
  std::int64_t size_ = -1;
  std::size_t hash_ = 0;
};

}  // namespace rdmatop::probes
