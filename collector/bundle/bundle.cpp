#include "collector/bundle/bundle.h"

#include <archive.h>
#include <archive_entry.h>

#include <memory>

namespace rdmatop::bundle {

nlohmann::ordered_json make_manifest(const ManifestHost& host,
                                     const std::vector<BundleEntry>& entries) {
  nlohmann::ordered_json m;
  m["format"] = kManifestFormat;
  m["version"] = kManifestVersion;
  m["host"] = host.hostname;
  m["kernel"] = host.kernel;
  m["machine"] = host.machine;
  m["time"] = host.time_utc;
  m["rdmatop_version"] = host.rdmatop_version;
  m["rdmatop_argv"] = host.argv;
  m["seconds"] = host.seconds;
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (const BundleEntry& e : entries) {
    nlohmann::ordered_json f;
    f["path"] = e.path;
    f["written"] = e.error.empty();  // false: no such file in the bundle, "error" says why
    if (e.command) {
      const CommandResult& c = *e.command;
      f["argv"] = c.argv;
      f["started"] = c.started;
      f["exit_status"] = c.started && !c.timed_out && c.signal == 0 && !c.truncated
                             ? nlohmann::ordered_json(c.exit_status)
                             : nlohmann::ordered_json(nullptr);
      if (c.signal != 0) f["signal"] = c.signal;
      f["timed_out"] = c.timed_out;
      f["seconds"] = c.seconds;
      if (!c.stderr_text.empty()) f["stderr"] = c.stderr_text;
    }
    if (!e.fallback.empty()) f["fallback"] = e.fallback;
    f["bytes"] = e.error.empty() ? e.bytes.size() : 0;
    f["truncated"] = e.truncated || (e.command && e.command->truncated);
    if (!e.error.empty()) f["error"] = e.error;
    files.push_back(std::move(f));
  }
  m["files"] = std::move(files);
  return m;
}

namespace {

struct ArchiveDeleter {
  void operator()(archive* a) const { archive_write_free(a); }
};
struct EntryDeleter {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};

Error archive_failure(archive* a, const std::string& what) {
  const char* message = archive_error_string(a);
  return Error{archive_errno(a), what + ": " + (message != nullptr ? message : "libarchive error")};
}

}  // namespace

Result<std::uint64_t> write_bundle(const std::string& path, const std::string& top,
                                   const std::vector<BundleEntry>& entries,
                                   const nlohmann::ordered_json& manifest, std::int64_t mtime) {
  const std::unique_ptr<archive, ArchiveDeleter> a(archive_write_new());
  if (!a) return Error{ENOMEM, path + ": out of memory"};
  // A gzip-filtered POSIX pax tar (archive_write_set_format(3), archive_write_filter(3)): the
  // reader (collector/capture/capture_reader.cpp) takes exactly gzip + tar.
  if (archive_write_add_filter_gzip(a.get()) != ARCHIVE_OK ||
      archive_write_set_format_pax_restricted(a.get()) != ARCHIVE_OK ||
      archive_write_open_filename(a.get(), path.c_str()) != ARCHIVE_OK) {
    return archive_failure(a.get(), path);
  }
  std::uint64_t bytes = 0;
  auto add = [&](const std::string& name, const std::string& data) -> std::optional<Error> {
    const std::unique_ptr<archive_entry, EntryDeleter> e(archive_entry_new());
    archive_entry_set_pathname(e.get(), (top + "/" + name).c_str());
    archive_entry_set_size(e.get(), static_cast<la_int64_t>(data.size()));
    archive_entry_set_filetype(e.get(), AE_IFREG);
    archive_entry_set_perm(e.get(), 0644);
    archive_entry_set_uid(e.get(), 0);
    archive_entry_set_gid(e.get(), 0);
    archive_entry_set_mtime(e.get(), mtime, 0);
    if (archive_write_header(a.get(), e.get()) != ARCHIVE_OK) {
      return archive_failure(a.get(), name);
    }
    if (!data.empty() && archive_write_data(a.get(), data.data(), data.size()) !=
                             static_cast<la_ssize_t>(data.size())) {
      return archive_failure(a.get(), name);
    }
    bytes += data.size();
    return std::nullopt;
  };
  for (const BundleEntry& entry : entries) {
    if (!entry.error.empty()) continue;
    if (auto err = add(entry.path, entry.bytes)) return *err;
  }
  if (auto err = add("manifest.json", manifest.dump(2) + "\n")) return *err;
  if (archive_write_close(a.get()) != ARCHIVE_OK) return archive_failure(a.get(), path);
  return bytes;
}

}  // namespace rdmatop::bundle
