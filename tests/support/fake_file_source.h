// An in-memory FileSource for collector tests: files, directories and links, plus injected
// failures (a chosen errno on one path; a whole subtree that vanishes after N operations, to
// play a device being unregistered between listing and reading). It records every operation
// so tests can check how much work a collector did.
#pragma once

#include <cerrno>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collector/source/file_source.h"

namespace rdmatop::testing {

class FakeFileSource final : public FileSource {
 public:
  enum class Op { read, list, read_link, lookup };

  /// A regular file; missing parent directories are created.
  FakeFileSource& file(std::string_view path, std::string content) {
    Node& node = put(path, Kind::file);
    node.data = std::move(content);
    return *this;
  }
  /// An (empty) directory.
  FakeFileSource& dir(std::string_view path) {
    put(path, Kind::dir);
    return *this;
  }
  /// A symbolic link. Entries may also be created *under* a link path; they behave as if the
  /// link were followed (the way sysfs class links and `device/net/...` are read).
  FakeFileSource& link(std::string_view path, std::string target) {
    Node& node = put(path, Kind::link);
    node.data = std::move(target);
    return *this;
  }
  /// Every operation on exactly `path` fails with `code` (EACCES, EOPNOTSUPP, EINVAL, ...).
  FakeFileSource& fail(std::string_view path, int code) {
    failures_[normalize(path)] = code;
    return *this;
  }
  /// After `operations` operations on `prefix` or anything under it, the subtree is gone:
  /// operations on it fail with ENOENT and listings of its parent no longer show it.
  FakeFileSource& vanish_after(std::string_view prefix, std::size_t operations) {
    vanishing_.push_back(Vanish{normalize(prefix), operations, 0});
    return *this;
  }

  /// How many operations of `op` hit `prefix` or a path under it.
  std::size_t count(Op op, std::string_view prefix) const {
    const std::string p = normalize(prefix);
    std::size_t n = 0;
    for (const auto& [o, path] : log_) {
      if (o == op && under(path, p)) ++n;
    }
    return n;
  }

  Result<std::string> read(std::string_view relpath) const override {
    const std::string path = normalize(relpath);
    if (auto err = check(Op::read, path)) return *err;
    const auto it = nodes_.find(path);
    if (it == nodes_.end()) return errno_error(ENOENT, path);
    switch (it->second.kind) {
      case Kind::file:
        return it->second.data;
      case Kind::dir:
        return errno_error(EISDIR, path);
      case Kind::link:
        return errno_error(has_children(path) ? EISDIR : ENOENT, path);
    }
    return errno_error(EIO, path);
  }

  Result<std::vector<std::string>> list(std::string_view reldir) const override {
    const std::string path = normalize(reldir);
    if (auto err = check(Op::list, path)) return *err;
    if (!path.empty()) {
      const auto it = nodes_.find(path);
      if (it == nodes_.end()) return errno_error(ENOENT, path);
      if (it->second.kind == Kind::file) return errno_error(ENOTDIR, path);
    }
    std::vector<std::string> names;
    const std::string prefix = path.empty() ? "" : path + "/";
    for (auto it = nodes_.lower_bound(prefix); it != nodes_.end(); ++it) {
      const std::string& child = it->first;
      if (child.compare(0, prefix.size(), prefix) != 0) break;
      const std::string_view rest = std::string_view(child).substr(prefix.size());
      if (rest.empty() || rest.find('/') != std::string_view::npos) continue;
      if (!is_vanished(child)) names.emplace_back(rest);
    }
    return names;  // std::map order is already sorted
  }

  Result<std::string> read_link(std::string_view relpath) const override {
    const std::string path = normalize(relpath);
    if (auto err = check(Op::read_link, path)) return *err;
    const auto it = nodes_.find(path);
    if (it == nodes_.end()) return errno_error(ENOENT, path);
    if (it->second.kind != Kind::link) return errno_error(EINVAL, path);
    return it->second.data;
  }

  std::optional<Error> lookup_error(std::string_view relpath) const override {
    const std::string path = normalize(relpath);
    if (auto err = check(Op::lookup, path)) return *err;
    if (!path.empty() && nodes_.find(path) == nodes_.end()) return errno_error(ENOENT, path);
    return std::nullopt;
  }

  std::string describe() const override { return "fake"; }

 private:
  enum class Kind { file, dir, link };
  struct Node {
    Kind kind = Kind::dir;
    std::string data;
  };
  struct Vanish {
    std::string prefix;
    std::size_t allowed = 0;
    mutable std::size_t seen = 0;
  };

  static std::string normalize(std::string_view path) {
    while (!path.empty() && path.front() == '/') path.remove_prefix(1);
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    return std::string(path);
  }
  static bool under(std::string_view path, std::string_view prefix) {
    if (prefix.empty()) return true;
    return path.substr(0, prefix.size()) == prefix &&
           (path.size() == prefix.size() || path[prefix.size()] == '/');
  }

  Node& put(std::string_view raw, Kind kind) {
    const std::string path = normalize(raw);
    for (std::size_t slash = path.find('/'); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
      nodes_.try_emplace(path.substr(0, slash), Node{Kind::dir, {}});  // keeps existing links
    }
    Node& node = nodes_[path];
    node.kind = kind;
    return node;
  }

  bool has_children(const std::string& path) const {
    const auto it = nodes_.lower_bound(path + "/");
    return it != nodes_.end() && under(it->first, path);
  }

  bool is_vanished(const std::string& path) const {
    for (const auto& v : vanishing_) {
      if (v.seen > v.allowed && under(path, v.prefix)) return true;
    }
    return false;
  }

  // Logs the operation and applies injected failures; nullptr when the operation may proceed.
  const Error* check(Op op, const std::string& path) const {
    log_.emplace_back(op, path);
    for (const auto& v : vanishing_) {
      if (under(path, v.prefix)) ++v.seen;
    }
    if (is_vanished(path)) return remember(errno_error(ENOENT, path));
    if (const auto it = failures_.find(path); it != failures_.end()) {
      return remember(errno_error(it->second, path));
    }
    return nullptr;
  }
  const Error* remember(Error e) const {
    last_error_ = std::move(e);
    return &last_error_;
  }

  std::map<std::string, Node> nodes_;
  std::map<std::string, int> failures_;
  std::vector<Vanish> vanishing_;
  mutable std::vector<std::pair<Op, std::string>> log_;
  mutable Error last_error_;
};

}  // namespace rdmatop::testing
