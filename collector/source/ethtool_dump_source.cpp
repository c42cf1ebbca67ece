// Offline EthtoolSource: answers from text captured with the ethtool CLI on some host, so a
// capture can be analysed anywhere (--ethtool-dir). File layout, per interface:
//   <dir>/<if>.txt (or <dir>/<if>)  `ethtool -S <if>`
//   <dir>/<if>.info                 `ethtool -i <if>`
//   <dir>/<if>.pause                `ethtool -I -a <if>`
// A missing file answers EOPNOTSUPP, which is what the live ioctl path returns for a driver
// without that operation, so collectors treat "not captured" and "not supported" alike.
// The files are read through a FileSource: with the attribute-file cache (--file-cache on) the
// `-S` dump stays open and is re-read with pread each pass, and the `-i` / `-a` dumps are served
// from memory until inotify reports a change (cached_file_source.h), so a pass opens no file:
// 3 opens per netdev per pass before (issue 18).
#include <cerrno>
#include <cstddef>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "collector/parse/ethtool_text.h"
#include "collector/source/cached_file_source.h"
#include "collector/source/ethtool_source.h"
#include "collector/source/file_source.h"
#include "util/bounded_file.h"

namespace rdmatop {

namespace {

// A capture is a few hundred lines; anything far larger is not a capture.
constexpr std::size_t kMaxDumpBytes = 16 * 1024 * 1024;

// An interface name is one path component (IFNAMSIZ 16 incl. NUL); refusing "/" and dot
// names keeps a hostile name from reading outside the dump directory.
bool is_valid_ifname(std::string_view name) {
  return !name.empty() && name.size() < 16 && name != "." && name != ".." &&
         name.find('/') == std::string_view::npos && name.find('\0') == std::string_view::npos;
}

class DumpEthtoolSource final : public EthtoolSource {
 public:
  DumpEthtoolSource(std::string dir, std::unique_ptr<FileSource> files)
      : dir_(std::move(dir)), files_(std::move(files)) {}

  // Counters change every pass: read every time. Driver info and pause settings change when
  // someone re-captures them: the cache may serve them until their file changes.
  Result<CounterMap> stats(const std::string& ifname) override {
    CounterLayout& layout = layouts_[ifname];
    return parse_file(
        ifname, {".txt", ""}, "ethtool", Read::polled,
        [&layout](std::string_view text) { return parse_ethtool_stats_text(text, &layout); });
  }

  Result<DriverInfo> driver_info(const std::string& ifname) override {
    return parse_file(ifname, {".info"}, "ethtool -i", Read::statics,
                      parse_ethtool_driver_info_text);
  }

  Result<PauseInfo> pause(const std::string& ifname) override {
    return parse_file(ifname, {".pause"}, "ethtool -a", Read::statics, parse_ethtool_pause_text);
  }

  void begin_pass() override {
    if (files_ != nullptr) files_->begin_pass();
  }

  std::string describe() const override { return "dir " + dir_; }

 private:
  // Reads the first existing <dir>/<if><suffix> and parses it; parse errors are prefixed with
  // the file path so the message says which capture is broken.
  enum class Read { polled, statics };

  template <class Parser>
  auto parse_file(const std::string& ifname, std::initializer_list<std::string_view> suffixes,
                  std::string_view kind, Read how, Parser parser) const
      -> decltype(parser(std::string_view{})) {
    if (!is_valid_ifname(ifname)) {
      return Error{EINVAL, "invalid interface name \"" + ifname + "\" for " + describe()};
    }
    for (const std::string_view suffix : suffixes) {
      const std::string rel = ifname + std::string(suffix);
      auto content = read(rel, how);
      if (!content.ok()) {
        if (content.error().code == ENOENT) continue;
        return content.error();
      }
      auto parsed = parser(content.value());
      if (!parsed.ok()) {
        return Error{parsed.error().code, path_of(rel) + ": " + parsed.error().message};
      }
      return parsed;
    }
    return Error{EOPNOTSUPP, "no " + std::string(kind) + " dump for " + ifname + " in " + dir_};
  }

  std::string path_of(const std::string& rel) const { return dir_ + "/" + rel; }

  // Errors name the whole path; the cached read builds it only for an error.
  Result<std::string> read(const std::string& rel, Read how) const {
    if (files_ == nullptr) return read_bounded_file(path_of(rel), kMaxDumpBytes);
    auto content =
        how == Read::polled ? files_->read_polled(rel) : files_->read_static(rel, nullptr);
    if (!content.ok()) return Error{content.error().code, path_of(content.error().message)};
    return content;
  }

  std::string dir_;
  std::unique_ptr<FileSource> files_;  ///< the cache; nullptr: open and read every time
  /// Each interface's `-S` names from its last dump: a dump with the same names allocates none.
  std::map<std::string, CounterLayout, std::less<>> layouts_;
};

}  // namespace

std::unique_ptr<EthtoolSource> make_dump_ethtool_source(std::string dir, DumpReads reads) {
  std::unique_ptr<FileSource> files;
  if (reads == DumpReads::cached) {
    FileCacheOptions options;
    options.max_read_size = kMaxDumpBytes;
    files = make_cached_file_source(dir, std::move(options));
  }
  return std::make_unique<DumpEthtoolSource>(std::move(dir), std::move(files));
}

}  // namespace rdmatop
