// What `rdmatop --version` prints: the release, the git commit and the build date of this
// binary (cmake/BuildInfo.cmake computes them at configure time; build_info.cpp.in holds them).
#pragma once

#include <string>

namespace rdmatop {

struct BuildInfo {
  const char* version;   ///< project(VERSION), e.g. "0.1.0"
  const char* describe;  ///< `git describe --tags --always`, or "unknown"
  const char* commit;    ///< full `git rev-parse HEAD`, or "unknown" outside a git checkout
  const char* date;      ///< UTC, ISO 8601; SOURCE_DATE_EPOCH when set at configure time
};

const BuildInfo& build_info();

/// The --version text: "rdmatop VERSION" on the first line (what help2man reads), then the
/// commit and the build date.
std::string version_text();

}  // namespace rdmatop
