// What the capture parser tests share: read one pasted text into facts and its file report, a
// port's file as the facts hold it, and the line accounting every parse must keep.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "collector/capture/capture_host.h"
#include "collector/capture/capture_text.h"

namespace rdmatop::capture_test {

using capture::Facts;
using capture::FileReport;

struct CaptureRead {
  Facts facts;
  FileReport report;
};

inline CaptureRead read_capture(const std::string& text) {
  CaptureRead r;
  capture::read_text(text, r.facts, r.report);
  return r;
}

/// A port's file (`counters/port_xmit_data`, `hw_counters/...`, `state`) as the facts hold it,
/// or a marker saying which level is missing.
inline std::string capture_port_file(const Facts& f, const std::string& dev, std::uint32_t port,
                                     const std::string& file) {
  const auto d = f.devices.find(dev);
  if (d == f.devices.end()) return "<no device>";
  const auto p = d->second.ports.find(port);
  if (p == d->second.ports.end()) return "<no port>";
  const auto it = p->second.files.find(file);
  return it == p->second.files.end() ? "<absent>" : it->second;
}

/// Every line is accounted for: used or ignored with a reason.
inline void check_capture_accounting(const FileReport& r) {
  CHECK(r.log.used + r.log.ignored_total() == r.lines);
}

}  // namespace rdmatop::capture_test
