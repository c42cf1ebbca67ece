// Offline EthtoolSource: answers from text captured with the ethtool CLI on some host, so a
// capture can be analysed anywhere (--ethtool-dir). File layout, per interface:
//   <dir>/<if>.txt (or <dir>/<if>)  `ethtool -S <if>`
//   <dir>/<if>.info                 `ethtool -i <if>`
//   <dir>/<if>.pause                `ethtool -I -a <if>`
// A missing file answers EOPNOTSUPP, which is what the live ioctl path returns for a driver
// without that operation, so collectors treat "not captured" and "not supported" alike.
#include <cerrno>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "collector/parse/ethtool_text.h"
#include "collector/source/ethtool_source.h"
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
  explicit DumpEthtoolSource(std::string dir) : dir_(std::move(dir)) {}

  Result<CounterMap> stats(const std::string& ifname) override {
    return parse_file(ifname, {".txt", ""}, "ethtool", parse_ethtool_stats_text);
  }

  Result<DriverInfo> driver_info(const std::string& ifname) override {
    return parse_file(ifname, {".info"}, "ethtool -i", parse_ethtool_driver_info_text);
  }

  Result<PauseInfo> pause(const std::string& ifname) override {
    return parse_file(ifname, {".pause"}, "ethtool -a", parse_ethtool_pause_text);
  }

  std::string describe() const override { return "dir " + dir_; }

 private:
  // Reads the first existing <dir>/<if><suffix> and parses it; parse errors are prefixed with
  // the file path so the message says which capture is broken.
  template <class Parser>
  auto parse_file(const std::string& ifname, std::initializer_list<std::string_view> suffixes,
                  std::string_view kind, Parser parser) const
      -> decltype(parser(std::string_view{})) {
    if (!is_valid_ifname(ifname)) {
      return Error{EINVAL, "invalid interface name \"" + ifname + "\" for " + describe()};
    }
    for (const std::string_view suffix : suffixes) {
      const std::string path = dir_ + "/" + ifname + std::string(suffix);
      auto content = read_bounded_file(path, kMaxDumpBytes);
      if (!content.ok()) {
        if (content.error().code == ENOENT) continue;
        return content.error();
      }
      auto parsed = parser(content.value());
      if (!parsed.ok()) return Error{parsed.error().code, path + ": " + parsed.error().message};
      return parsed;
    }
    return Error{EOPNOTSUPP, "no " + std::string(kind) + " dump for " + ifname + " in " + dir_};
  }

  std::string dir_;
};

}  // namespace

std::unique_ptr<EthtoolSource> make_dump_ethtool_source(std::string dir) {
  return std::make_unique<DumpEthtoolSource>(std::move(dir));
}

}  // namespace rdmatop
