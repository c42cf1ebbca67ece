#include "collector/sysfs_object_reader.h"

#include <algorithm>
#include <cerrno>
#include <map>

#include "collector/parse/sysfs_parse.h"

namespace rdmatop {
namespace {

constexpr std::size_t max_listed_problems = 8;

bool is_benign_errno(int code) {
  // EINVAL: PMA MAD failed on current kernels, unpopulated GID attrs, rate of an unknown width;
  // EOPNOTSUPP: the driver does not implement the attribute; ENOSYS: no MAD support
  // (drivers/infiniband/core/sysfs.c show_pma_counter/get_perf_mad; docs/domain.md#pma-counters).
  return code == EINVAL || code == EOPNOTSUPP || code == ENOSYS;
}

bool is_gone_errno(int code) {
  // kernfs removes the node on unregister (ENOENT at open); a read racing the removal of an
  // already-open attribute gets ENODEV (fs/kernfs/file.c kernfs_get_active failing).
  return code == ENOENT || code == ENODEV;
}

}  // namespace

std::string ProblemLog::message() const {
  std::string out;
  std::size_t listed = 0;
  for (const auto* group : {&errors_, &notes_}) {
    for (const auto& m : *group) {
      if (listed == max_listed_problems) break;
      if (!out.empty()) out += "; ";
      out += m;
      ++listed;
    }
  }
  const std::size_t total = errors_.size() + notes_.size();
  if (total > listed) out += "; (+" + std::to_string(total - listed) + " more)";
  return out;
}

std::string join_path(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  std::string out(a);
  out += '/';
  out += b;
  return out;
}

SysfsObjectReader::SysfsObjectReader(const FileSource& fs, std::string base, std::string owner,
                                     ProblemLog& log)
    : fs_(fs), base_(std::move(base)), owner_(std::move(owner)), log_(log) {}

std::string SysfsObjectReader::path(std::string_view rel) const {
  return join_path(base_, rel);
}

bool SysfsObjectReader::owner_vanished() const {
  const auto error = fs_.lookup_error(owner_);
  return error && is_gone_errno(error->code);
}

void SysfsObjectReader::record(std::string_view rel, const Error& error, Presence presence) {
  if (vanished_) return;
  const std::string what(rel.empty() ? std::string_view(".") : rel);
  if (is_gone_errno(error.code)) {
    if (presence == Presence::usually_absent && error.code == ENOENT) return;
    if (owner_vanished()) {
      vanished_ = true;
      return;
    }
    if (presence == Presence::optional && error.code == ENOENT) return;
    log_.error(errno_error(error.code, what).message);
  } else if (is_benign_errno(error.code)) {
    log_.note(errno_error(error.code, what).message);
  } else if (error.code != 0) {
    log_.error(errno_error(error.code, what).message);
  } else {
    log_.error(what + ": " + error.message);  // a non-errno failure (path rejected, ...)
  }
}

void SysfsObjectReader::record_parse_error(std::string_view rel, const Error& error) {
  if (vanished_) return;
  log_.error(std::string(rel) + ": " + error.message);
}

Result<std::string> SysfsObjectReader::fetch(std::string_view rel, Refresh refresh) {
  if (refresh == Refresh::every_pass) return fs_.read_polled(path(rel));
  std::chrono::nanoseconds age{0};
  auto content = fs_.read_static(path(rel), &age);
  static_age_ = std::max(static_age_, age);
  return content;
}

Result<std::string> SysfsObjectReader::read_raw(std::string_view rel, Refresh refresh) {
  return fetch(rel, refresh);
}

std::optional<std::string> SysfsObjectReader::read(std::string_view rel, Presence presence,
                                                   Refresh refresh) {
  if (vanished_) return std::nullopt;
  auto content = fetch(rel, refresh);
  if (!content) {
    record(rel, content.error(), presence);
    return std::nullopt;
  }
  return std::move(content).value();
}

std::optional<std::string> SysfsObjectReader::read_text(std::string_view rel, Presence presence,
                                                        Refresh refresh) {
  const auto content = read(rel, presence, refresh);
  if (!content) return std::nullopt;
  auto text = parse_text_attribute(*content);
  if (!text) {
    record_parse_error(rel, text.error());
    return std::nullopt;
  }
  return std::move(text).value();
}

std::optional<std::uint64_t> SysfsObjectReader::read_u64(std::string_view rel, Presence presence,
                                                         Refresh refresh) {
  if (vanished_) return std::nullopt;
  return counter_value(fetch(rel, refresh), "", rel, presence);
}

std::optional<std::uint64_t> SysfsObjectReader::counter_value(const Result<std::string>& content,
                                                              std::string_view dir,
                                                              std::string_view name,
                                                              Presence presence) {
  if (!content) {
    record(join_path(dir, name), content.error(), presence);
    return std::nullopt;
  }
  const auto value = parse_counter_value(*content);
  if (!value) {
    record_parse_error(join_path(dir, name), value.error());
    return std::nullopt;
  }
  return *value;
}

Listing SysfsObjectReader::list(std::string_view rel, Presence presence) {
  if (vanished_) return nullptr;
  auto names = fs_.list_static(path(rel));
  if (!names) {
    record(rel, names.error(), presence);
    return nullptr;
  }
  return std::move(names).value();
}

std::optional<std::string> SysfsObjectReader::read_link(std::string_view rel) {
  if (vanished_) return std::nullopt;
  auto target = fs_.read_link_static(path(rel));
  if (!target) {
    record(rel, target.error(), Presence::optional);
    return std::nullopt;
  }
  return std::move(target).value();
}

namespace {

/// `names` without `name` (the same listing when it has none). Derived once per listing and
/// kept while that listing lives: a caching source hands out the same listing every pass, so
/// a pass that sets a file aside (hw_counters/lifespan) copies no name either. Per thread, so
/// without a lock.
Listing listing_without(const Listing& names, std::string_view name) {
  const auto at = std::lower_bound(names->begin(), names->end(), name, std::less<>{});
  if (at == names->end() || *at != name) return names;
  thread_local std::map<std::string, PerNames<Listing>, std::less<>> derived;
  auto slot = derived.find(name);
  if (slot == derived.end()) slot = derived.try_emplace(std::string(name)).first;
  return slot->second.get(names, [&](const CounterNames& all) {
    const auto skip = std::lower_bound(all.begin(), all.end(), name, std::less<>{});
    auto without = std::make_shared<std::vector<std::string>>(all.begin(), skip);
    without->insert(without->end(), skip + 1, all.end());
    return Listing(std::move(without));
  });
}

}  // namespace

SysfsObjectReader::DirOutcome SysfsObjectReader::read_counters(
    std::string_view dir, CounterMap& out, std::string_view aside,
    std::optional<std::uint64_t>* aside_value, Presence presence) {
  if (vanished_) return DirOutcome::failed;
  out.clear();
  auto listed = fs_.list_static(path(dir));
  if (!listed) {
    record(dir, listed.error(), presence);
    const bool absent = !vanished_ && listed.error().code == ENOENT;
    return absent ? DirOutcome::absent : DirOutcome::failed;
  }
  Listing files = std::move(listed).value();
  if (files->size() > kMaxCounterFiles) {
    log_.error(std::string(dir) + "/: " + std::to_string(files->size()) + " files, more than the " +
               std::to_string(kMaxCounterFiles) + " a driver has; read the first " +
               std::to_string(kMaxCounterFiles) + " only");
    files = std::make_shared<const std::vector<std::string>>(
        files->begin(), files->begin() + static_cast<std::ptrdiff_t>(kMaxCounterFiles));
  }
  // The counters' names: the files but the one set aside.
  Listing names = aside.empty() ? files : listing_without(files, aside);
  // The whole directory in one call: a caching source reads the files it holds open with one
  // system call (FileSource::read_polled_many); `rel` is built only for a problem.
  std::vector<Result<std::string>> contents;
  fs_.read_polled_many(path(dir), files, contents);
  std::vector<std::uint64_t> values;
  values.reserve(names->size());
  std::vector<bool> read(files->size(), false);
  for (std::size_t i = 0; i < files->size(); ++i) {
    const std::string& name = (*files)[i];
    // Listed a moment ago, so a missing file is unexpected: required.
    const auto value = counter_value(contents[i], dir, name, Presence::required);
    if (vanished_) return DirOutcome::failed;
    if (!aside.empty() && name == aside) {
      if (aside_value != nullptr) *aside_value = value;
      continue;
    }
    if (!value) continue;
    values.push_back(*value);
    read[i] = true;
  }
  // A FileSource lists names sorted and unique; one that did not would get a map built below.
  if (auto whole = CounterMap::over_sorted(names, values)) {
    out = std::move(*whole);
    return DirOutcome::read;
  }
  // Some files were left out: a map of its own names for this pass.
  CounterMapBuilder partial;
  for (std::size_t i = 0, next = 0; i < files->size(); ++i) {
    if (read[i]) partial.add((*files)[i], values[next++]);
  }
  out = std::move(partial).finish();
  return DirOutcome::read;
}

}  // namespace rdmatop
