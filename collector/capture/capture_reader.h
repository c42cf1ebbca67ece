// The input side of `report --capture PATH`: PATH is a file, a directory (read recursively, in
// name order) or an archive (.tar, .tar.gz: recognised by its bytes, read with libarchive).
// Every file is read bounded (util/bounded_file.h) and never blocks; a file that
// cannot be read is listed with its error, never fatal.
#pragma once

#include <string>
#include <vector>

#include "collector/capture/capture_host.h"

namespace rdmatop::capture {

/// Caps: a paste is a few hundred lines; a bundle a few thousand files.
inline constexpr std::size_t kMaxCaptureFileBytes = 16U << 20U;
inline constexpr std::size_t kMaxCaptureTotalBytes = 256U << 20U;
inline constexpr std::size_t kMaxCaptureFiles = 10000;

/// The files under `paths`, in the order given (a directory's files sorted by path).
std::vector<CaptureInput> read_capture_inputs(const std::vector<std::string>& paths);

/// The members of an archive held in `bytes` (none when it is not one), bounded as above.
/// `name` prefixes the members' names ("bundle.tar.gz:commands/ibstat.txt").
std::vector<CaptureInput> read_archive(const std::string& name, const std::string& bytes,
                                       bool& is_archive);

}  // namespace rdmatop::capture
