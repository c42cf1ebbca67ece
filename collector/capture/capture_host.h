// The host assembler: the pasted files of one host in, the Snapshots they describe out.
//
// Each file is cleaned and split into the sections each command printed (capture_text.h); each
// section's format is detected from its content (the parser whose detect() scores highest) and
// parsed into Facts. Sections are merged in order into the current capture of the host; a
// section that says something else about a value already known (a port DOWN, then ACTIVE; a
// counter before and after a run) starts the next capture, which keeps everything else known.
// Files are taken in the order given, except that a file an operator labelled "Before ..." is
// taken before one labelled "After ...".
//
// A Snapshot is then built by the unchanged collectors (collect.h) reading the facts through an
// in-memory sysfs tree and ethtool source, so a capture is read exactly like the same values in
// a sysfs tree; only the port -> netdev links the tools print (ibdev2netdev, rdma link) are
// set on the ports the sysfs walk found without one. Every input file gets a SourceStatus
// (source "capture", target the file): the formats recognised, lines used, lines ignored and
// why. Nothing is invented: a value no file shows is absent.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collector/capture/capture_facts.h"
#include "collector/collect.h"
#include "collector/model/snapshot.h"

namespace rdmatop::capture {

/// One input file: its name as the operator gave it (an archive member as "ARCHIVE:MEMBER") and
/// its bytes; `error` when it could not be read (it is still listed).
struct CaptureInput {
  std::string name;
  std::string text;
  std::string error;
};

/// What one input file contributed.
struct FileReport {
  std::string name;
  std::vector<std::string> formats;  ///< recognised formats, in order of first appearance
  std::size_t lines = 0;
  LineLog log;
  std::vector<std::string> notes;  ///< "second host x: not merged", ...
  std::string error;               ///< the file could not be read
};

struct CaptureSet {
  std::vector<Facts> captures;  ///< in time order; empty when no file said anything
  /// When the captures were taken, where a `date` line in the files says it (unset otherwise).
  std::vector<std::optional<std::chrono::system_clock::time_point>> times;
  std::vector<FileReport> files;
  std::string host;  ///< the host the prompts name; empty when none does
};

/// Reads `inputs` (in the order given) into the captures of one host. A file holding a
/// `diff -u` of two dumps is read as the two dumps, "NAME (diff: before)" then
/// "NAME (diff: after)".
CaptureSet assemble(const std::vector<CaptureInput>& inputs);

/// Reads one file's text into `facts` and `report` (a single-file assemble, for tests).
void read_text(std::string_view text, Facts& facts, FileReport& report);

/// The Snapshot of one capture: the collectors run on the facts (see above) with `filter`
/// (--device / --exclude-device), `seq` and `host` stamped, and one "capture" SourceStatus per
/// file of `files` first.
Snapshot build_snapshot(const Facts& facts, const std::vector<FileReport>& files,
                        const std::string& host, std::uint64_t seq,
                        const DeviceFilter& filter = {});

/// "ibstat, rdma link: 17 lines used, 3 ignored (2 markdown fence, 1 command line)".
std::string describe(const FileReport& file);

}  // namespace rdmatop::capture
