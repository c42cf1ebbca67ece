// Reading a configuration or capture file named by the operator (rule files, web config,
// target lists, ethtool dumps, recordings) without ever blocking and without reading without
// bound: a FIFO, a socket or a device left where a file was expected is refused instead of
// hanging the caller for ever, and a file larger than its cap is refused instead of filling
// memory.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>

#include "collector/model/result.h"

namespace rdmatop {

/// Why a file of this fstat(2) mode is not read as a regular file: EISDIR for a directory,
/// EINVAL naming its kind for a FIFO, socket or device; nullopt for a regular file.
std::optional<Error> not_regular_file(const std::string& path, mode_t mode);

/// Opens `path` read-only with O_NONBLOCK (so opening a FIFO with no writer returns at once,
/// see fifo(7)) and checks that it is a regular file. The caller owns the descriptor.
/// Errors: the open(2)/fstat(2) errno, EISDIR for a directory, EINVAL for a FIFO, socket or
/// device, each naming the path.
Result<int> open_regular_file(const std::string& path);

/// Reads a whole regular file of at most `max_bytes` bytes (EFBIG beyond, checked both on the
/// size fstat(2) reports and on what read(2) returns, since a file may grow while read).
Result<std::string> read_bounded_file(const std::string& path, std::size_t max_bytes);

}  // namespace rdmatop
