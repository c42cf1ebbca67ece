// make_cached_file_source: see cached_file_source.h for what is kept and why it stays correct.
#include "collector/source/cached_file_source.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "collector/source/batched_pread.h"
#include "util/bounded_file.h"

namespace rdmatop {
namespace {

using CacheClock = std::chrono::steady_clock;

// kernfs answers a read of an open attribute whose node was removed with ENODEV
// (fs/kernfs/file.c: kernfs_get_active fails in kernfs_fop_read_iter); NFS-style trees give
// ESTALE; EIO is what a device that fell off the bus leaves. The descriptor is of no further use.
bool descriptor_is_dead(int code) {
  return code == ENODEV || code == ESTALE || code == EIO;
}

// Errors an attribute returns per read while its file stays valid: a PMA MAD that failed
// (EINVAL), an attribute the driver does not implement (EOPNOTSUPP, ENOSYS), no data yet.
bool error_keeps_descriptor(int code) {
  return code == EINVAL || code == EOPNOTSUPP || code == ENOSYS || code == ENODATA;
}

std::string_view dir_of(std::string_view rel) {
  const auto slash = rel.rfind('/');
  return slash == std::string_view::npos ? std::string_view{} : rel.substr(0, slash);
}

bool under(std::string_view path, std::string_view prefix) {
  if (prefix.empty()) return true;
  if (path.size() < prefix.size() || path.substr(0, prefix.size()) != prefix) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '/';
}

template <class T>
struct Timed {
  T value;
  CacheClock::time_point read_at;
};

constexpr std::uint32_t kWatchMask = IN_MODIFY | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM |
                                     IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF;

/// The descriptors the cache may hold: `wanted`, but at most a quarter of the process's soft
/// RLIMIT_NOFILE, so that held counter files never starve the exporter's sockets or the
/// netlink sockets (systemd starts services with a soft limit of 1024; getrlimit(2)). Past the
/// budget read_polled opens, reads and closes, as without the cache.
std::size_t descriptor_budget(std::size_t wanted) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return wanted;
  return std::min<std::size_t>(wanted, static_cast<std::size_t>(limit.rlim_cur / 4));
}

class CachedDirectorySource final : public CachedFileSource {
 public:
  CachedDirectorySource(std::string root, FileCacheOptions options)
      : root_(normalize_root(std::move(root))),
        options_(std::move(options)),
        inner_(make_directory_file_source(root_, options_.max_read_size)),
        announcing_(options_.announcements != nullptr &&
                    options_.announcements->unavailable().empty()) {
    options_.max_open_files = descriptor_budget(options_.max_open_files);
    if (!options_.clock) options_.clock = [] { return CacheClock::now(); };
    if (!options_.pread)
      options_.pread = [](int fd, void* buf, std::size_t n, off_t off) {
        return ::pread(fd, buf, n, off);
      };
  }
  CachedDirectorySource(const CachedDirectorySource&) = delete;
  CachedDirectorySource& operator=(const CachedDirectorySource&) = delete;
  ~CachedDirectorySource() override {
    for (const auto& [path, fd] : held_) ::close(fd);
    if (inotify_fd_ >= 0) ::close(inotify_fd_);
  }

  Result<std::string> read(std::string_view relpath) const override {
    return inner_->read(relpath);
  }
  Result<std::vector<std::string>> list(std::string_view reldir) const override {
    return inner_->list(reldir);
  }
  std::optional<Error> lookup_error(std::string_view relpath) const override {
    return inner_->lookup_error(relpath);
  }
  Result<std::string> read_link(std::string_view relpath) const override {
    return inner_->read_link(relpath);
  }
  std::string describe() const override { return root_; }

  Result<std::string> read_polled(std::string_view relpath) const override {
    const std::lock_guard lock(mutex_);
    return read_polled_locked(relpath);
  }

  void read_polled_many(std::string_view reldir, const Listing& names,
                        std::vector<Result<std::string>>& out) const override {
    const std::lock_guard lock(mutex_);
    out.assign(names->size(), Result<std::string>(std::string()));
    ChildPaths paths(reldir);
    // Plans serve the read-ahead, which needs the ring.
    const bool planning = batch_reader() != nullptr;
    if (planning) {
      // The same listing as last pass, every file still held: last pass's descriptors, with no
      // path made or looked up (a hash of a ~100-byte path and a node visited per value).
      const auto plan = plans_.find(reldir);
      if (plan != plans_.end() && plan->second.names == names &&
          plan->second.generation == held_generation_) {
        ++stats_.planned;
        take_values(paths, *names, plan->second.fds, {}, out);
        return;
      }
    }
    // The files held open take their read-ahead values; the others are opened one by one (the
    // first pass, or after a change).
    held_index_.clear();
    held_fds_.clear();
    for (std::size_t i = 0; i < names->size(); ++i) {
      const std::string& file = paths.of((*names)[i]);
      const auto it = held_.find(std::string_view(file));
      if (it != held_.end()) {
        held_index_.push_back(i);
        held_fds_.push_back(it->second);
      } else {
        out[i] = read_polled_locked(file);
      }
    }
    if (held_fds_.empty()) return;
    const std::uint64_t generation = held_generation_;
    take_values(paths, *names, held_fds_, held_index_, out);
    // Every file was held and still is: the next pass of this listing starts from here.
    if (planning && held_fds_.size() == names->size() && held_generation_ == generation) {
      plans_.insert_or_assign(std::string(reldir), ReadPlan{names, generation, held_fds_});
    }
  }

 private:
  /// The descriptors of one directory's listing, in the listing's order, as they were at
  /// `generation` of held_ (any later change of held_ makes the plan void).
  struct ReadPlan {
    Listing names;  ///< held, so its address stands for its contents
    std::uint64_t generation = 0;
    std::vector<int> fds;
  };

  /// Files the values of the held `fds` into `out`: `fds[k]` is the file names[index[k]] (an
  /// empty `index`: names[k]). Each takes the value the pass's read-ahead read; one without
  /// (a second read in the pass) or longer than its slot is read by pread. Every value is
  /// taken before any is filed, so `fds` may be a plan that an error below drops.
  void take_values(ChildPaths& paths, const std::vector<std::string>& names,
                   std::span<const int> fds, std::span<const std::size_t> index,
                   std::vector<Result<std::string>>& out) const {
    const auto name_of = [&](std::size_t k) { return index.empty() ? k : index[k]; };
    taken_.resize(fds.size());
    for (std::size_t k = 0; k < fds.size(); ++k) taken_[k] = take_ahead(fds[k]);
    for (std::size_t k = 0; k < taken_.size(); ++k) {
      const std::size_t i = name_of(k);
      const Ahead& got = taken_[k];
      if (got.bytes == nullptr || got.fills_slot()) {
        out[i] = read_polled_locked(paths.of(names[i]));
      } else if (got.result < 0) {
        const std::string& file = paths.of(names[i]);
        out[i] = errno_error(static_cast<int>(-got.result), file);
        note_read(got.fd, 0);
        // May close other descriptors of the listing: their values are in taken_ already,
        // and a later file that needs reading again looks its descriptor up anew.
        forget_after_error(file, static_cast<int>(-got.result));
      } else {
        note_read(got.fd, static_cast<std::size_t>(got.result));
        out[i] = std::string(got.bytes, static_cast<std::size_t>(got.result));
      }
    }
  }

  /// The least a read-ahead asks of a file: a counter's text is at most 21 digits and a
  /// newline; a file that fills its slot is read again whole.
  static constexpr std::size_t kMinSlot = 64;

  /// The ring, made at the first call; nullptr when reads are not batched (batch_fallback).
  BatchedPread* batch_reader() const {
    if (!options_.batch_reads) return nullptr;
    if (!batch_) batch_ = std::make_unique<BatchedPread>();
    return batch_->available() ? batch_.get() : nullptr;
  }

  /// Why polled files are not read in batches; "" while they are (or before the first try).
  std::string batch_fallback() const {
    if (!options_.batch_reads) return "batch_reads off";
    return batch_ ? batch_->unavailable_reason() : std::string();
  }

  Result<std::string> read_polled_locked(std::string_view relpath) const {
    if (const auto it = held_.find(relpath); it != held_.end()) {
      const int fd = it->second;
      const Ahead ahead = take_ahead(fd);
      Result<std::string> content =
          ahead.bytes == nullptr || ahead.fills_slot() ? pread_whole(fd, relpath)
          : ahead.result < 0 ? Result<std::string>(errno_error(static_cast<int>(-ahead.result),
                                                               std::string(relpath)))
                             : Result<std::string>(std::string(
                                   ahead.bytes, static_cast<std::size_t>(ahead.result)));
      note_read(fd, content ? content->size() : 0);
      if (!content) forget_after_error(std::string(relpath), content.error().code);
      return content;
    }
    const std::string key(relpath);
    const bool cacheable = watch(dir_of(relpath));
    auto fd = open_file(relpath);
    if (!fd) return fd.error();
    auto content = pread_whole(*fd, relpath);
    const bool keep = cacheable && held_.size() < options_.max_open_files &&
                      (content.ok() || error_keeps_descriptor(content.error().code));
    if (keep) {
      held_.emplace(key, *fd);
      ++held_generation_;
      stats_.held = held_.size();
      track_held(*fd);
      note_read(*fd, content ? content->size() : 0);
    } else {
      ::close(*fd);
    }
    return content;
  }

 public:
  Result<std::string> read_static(std::string_view relpath,
                                  std::chrono::nanoseconds* age) const override {
    const std::lock_guard lock(mutex_);
    const auto now = options_.clock();
    if (const auto it = statics_.find(relpath); it != statics_.end() && fresh(it->second, now)) {
      ++stats_.static_hits;
      if (age != nullptr) *age = now - it->second.read_at;
      return it->second.value;
    }
    if (age != nullptr) *age = std::chrono::nanoseconds{0};
    const bool cacheable = watch(dir_of(relpath));
    auto fd = open_file(relpath);
    Result<std::string> content = fd ? pread_whole(*fd, relpath) : Result<std::string>(fd.error());
    if (fd) ::close(*fd);
    if (cacheable && (content.ok() || !descriptor_is_dead(content.error().code))) {
      statics_.insert_or_assign(std::string(relpath), Timed<Result<std::string>>{content, now});
    }
    return content;
  }

  Result<Listing> list_static(std::string_view reldir) const override {
    const std::lock_guard lock(mutex_);
    const auto now = options_.clock();
    if (const auto it = listings_.find(reldir); it != listings_.end() && fresh(it->second, now)) {
      ++stats_.static_hits;
      return it->second.value;
    }
    const bool cacheable = watch(reldir);  // entries come and go in the directory itself
    ++stats_.listings;
    auto listed = inner_->list(reldir);
    Result<Listing> names =
        listed ? Result<Listing>(
                     std::make_shared<const std::vector<std::string>>(std::move(listed).value()))
               : Result<Listing>(listed.error());
    // A directory that is not there (msi_irqs/ of a function without MSI, a driver without
    // hw_counters/) is kept as absent when inotify watches its parent: its creation is an event
    // there (take_event forgets the child); before, it was opened every pass. Not on sysfs,
    // which sends no events: a device registered again within the refresh period would keep an
    // absence that is no longer true.
    const bool absent_kept =
        !names.ok() && names.error().code == ENOENT && notifies(dir_of(reldir));
    if ((cacheable && names.ok()) || absent_kept) {
      listings_.insert_or_assign(std::string(reldir), Timed<Result<Listing>>{names, now});
    }
    return names;
  }

  Result<std::vector<std::string>> list_current(std::string_view reldir) const override {
    {
      const std::lock_guard lock(mutex_);
      if (!notifies(reldir)) {
        ++stats_.listings;
        return inner_->list(reldir);
      }
    }
    auto names = list_static(reldir);
    if (!names) return names.error();
    return **names;
  }

  Result<std::string> read_link_static(std::string_view relpath) const override {
    const std::lock_guard lock(mutex_);
    const auto now = options_.clock();
    if (const auto it = links_.find(relpath); it != links_.end() && fresh(it->second, now)) {
      ++stats_.static_hits;
      return it->second.value;
    }
    const bool cacheable = watch(dir_of(relpath));
    ++stats_.links;
    auto target = inner_->read_link(relpath);
    if (cacheable && (target.ok() || !descriptor_is_dead(target.error().code))) {
      links_.insert_or_assign(std::string(relpath), Timed<Result<std::string>>{target, now});
    }
    return target;
  }

  Derived derive_static(std::string_view key, std::span<const std::string> inputs, Changes changes,
                        const std::function<Derived()>& make) const override {
    std::uint64_t forgets = 0;
    {
      const std::lock_guard lock(mutex_);
      const auto now = options_.clock();
      if (const auto it = derived_.find(key);
          it != derived_.end() && now - it->second.read_at < it->second.value.period) {
        ++stats_.derived_hits;
        return Derived{it->second.value.made.value, now - it->second.read_at};
      }
      forgets = forgets_;
    }
    // Made outside the lock: `make` reads through this source.
    Derived made = make();
    if (made.value == nullptr) return made;
    const std::lock_guard lock(mutex_);
    // Kept only where each value it was made from is (an input under an inotify watch, or on
    // sysfs) and when nothing was forgotten meanwhile (a change it may not have seen).
    const bool cacheable =
        forgets == forgets_ && std::all_of(inputs.begin(), inputs.end(),
                                           [&](const std::string& dir) { return watch(dir); });
    if (cacheable) {
      ++stats_.derived_made;
      const bool announced =
          changes == Changes::announced &&
          (announcing_ || std::all_of(inputs.begin(), inputs.end(),
                                      [&](const std::string& dir) { return notifies(dir); }));
      // Dated by its oldest value, so that it ends when that value's refresh period does.
      derived_.insert_or_assign(
          std::string(key),
          Timed<DerivedEntry>{
              DerivedEntry{made,
                           {inputs.begin(), inputs.end()},
                           changes == Changes::announced,
                           announced ? options_.announced_refresh_period : options_.refresh_period},
              options_.clock() - made.age});
    }
    return made;
  }

  void begin_pass() const override {
    const std::lock_guard lock(mutex_);
    take_events();
    take_announcements();
    read_ahead();
  }

 private:
  /// Forgets the announced values (and the files they were made from) when the feed reports a
  /// change: at once, and again announcement_settle after the last change, since the kernel
  /// updates a GID table in a work queue after the notification (roce_gid_mgmt.c); never more
  /// than once per announcement_settle while changes keep coming (a host making netdevs for
  /// containers).
  void take_announcements() const {
    if (!announcing_) return;
    const auto now = options_.clock();
    if (options_.announcements->changed()) last_announced_ = now;
    if (!last_announced_) return;
    const auto settle = options_.announcement_settle;
    const bool settled = last_forget_ && *last_forget_ >= *last_announced_ + settle;
    const bool rested = !last_forget_ || now - *last_forget_ >= settle;
    if (settled || !rested) return;
    std::vector<std::string> inputs;
    for (const auto& [key, entry] : derived_) {
      if (!entry.value.announced) continue;
      inputs.insert(inputs.end(), entry.value.inputs.begin(), entry.value.inputs.end());
    }
    for (const std::string& input : inputs) forget(input);
    last_forget_ = now;
    ++stats_.announced_forgets;
  }

  /// The changes inotify reported since the last pass.
  void take_events() const {
    if (inotify_fd_ < 0) return;
    // inotify(7): a read returns whole events; EAGAIN once the queue is empty (IN_NONBLOCK).
    alignas(inotify_event) std::array<char, 16384> buf{};
    for (;;) {
      const ssize_t n = ::read(inotify_fd_, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      for (ssize_t at = 0; at < n;) {
        inotify_event event{};
        std::memcpy(&event, buf.data() + at, sizeof event);
        const std::string_view name(buf.data() + at + sizeof event,
                                    ::strnlen(buf.data() + at + sizeof event, event.len));
        take_event(event, name);
        at += static_cast<ssize_t>(sizeof event + event.len);
      }
    }
  }

  /// Reads every held file the last pass read, in one call of the ring (a few for more files
  /// than its depth), before the collectors ask for them: their reads this pass take the values
  /// from here instead of making a system call each (a pread per single value, an
  /// io_uring_enter per directory). A value read ahead is at most one pass's duration older
  /// than one read when asked for, and is served once; what a pass leaves unread is void at the
  /// next. Without the ring there is no read-ahead.
  void read_ahead() const {
    ++pass_;
    for (const int fd : ahead_fds_) tracked_[static_cast<std::size_t>(fd)].ahead = false;
    ahead_fds_.clear();
    last_pass_reads_.swap(pass_reads_);
    pass_reads_.clear();
    BatchedPread* batch = batch_reader();
    if (batch == nullptr) return;
    std::size_t total = 0;
    for (const int fd : last_pass_reads_) {
      Tracked& file = tracked_[static_cast<std::size_t>(fd)];
      // Closed since, or listed twice (a descriptor number reused within the pass).
      if (!file.held || file.ahead || file.pass + 1 != pass_) continue;
      file.ahead = true;
      file.offset = total;
      file.slot = slot_for(file.size);
      total += file.slot;
      ahead_fds_.push_back(fd);
    }
    if (ahead_fds_.empty()) return;
    ahead_buffer_.resize(total);
    ahead_reads_.clear();
    for (const int fd : ahead_fds_) {
      const Tracked& file = tracked_[static_cast<std::size_t>(fd)];
      ahead_reads_.push_back(BatchedPread::Read{fd, ahead_buffer_.data() + file.offset,
                                                static_cast<std::uint32_t>(file.slot)});
    }
    ahead_results_.resize(ahead_fds_.size());
    const std::uint64_t submitted = batch->submissions();
    batch->read(ahead_reads_, ahead_results_);
    stats_.batches += batch->submissions() - submitted;
    if (!batch->available()) {  // the ring failed: this pass reads by pread
      for (const int fd : ahead_fds_) tracked_[static_cast<std::size_t>(fd)].ahead = false;
      ahead_fds_.clear();
      return;
    }
    for (std::size_t j = 0; j < ahead_fds_.size(); ++j) {
      tracked_[static_cast<std::size_t>(ahead_fds_[j])].result = ahead_results_[j];
    }
  }

  /// The bytes a read-ahead asks of a file whose last read gave `size`: room for a quarter
  /// more, so that a value that grew a little still fits (one that fills its slot is read
  /// again whole).
  std::size_t slot_for(std::size_t size) const {
    const std::size_t wanted = (size + size / 4 + kMinSlot) & ~(kMinSlot - 1);
    return std::min(wanted, options_.max_read_size + 1);
  }

  /// A value read ahead: `result` bytes at `bytes`, or -errno; a file that filled its `slot`
  /// was cut and is read again whole.
  struct Ahead {
    const char* bytes = nullptr;  ///< null: nothing read
    long result = 0;
    std::size_t slot = 0;
    int fd = -1;
    bool fills_slot() const { return result >= 0 && static_cast<std::size_t>(result) >= slot; }
  };

  /// The read-ahead's value of the held descriptor `fd`, once; bytes null when there is none.
  Ahead take_ahead(int fd) const {
    if (static_cast<std::size_t>(fd) >= tracked_.size()) return Ahead{nullptr, 0, 0, fd};
    Tracked& file = tracked_[static_cast<std::size_t>(fd)];
    if (!file.ahead) return Ahead{nullptr, 0, 0, fd};
    file.ahead = false;
    ++stats_.read_ahead;
    return Ahead{ahead_buffer_.data() + file.offset, file.result, file.slot, fd};
  }

  /// The held descriptor `fd` was read this pass and gave `size` bytes: the next pass reads
  /// it ahead.
  void note_read(int fd, std::size_t size) const {
    if (static_cast<std::size_t>(fd) >= tracked_.size()) return;
    Tracked& file = tracked_[static_cast<std::size_t>(fd)];
    if (!file.held) return;
    file.size = size;
    if (file.pass != pass_) {
      file.pass = pass_;
      pass_reads_.push_back(fd);
    }
  }

  void track_held(int fd) const {
    if (static_cast<std::size_t>(fd) >= tracked_.size()) {
      tracked_.resize(static_cast<std::size_t>(fd) + 1);
    }
    tracked_[static_cast<std::size_t>(fd)] = Tracked{};
    tracked_[static_cast<std::size_t>(fd)].held = true;
  }

  /// Closes a held descriptor; its number, which the kernel may hand out again at once, no
  /// longer stands for the file (nor for a value read ahead).
  void close_held(int fd) const {
    ::close(fd);
    if (static_cast<std::size_t>(fd) < tracked_.size()) {
      tracked_[static_cast<std::size_t>(fd)] = Tracked{};
    }
  }

 public:
  void invalidate(std::string_view prefix) const override {
    const std::lock_guard lock(mutex_);
    forget(prefix);
  }

  std::string read_fallback() const override {
    const std::lock_guard lock(mutex_);
    return batch_fallback();
  }

  FileCacheStats stats() const override {
    const std::lock_guard lock(mutex_);
    FileCacheStats stats = stats_;
    stats.batch_unavailable = batch_fallback();
    stats.announcements_unavailable =
        options_.announcements == nullptr ? "no feed" : options_.announcements->unavailable();
    return stats;
  }

 private:
  struct Watched {
    bool cacheable = false;
    int wd = -1;  ///< -1 on sysfs (no events there) or when not cacheable
  };

  template <class T>
  bool fresh(const Timed<T>& entry, CacheClock::time_point now) const {
    return now - entry.read_at < options_.refresh_period;
  }

  Result<int> open_file(std::string_view relpath) const {
    auto path = resolve_under_root(root_, relpath);
    if (!path) return path.error();
    ++stats_.opens;
    // O_NONBLOCK: never hang on a FIFO left in a fixture tree; no effect on sysfs.
    const int fd = ::open(path->c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return errno_error(errno, std::string(relpath));
    // A FIFO or device would read as empty (or as anything): refused by name, once per open,
    // which the cache makes once per file (sysfs attributes are regular files).
    struct stat st {};
    std::optional<Error> problem;
    if (::fstat(fd, &st) != 0) {
      problem = errno_error(errno, std::string(relpath));
    } else {
      problem = not_regular_file(std::string(relpath), st.st_mode);
    }
    if (!problem) return fd;
    ::close(fd);
    return *std::move(problem);
  }

  // The whole file from offset 0. A read shorter than asked is the end: a sysfs attribute
  // gives its whole text to the first read at offset 0 (at most PAGE_SIZE, fs/sysfs/file.c
  // sysfs_kf_read), and read(2) on a regular file returns fewer bytes only at its end, so one
  // pread per value unless the value fills the buffer.
  // The first read lands in a buffer on the stack, and the string gets only the bytes read: a
  // counter value ("1234567\n") fits the string's inline storage, so a value costs no allocation.
  Result<std::string> pread_whole(int fd, std::string_view relpath) const {
    constexpr std::size_t first_chunk = 4096;
    std::array<char, first_chunk> buffer;  // NOLINT: filled by pread before it is read
    std::string content;
    std::size_t chunk = first_chunk;
    for (;;) {
      const std::size_t at = content.size();
      // A file that fills the first read is read on straight into the string, each read four
      // times the last and never far past max_read_size: a 16 KiB `ethtool -S` dump of the
      // offline source in two reads, not five.
      char* into = buffer.data();
      if (at > 0) {
        content.resize(at + chunk);
        into = content.data() + at;
      }
      ++stats_.preads;
      const ssize_t n = options_.pread(fd, into, chunk, static_cast<off_t>(at));
      if (n < 0) {
        const int error = errno;
        content.resize(at);
        if (error == EINTR) continue;
        return errno_error(error, std::string(relpath));
      }
      if (at == 0) {
        content.assign(buffer.data(), static_cast<std::size_t>(n));
      } else {
        content.resize(at + static_cast<std::size_t>(n));
      }
      if (content.size() > options_.max_read_size) {
        return Error{EFBIG, std::string(relpath) + ": larger than " +
                                std::to_string(options_.max_read_size) +
                                " bytes, not a sysfs attribute"};
      }
      if (static_cast<std::size_t>(n) < chunk) return content;
      chunk = std::min(chunk * 4, options_.max_read_size + 1 - content.size());
    }
  }

  // A held descriptor failed: close it unless the error is one an attribute gives per read;
  // if the file is gone, so is what was cached next to it.
  void forget_after_error(const std::string& key, int code) const {
    if (error_keeps_descriptor(code)) return;
    if (descriptor_is_dead(code)) {
      forget(dir_of(key));
    } else {
      drop_held(key);
    }
  }

  void drop_held(const std::string& key) const {
    const auto it = held_.find(key);
    if (it == held_.end()) return;
    close_held(it->second);
    held_.erase(it);
    ++held_generation_;
    ++stats_.dropped;
    stats_.held = held_.size();
  }

  void forget(std::string_view prefix) const {
    for (auto it = held_.begin(); it != held_.end();) {
      if (under(it->first, prefix)) {
        close_held(it->second);
        it = held_.erase(it);
        ++held_generation_;
        ++stats_.dropped;
      } else {
        ++it;
      }
    }
    stats_.held = held_.size();
    const auto erase_under = [&](auto& map) {
      std::erase_if(map, [&](const auto& entry) { return under(entry.first, prefix); });
    };
    erase_under(statics_);
    erase_under(listings_);
    erase_under(links_);
    erase_under(plans_);
    forget_derived_from(prefix);
    ++forgets_;
  }

  /// Forgets what was derived from the files of a directory at or below `path`, or from
  /// `path` itself (a file of an input directory). A change deeper in an input (a counter of
  /// the device whose identity was derived) leaves it.
  void forget_derived_from(std::string_view path) const {
    std::erase_if(derived_, [&](const auto& entry) {
      const std::vector<std::string>& inputs = entry.second.value.inputs;
      return std::any_of(inputs.begin(), inputs.end(), [&](const std::string& dir) {
        return under(dir, path) || dir_of(path) == dir;
      });
    });
  }

  // Whether what is read in `reldir` may be kept: on sysfs always (removal shows as ENODEV),
  // elsewhere only under an inotify watch. Decided once per directory.
  bool watch(std::string_view reldir) const {
    if (const auto it = watched_.find(reldir); it != watched_.end()) return it->second.cacheable;
    const std::string key(reldir);
    const auto path = resolve_under_root(root_, reldir);
    if (!path) return false;
    struct statfs fs {};
    if (::statfs(path->c_str(), &fs) != 0) return false;  // not there (yet): ask again later
    Watched w;
    if (fs.f_type == SYSFS_MAGIC) {
      w.cacheable = true;
    } else {
      if (inotify_fd_ < 0 && !inotify_failed_) {
        inotify_fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        inotify_failed_ = inotify_fd_ < 0;
      }
      if (inotify_fd_ >= 0) {
        // Several paths can name one directory through links: the kernel returns the same
        // watch descriptor for the same inode (inotify_add_watch(2)), so one wd may stand for
        // several of our directories.
        w.wd = ::inotify_add_watch(inotify_fd_, path->c_str(), kWatchMask);
        w.cacheable = w.wd >= 0;
        if (w.wd >= 0) watch_dirs_[w.wd].push_back(key);
      }
    }
    watched_.emplace(key, w);
    return w.cacheable;
  }

  /// True when changes in `reldir` arrive as inotify events (a fixture, capture or simulator
  /// tree; sysfs sends none).
  bool notifies(std::string_view reldir) const {
    if (!watch(reldir)) return false;
    const auto it = watched_.find(reldir);
    return it != watched_.end() && it->second.wd >= 0;
  }

  void take_event(const inotify_event& event, std::string_view name) const {
    if ((event.mask & IN_Q_OVERFLOW) != 0) {  // events were lost: trust nothing
      forget("");
      return;
    }
    const auto it = watch_dirs_.find(event.wd);
    if (it == watch_dirs_.end()) return;
    const std::vector<std::string> dirs = it->second;
    const bool gone = (event.mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) != 0;
    if (gone && (event.mask & IN_IGNORED) != 0) watch_dirs_.erase(event.wd);
    for (const std::string& dir : dirs) {
      if (gone || name.empty()) {
        forget(dir);
        if ((event.mask & IN_IGNORED) != 0) watched_.erase(dir);
        continue;
      }
      const std::string child = dir.empty() ? std::string(name) : dir + "/" + std::string(name);
      if ((event.mask & (IN_MODIFY | IN_ATTRIB)) != 0) {
        // Rewritten in place: a held descriptor reads the new bytes; a kept copy is stale.
        statics_.erase(child);
        forget_derived_from(child);
        if ((event.mask & IN_ATTRIB) != 0) drop_held(child);  // permissions may have changed
      } else {
        forget(child);  // created, removed or renamed: everything at or below that name
        listings_.erase(dir);
      }
    }
  }

  std::string root_;
  FileCacheOptions options_;
  std::unique_ptr<FileSource> inner_;
  /// Whether `announcements` works (decided when it subscribed, ChangeFeed::unavailable).
  const bool announcing_;
  mutable std::mutex mutex_;
  // The maps by path are looked up by the caller's string_view on every read, without building
  // a key string (a path is longer than a string's inline storage: an allocation each).
  struct PathHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view path) const noexcept {
      return std::hash<std::string_view>{}(path);
    }
  };
  template <class T>
  using ByPath = std::unordered_map<std::string, T, PathHash, std::equal_to<>>;
  mutable ByPath<int> held_;
  /// Changes whenever held_ gains or loses a descriptor: a ReadPlan of another generation is
  /// void.
  mutable std::uint64_t held_generation_ = 0;
  /// read_polled_many's plans, by directory.
  mutable ByPath<ReadPlan> plans_;
  mutable ByPath<Timed<Result<std::string>>> statics_;
  mutable ByPath<Timed<Result<Listing>>> listings_;
  mutable ByPath<Timed<Result<std::string>>> links_;
  struct DerivedEntry {
    Derived made;
    std::vector<std::string> inputs;  ///< the directories its values were read from
    bool announced = false;           ///< derived with Changes::announced
    /// How long it is served: announced_refresh_period where its changes are announced.
    std::chrono::nanoseconds period{0};
  };
  /// derive_static's values, by key, dated by the oldest value each was made from.
  mutable ByPath<Timed<DerivedEntry>> derived_;
  /// Counts forget() calls: a value made while one ran may rest on what it forgot.
  mutable std::uint64_t forgets_ = 0;
  /// When the announcements last reported a change, and when announced values were last
  /// forgotten for one (take_announcements).
  mutable std::optional<CacheClock::time_point> last_announced_;
  mutable std::optional<CacheClock::time_point> last_forget_;
  mutable ByPath<Watched> watched_;
  mutable std::unordered_map<int, std::vector<std::string>> watch_dirs_;
  mutable int inotify_fd_ = -1;
  mutable bool inotify_failed_ = false;
  mutable FileCacheStats stats_;
  // The read-ahead's ring, made at the first pass.
  mutable std::unique_ptr<BatchedPread> batch_;
  // read_polled_many's buffers, reused across calls.
  mutable std::vector<std::size_t> held_index_;
  mutable std::vector<int> held_fds_;
  mutable std::vector<Ahead> taken_;
  /// What the read-ahead knows of each held descriptor, by its number.
  struct Tracked {
    bool held = false;
    bool ahead = false;      ///< `result` is this pass's read-ahead, not yet taken
    std::uint64_t pass = 0;  ///< the last pass that read it
    std::size_t size = 0;    ///< bytes its last read gave
    std::size_t offset = 0;  ///< of its read-ahead in ahead_buffer_
    std::size_t slot = 0;    ///< bytes the read-ahead asked for
    long result = 0;         ///< bytes the read-ahead read, or -errno
  };
  mutable std::vector<Tracked> tracked_;
  mutable std::uint64_t pass_ = 0;
  mutable std::vector<int> pass_reads_;       ///< held descriptors read this pass, once each
  mutable std::vector<int> last_pass_reads_;  ///< the last pass's
  mutable std::vector<int> ahead_fds_;        ///< read ahead this pass
  mutable std::vector<BatchedPread::Read> ahead_reads_;
  mutable std::vector<long> ahead_results_;
  mutable std::vector<char> ahead_buffer_;
};

}  // namespace

std::unique_ptr<CachedFileSource> make_cached_file_source(std::string root,
                                                          FileCacheOptions options) {
  return std::make_unique<CachedDirectorySource>(std::move(root), std::move(options));
}

}  // namespace rdmatop
