// A FileSource that keeps what it can between collection passes, so that a tick costs the kernel
// one system call per value it reads and nothing for what did not change (issue #18):
//  * read_polled: the attribute file stays open; each read is one pread(fd, buf, n, 0). sysfs
//    regenerates an attribute's text on every read at offset 0 (fs/kernfs/file.c
//    kernfs_fop_read_iter -> sysfs_kf_read calls the attribute's show() each time), so a held
//    descriptor reads current values. A read that fails with ENODEV (kernfs: the node was
//    removed, kernfs_get_active fails), ESTALE or EIO closes the descriptor, forgets what was
//    cached in that directory and returns the error: the collectors treat the object as gone,
//    and the next pass opens the file again if it came back;
//  * read-ahead: begin_pass reads every held file the last pass read, all in one
//    io_uring_enter(2) per 256 files (batched_pread.h), and the pass's read_polled and
//    read_polled_many calls take those values instead of asking the kernel (once each: a second
//    read in the pass asks again, by pread). A tick of the 16-port host made 203 system calls,
//    a pread per single value and an io_uring_enter per counter directory; it now makes 18 in
//    all (bench/README.md, "Session 26"). A value is read at most one pass's duration before it
//    is asked for, and the snapshot's time is taken as the pass begins. Without io_uring there
//    is no read-ahead: one pread each, and stats().batch_unavailable says why;
//  * read_polled_many: a file not held yet is opened through read_polled. A listing read whole
//    from held files is kept with its descriptors in order (a plan), and the next pass of that
//    same listing takes their values without building or looking up a path per file, until any
//    descriptor is opened or dropped;
//  * read_static, list_static, read_link_static: served from memory until a change is seen or
//    the refresh period ends (the safety net); derive_static keeps what a collector made from
//    such values (a parsed GID table) for as long as it would serve every one of them;
//  * change detection: on a regular filesystem (fixture trees, the simulator, captures) every
//    directory the cache holds something from is watched with inotify(7); begin_pass drains the
//    events (one non-blocking read) and forgets the entries of the directories that changed. A
//    held descriptor survives an in-place rewrite (it reads the new bytes) but not a removal or a
//    rename over the file, which the events report. sysfs sends no such events for kernfs nodes,
//    so there held descriptors rely on ENODEV, and static values on invalidate() and the refresh
//    period. A value derived with Changes::announced (a RoCE port's GID table) is kept for the
//    announced refresh period (10 min) where every change of it is announced: by the
//    `announcements` feed (rtnetlink link and address notifications on a live host) or by
//    inotify watching each of its inputs. The feed is drained at each begin_pass; a change
//    forgets the announced values then, and once more `announcement_settle` later, because the
//    kernel updates a GID table in a work queue after the notification that announced it.
// A directory that cannot be watched (no inotify, the watch limit reached) is never cached: every
// call there goes to the filesystem, as with make_directory_file_source.
#pragma once

#include <sys/types.h>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collector/source/change_feed.h"
#include "collector/source/file_source.h"

namespace rdmatop {

struct FileCacheOptions {
  /// How long a static value, listing or link is served before it is read again regardless.
  std::chrono::nanoseconds refresh_period = std::chrono::seconds(60);
  /// How long a value derived with Changes::announced is served where its changes are
  /// announced (`announcements`, or inotify on each input).
  std::chrono::nanoseconds announced_refresh_period = std::chrono::minutes(10);
  /// A change announced forgets the announced values at once and again this much later (the
  /// kernel makes the change after announcing it); changes keep coming: at most once per this.
  std::chrono::nanoseconds announcement_settle = std::chrono::seconds(2);
  /// Drained at each begin_pass (route_change_feed.h on a live host); nullptr: none.
  std::shared_ptr<ChangeFeed> announcements;
  /// The most descriptors held at once, and never more than a quarter of the soft
  /// RLIMIT_NOFILE; past it read_polled opens, reads and closes.
  std::size_t max_open_files = 4096;
  /// The largest file read (as make_directory_file_source's max_read_size).
  std::size_t max_read_size = 64 * 1024;
  /// The clock of the refresh period and the ages (tests inject one).
  std::function<std::chrono::steady_clock::time_point()> clock;
  /// pread(2), injectable so that tests can make a held descriptor fail like a removed kernfs
  /// node does (ENODEV).
  std::function<ssize_t(int, void*, std::size_t, off_t)> pread;
  /// begin_pass reads the held files ahead in batches of io_uring_enter(2) (batched_pread.h);
  /// false, or where io_uring cannot be set up: one pread(2) each, through `pread`.
  bool batch_reads = true;
};

/// What the cache asked the kernel for since it was made (one count per system call).
struct FileCacheStats {
  std::uint64_t opens = 0;       ///< openat of a file (polled or static)
  std::uint64_t preads = 0;      ///< pread of a held or just opened file
  std::uint64_t batches = 0;     ///< io_uring_enter calls of the read-ahead
  std::uint64_t planned = 0;     ///< read_polled_many calls served by a kept plan
  std::uint64_t read_ahead = 0;  ///< values served from the pass's read-ahead
  /// Why there is no read-ahead and each value is one pread: io_uring could not be set up or
  /// failed ("io_uring_setup: Operation not permitted"), or batch_reads is off; "" while it
  /// reads ahead.
  std::string batch_unavailable;
  std::uint64_t listings = 0;      ///< directories listed
  std::uint64_t links = 0;         ///< readlink
  std::uint64_t static_hits = 0;   ///< read_static / list_static / read_link_static from memory
  std::uint64_t derived_made = 0;  ///< derive_static values made and kept
  std::uint64_t derived_hits = 0;  ///< derive_static values handed out again
  std::uint64_t announced_forgets = 0;  ///< times announced values were forgotten on a change
  /// Why announced values keep the plain refresh period on sysfs: the feed's reason, or "no
  /// feed"; "" while announcements come.
  std::string announcements_unavailable;
  std::uint64_t dropped = 0;  ///< descriptors closed after ENODEV/ESTALE/EIO or a change
  std::size_t held = 0;       ///< descriptors held now
};

class CachedFileSource : public FileSource {
 public:
  /// Forgets every static value, listing and link whose path starts with `prefix` ("" = all),
  /// and closes the descriptors there: for change notifications the cache cannot see itself
  /// (an address added: rtnetlink; a device registered: RDMA netlink).
  virtual void invalidate(std::string_view prefix) const = 0;
  virtual FileCacheStats stats() const = 0;
};

std::unique_ptr<CachedFileSource> make_cached_file_source(std::string root,
                                                          FileCacheOptions options = {});

}  // namespace rdmatop
