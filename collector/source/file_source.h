// The OS boundary for sysfs: every path is relative to an injected root (--sysfs-root,
// default /sys), so the same collectors run on the live kernel, on fixture trees and on the
// simulator's tree. Only implementations of this interface touch the filesystem.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collector/model/result.h"

namespace rdmatop {

/// A directory's names, sorted (std::less<>) and unique, shared rather than copied.
using Listing = std::shared_ptr<const std::vector<std::string>>;

/// What a collector made from static values (a port's parsed GID table), for
/// FileSource::derive_static to keep; each kind derives from this.
struct DerivedValue {
  virtual ~DerivedValue() = default;
};
/// Whether every change of a derived value's inputs is announced to a caching source
/// (FileCacheOptions::announcements), so that it may keep the value for longer than sysfs's
/// refresh period allows what nothing announces.
enum class Changes : std::uint8_t {
  unannounced,  ///< seen by inotify (fixture trees) or, on sysfs, by the refresh period only
  /// every change follows an rtnetlink link or address notification: a RoCE port's GID table
  /// (collector/parse/route_events_parse.h)
  announced,
};
struct Derived {
  std::shared_ptr<const DerivedValue> value;  ///< nullptr: nothing to keep (the object vanished)
  /// How long ago the oldest value it was made from was read from its file (read_static's age).
  std::chrono::nanoseconds age{0};
};

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
  /// The error looking `relpath` up gives (ENOENT: it is not there), nullopt when it is there.
  /// The "did the owner vanish" check behind every absent optional file asks it on every pass
  /// (a port's counters/ on a driver without PMA: rxe, bnxt_re, irdma; core/sysfs.c makes it
  /// only for a device with process_mad): a directory source answers with one stat(2), where a
  /// listing of the owner cost five system calls and a read of its entries (issue 18). This
  /// default lists `relpath`, which must then be a directory.
  virtual std::optional<Error> lookup_error(std::string_view relpath) const {
    auto listed = list(relpath);
    if (listed) return std::nullopt;
    return listed.error();
  }

  // What a caching source (make_cached_file_source) may serve without asking the kernel again.
  // The plain source answers every call from the filesystem, so a collector written against
  // these calls reads exactly what it read before with it.

  /// A value read again on every pass (a counter, a link state): a caching source keeps the
  /// file open and reads it at offset 0, ahead of the pass with the others (begin_pass).
  virtual Result<std::string> read_polled(std::string_view relpath) const { return read(relpath); }
  /// read_polled of each file `names[i]` of the directory `reldir` into `out[i]` (`out` is
  /// resized): a directory of counters read every pass. A caching source finds the files of a
  /// listing it saw last pass without looking each up again (list_static hands out the same
  /// Listing until the directory changes); this default makes one read_polled each.
  virtual void read_polled_many(std::string_view reldir, const Listing& names,
                                std::vector<Result<std::string>>& out) const;
  /// A value that changes only on an event (a GID, the firmware version, the NUMA node): a
  /// caching source serves its last read until it sees the file change or its refresh period
  /// ends. `age`, when given, is set to how long ago the value was read from the file (zero:
  /// read by this call).
  virtual Result<std::string> read_static(std::string_view relpath,
                                          std::chrono::nanoseconds* age = nullptr) const {
    if (age != nullptr) *age = std::chrono::nanoseconds{0};
    return read(relpath);
  }
  /// A listing whose names change only when the object is re-created (hw_counters/, gids/,
  /// ports/): cached like read_static. list() itself always asks the filesystem (discovery and
  /// the "did the device vanish" check use it).
  /// The names are shared: a caching source hands out the same vector on every pass until the
  /// directory changes, and a CounterMap read from the directory keeps it as its names.
  virtual Result<Listing> list_static(std::string_view reldir) const {
    auto names = list(reldir);
    if (!names) return names.error();
    return std::make_shared<const std::vector<std::string>>(std::move(names).value());
  }
  /// A listing that must be current at every pass (discovery: class/infiniband): a caching
  /// source serves it from memory only where it is told of every change (inotify on a regular
  /// filesystem: fixture, capture and simulator trees), and lists it again everywhere else
  /// (sysfs sends no events for its directories).
  virtual Result<std::vector<std::string>> list_current(std::string_view reldir) const {
    return list(reldir);
  }
  /// What `make` makes from read_static values of files in the directories `inputs`, kept by
  /// a caching source under `key` (unique per kind and object) and handed out again, with its
  /// age grown, while it would still serve each of those values from memory: until it sees a
  /// change under one of `inputs` or the refresh period of the oldest value ends. A port's GID
  /// table is 256 files on a ConnectX (gid_tbl_len): read and parsed from memory on every pass,
  /// it was a fifth of a tick (issue 18). `changes`: announced values are kept for the longer
  /// announced refresh period where the announcements come (or inotify watches every input).
  /// This default makes it every time.
  virtual Derived derive_static(std::string_view key, std::span<const std::string> inputs,
                                Changes changes, const std::function<Derived()>& make) const {
    (void)key;
    (void)inputs;
    (void)changes;
    return make();
  }
  /// A link that changes only when the object is re-created (`device`, `device/driver`).
  virtual Result<std::string> read_link_static(std::string_view relpath) const {
    return read_link(relpath);
  }
  /// Why polled files are read in a slower way than this source is built for (a caching source
  /// whose batches cannot be set up: "io_uring_setup: Operation not permitted"); "" otherwise.
  /// A fallback says it is one: collect_all turns this into a status of the snapshot.
  virtual std::string read_fallback() const { return {}; }
  /// Called once at the start of each collection pass (collect_snapshot): a caching source
  /// takes in the changes it was notified of since the last pass, then reads ahead the polled
  /// files the last pass read.
  virtual void begin_pass() const {}
};

/// The paths "dir/name" of the files of one directory, made in one buffer whose directory part
/// is written once: each path is valid until the next call of `of`. A directory's ~100 counter
/// files are read every pass (issue 18).
class ChildPaths {
 public:
  explicit ChildPaths(std::string_view dir) : path_(dir) {
    if (!path_.empty()) path_ += '/';
    dir_length_ = path_.size();
  }
  const std::string& of(std::string_view name) {
    path_.resize(dir_length_);
    path_ += name;
    return path_;
  }

 private:
  std::string path_;
  std::size_t dir_length_ = 0;
};

/// Joins `relpath` to `root`, rejecting what could leave the root through the path text itself:
/// absolute paths, ".." components and embedded NULs. "" and "." name the root.
Result<std::string> resolve_under_root(const std::string& root, std::string_view relpath);
/// `root` without trailing slashes; "" becomes ".".
std::string normalize_root(std::string root);

/// The real filesystem under `root`. `max_read_size` bounds one read(): sysfs attributes fit
/// 64 KiB; procfs tables such as /proc/interrupts grow with CPUs x IRQs and need more.
std::unique_ptr<FileSource> make_directory_file_source(std::string root,
                                                       std::size_t max_read_size = 64 * 1024);

}  // namespace rdmatop
