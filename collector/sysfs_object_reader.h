// Reading the attribute files of one sysfs object (an RDMA device, a port, a netdev) with the
// one error policy both sysfs collectors share, so "what is benign" is decided in one place:
//  * EINVAL / EOPNOTSUPP / ENOSYS on a read are known-benign (counters an older kernel or a
//    device without a PMA cannot produce; unpopulated GID slots): listed, state stays ok;
//  * ENOENT / ENODEV: the object may have been unregistered since it was listed. The owner
//    directory is re-listed; if it is gone the object "vanished" and the caller stops;
//  * anything else (EACCES, EIO, unparsable text, ...) is an error for the object's status.
// Internal to the collectors; not a public interface.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collector/model/result.h"
#include "collector/model/snapshot.h"
#include "collector/source/file_source.h"

namespace rdmatop {

/// What went wrong while reading one object, turned into its SourceStatus message and state.
class ProblemLog {
 public:
  /// Benign: listed in the message, the state stays ok.
  void note(std::string message) { notes_.push_back(std::move(message)); }
  /// Makes the state `error`.
  void error(std::string message) { errors_.push_back(std::move(message)); }
  /// `other`'s errors and notes after this log's own.
  void append(const ProblemLog& other) {
    errors_.insert(errors_.end(), other.errors_.begin(), other.errors_.end());
    notes_.insert(notes_.end(), other.notes_.begin(), other.notes_.end());
  }
  bool has_errors() const { return !errors_.empty(); }
  SourceState state() const { return has_errors() ? SourceState::error : SourceState::ok; }
  /// Errors first, then notes, joined by "; ". Long lists are cut ("(+N more)"): one broken
  /// counter directory must not turn a status line into a kilobyte of text.
  std::string message() const;

 private:
  std::vector<std::string> errors_;
  std::vector<std::string> notes_;
};

/// The most files read_counters reads from one directory. Drivers have a few hundred at most
/// (mlx5 about 100 hw_counters, a netdev's statistics/ 23); a directory of 100,000 files (a
/// damaged capture, a hostile --sysfs-root) made 100,000 series and 182 MB, so the rest is
/// left out with an error in the object's status.
inline constexpr std::size_t kMaxCounterFiles = 4096;

class SysfsObjectReader {
 public:
  enum class Presence : std::uint8_t {
    required,  ///< ENOENT is an error (unless the owner vanished)
    optional,  ///< ENOENT means "this driver/kernel does not have it": silently absent
    /// As `optional`, for what most hosts lack (an mlx5 device's own hw_counters/ outside
    /// switchdev mode): ENOENT is taken as absent without looking the owner up to ask whether
    /// it vanished, which would cost a system call per object per pass. Only for a read
    /// followed by a `required` one of the same object, which finds a vanished owner.
    usually_absent,
  };
  enum class DirOutcome : std::uint8_t { read, absent, failed };
  /// How fresh a value must be (FileSource::read_polled / read_static).
  enum class Refresh : std::uint8_t {
    every_pass,  ///< a counter or a state: read on every pass
    on_change,   ///< identity, GIDs, addresses: may come from a caching source's memory
  };

  /// `base`: the object directory all `rel` paths are under ("class/infiniband/mlx5_0/ports/1").
  /// `owner`: the directory whose disappearance means the object was unregistered
  /// ("class/infiniband/mlx5_0"). Problems go to `log`, named relative to `base`.
  SysfsObjectReader(const FileSource& fs, std::string base, std::string owner, ProblemLog& log);

  /// True once a failed read was explained by the owner directory having disappeared. Every
  /// read after that returns nothing without logging.
  bool vanished() const { return vanished_; }
  const std::string& base() const { return base_; }

  /// The file's bytes; on failure the error is recorded by the policy above.
  std::optional<std::string> read(std::string_view rel, Presence presence,
                                  Refresh refresh = Refresh::every_pass);
  /// The file unrecorded, for callers with their own rule for one errno (GID slots, speed).
  Result<std::string> read_raw(std::string_view rel, Refresh refresh = Refresh::every_pass);
  /// A free-text attribute (parse_text_attribute); unprintable content is an error.
  std::optional<std::string> read_text(std::string_view rel, Presence presence,
                                       Refresh refresh = Refresh::every_pass);
  /// A "%llu" attribute (parse_counter_value).
  std::optional<std::uint64_t> read_u64(std::string_view rel, Presence presence,
                                        Refresh refresh = Refresh::every_pass);
  /// Directory names, sorted (FileSource::list_static: the names of an object's directory
  /// change only when it is re-created); nullptr when they could not be listed.
  Listing list(std::string_view rel, Presence presence);
  /// A link target (read_link_static); a missing link is silently absent (virtual devices have
  /// no `device`).
  std::optional<std::string> read_link(std::string_view rel);
  /// Every file of `dir` as a raw counter, in place of what `out` held (names kept verbatim:
  /// irdma's contain spaces), each value read every pass, the listing on change. An unreadable
  /// or unparsable file is left out of `out` and recorded. When every file is read, `out` keeps
  /// the listing itself as its names: a pass allocates the values only.
  /// `aside`: a file of the directory that is not a counter (hw_counters/lifespan); left out of
  /// `out`, its value goes to `aside_value` when given.
  /// `presence`: of the directory (optional or usually_absent); its files are required.
  DirOutcome read_counters(std::string_view dir, CounterMap& out, std::string_view aside = {},
                           std::optional<std::uint64_t>* aside_value = nullptr,
                           Presence presence = Presence::optional);

  /// The oldest on_change value read so far came from the file this long ago (zero: every
  /// one was read in this pass). Stale is not current: the collectors store it next to the
  /// values in the Snapshot.
  std::chrono::nanoseconds static_age() const { return static_age_; }

  /// Applies the policy to a failed operation on `rel`.
  void record(std::string_view rel, const Error& error, Presence presence);
  /// Records a parse failure of `rel`'s content as an error.
  void record_parse_error(std::string_view rel, const Error& error);

 private:
  std::string path(std::string_view rel) const;
  bool owner_vanished() const;
  Result<std::string> fetch(std::string_view rel, Refresh refresh);
  /// A "%llu" attribute's value from its content; a failed read or parse is recorded under
  /// `dir`/`name` (the path is built only then).
  std::optional<std::uint64_t> counter_value(const Result<std::string>& content,
                                             std::string_view dir, std::string_view name,
                                             Presence presence);

  const FileSource& fs_;
  std::string base_;
  std::string owner_;
  ProblemLog& log_;
  bool vanished_ = false;
  std::chrono::nanoseconds static_age_{0};
};

/// Joins two relative sysfs path parts with '/'.
std::string join_path(std::string_view a, std::string_view b);

}  // namespace rdmatop
