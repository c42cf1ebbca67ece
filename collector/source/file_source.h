// The OS boundary for sysfs: every path is relative to an injected root (--sysfs-root,
// default /sys), so the same collectors run on the live kernel, on fixture trees and on the
// simulator's tree. Only implementations of this interface touch the filesystem.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collector/model/result.h"

namespace rdmatop {

class FileSource {
 public:
  virtual ~FileSource() = default;
  /// Reads a small attribute file whole. Errors carry errno (EINVAL for unpopulated GID
  /// entries, EACCES, EOPNOTSUPP, ENOENT when a device vanished, EISDIR, ...).
  virtual Result<std::string> read(std::string_view relpath) const = 0;
  /// Names in a directory, without "." and "..", sorted.
  virtual Result<std::vector<std::string>> list(std::string_view reldir) const = 0;
  /// Target of a symbolic link, as stored in the link.
  virtual Result<std::string> read_link(std::string_view relpath) const = 0;
  /// Human-readable root, for messages ("/sys", "tests/fixtures/mlx5/sys").
  virtual std::string describe() const = 0;
};

/// The real filesystem under `root`. `max_read_size` bounds one read(): sysfs attributes fit
/// 64 KiB; procfs tables such as /proc/interrupts grow with CPUs x IRQs and need more.
std::unique_ptr<FileSource> make_directory_file_source(std::string root,
                                                       std::size_t max_read_size = 64 * 1024);

}  // namespace rdmatop
