// The incident bundle `rdmatop capture` writes (docs/capture.md): files under commands/, an
// rdmatop recording and manifest.json, in one .tar.gz written with libarchive.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/bundle/command_runner.h"
#include "collector/model/result.h"

namespace rdmatop::bundle {

/// The manifest's "format" value; `report --capture` knows a manifest by it.
inline constexpr const char* kManifestFormat = "rdmatop.capture-bundle";
inline constexpr int kManifestVersion = 1;

/// One file of the bundle and how it was made.
struct BundleEntry {
  std::string path;  ///< inside the bundle, e.g. "commands/ethtool-S-eth0.txt"
  std::string bytes;
  /// How it was made: a command's result, or rdmatop's own read (`fallback` says which).
  std::optional<CommandResult> command;
  std::string fallback;  ///< non-empty: rdmatop's own read, in the named tool's format
  std::string error;     ///< non-empty for an entry that failed (no file is written for it)
  bool truncated = false;
};

struct ManifestHost {
  std::string hostname;
  std::string kernel;  ///< uname -r
  std::string machine;
  std::string time_utc;  ///< RFC 3339
  std::string rdmatop_version;
  std::vector<std::string> argv;  ///< rdmatop's own command line
  double seconds = 0;
};

/// manifest.json: the host, then one record per entry (written or failed).
nlohmann::ordered_json make_manifest(const ManifestHost& host,
                                     const std::vector<BundleEntry>& entries);

/// Writes the entries that have no error, plus `manifest` as manifest.json, to a gzip-compressed
/// POSIX tar at `path`, every member under `top/`. Members are owned by root:root, mode 0644,
/// stamped `mtime` (no user or group names of the writer).
Result<std::uint64_t> write_bundle(const std::string& path, const std::string& top,
                                   const std::vector<BundleEntry>& entries,
                                   const nlohmann::ordered_json& manifest, std::int64_t mtime);

}  // namespace rdmatop::bundle
