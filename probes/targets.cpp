#include "probes/targets.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <functional>
#include <set>

#include "util/bounded_file.h"

namespace rdmatop::probes {

namespace {

// A target list names a few hundred peers (a line or two each); 16 MiB is far beyond any
// real one and bounds what a wrong path can make the prober read.
constexpr std::size_t kMaxTargetFileBytes = 16 * 1024 * 1024;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool valid_host_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ||
         c == ':' || c == '%';
}

Result<std::uint16_t> parse_port(std::string_view text) {
  unsigned value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value == 0 || value > 65535) {
    return Error{EINVAL, "bad port \"" + std::string(text) + "\" (1-65535)"};
  }
  return static_cast<std::uint16_t>(value);
}

std::string located(std::string_view origin, std::size_t line, const std::string& what) {
  return std::string(origin) + ":" + std::to_string(line) + ": " + what;
}

/// Adds a target unless already listed; returns the error text for a duplicate.
std::optional<std::string> add_unique(TargetList& list, std::set<std::string>& seen,
                                      TargetSpec spec) {
  const std::string key = spec.endpoint.host + "|" + std::to_string(spec.endpoint.port);
  if (!seen.insert(key).second) return "duplicate target \"" + spec.target + "\"";
  list.targets.push_back(std::move(spec));
  return std::nullopt;
}

}  // namespace

Result<Endpoint> parse_endpoint(std::string_view text, std::uint16_t default_port) {
  text = trim(text);
  if (text.empty()) return Error{EINVAL, "empty target"};
  Endpoint ep;
  ep.port = default_port;
  std::string_view host = text;
  if (text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos)
      return Error{EINVAL, "unclosed '[' in \"" + std::string(text) + "\""};
    host = text.substr(1, close - 1);
    const auto rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return Error{EINVAL, "expected ':port' after ']'"};
      auto port = parse_port(rest.substr(1));
      if (!port) return port.error();
      ep.port = *port;
    }
  } else if (std::count(text.begin(), text.end(), ':') == 1) {
    const auto colon = text.find(':');
    host = text.substr(0, colon);
    auto port = parse_port(text.substr(colon + 1));
    if (!port) return port.error();
    ep.port = *port;
  }
  if (host.empty()) return Error{EINVAL, "empty host in \"" + std::string(text) + "\""};
  if (!std::all_of(host.begin(), host.end(), valid_host_char)) {
    return Error{EINVAL, "invalid character in host \"" + std::string(text) + "\""};
  }
  ep.host = std::string(host);
  return ep;
}

std::optional<TransportKind> parse_transport_kind(std::string_view text) {
  for (auto kind : {TransportKind::rc_send, TransportKind::rc_write, TransportKind::tcp}) {
    if (text == to_string(kind)) return kind;
  }
  return std::nullopt;
}

Result<std::vector<TransportKind>> parse_transport_list(std::string_view text) {
  std::vector<TransportKind> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const auto item =
        trim(text.substr(start, comma == std::string_view::npos ? text.npos : comma - start));
    const auto kind = parse_transport_kind(item);
    if (!kind) {
      return Error{EINVAL,
                   "unknown transport \"" + std::string(item) + "\" (rc_send, rc_write, tcp)"};
    }
    if (std::find(out.begin(), out.end(), *kind) == out.end()) out.push_back(*kind);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

TargetList parse_target_text(std::string_view text, std::string_view origin,
                             std::uint16_t default_port) {
  TargetList list;
  std::set<std::string> seen;
  std::size_t line_no = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto nl = text.find('\n', start);
    std::string_view line =
        text.substr(start, nl == std::string_view::npos ? text.npos : nl - start);
    start = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    line = trim(line);
    if (line.empty()) continue;
    if (line.find_first_of(" \t") != std::string_view::npos) {
      list.errors.push_back(
          located(origin, line_no, "one target per line, got \"" + std::string(line) + "\""));
      continue;
    }
    auto ep = parse_endpoint(line, default_port);
    if (!ep) {
      list.errors.push_back(located(origin, line_no, ep.error().message));
      continue;
    }
    TargetSpec spec;
    spec.target = std::string(line);
    spec.endpoint = *ep;
    if (auto dup = add_unique(list, seen, std::move(spec))) {
      list.errors.push_back(located(origin, line_no, *dup));
    }
  }
  return list;
}

namespace {

/// Options a group may set (and `defaults:` for all groups).
struct GroupOptions {
  std::uint16_t port = kDefaultProbePort;
  std::optional<double> rate;
  std::vector<TransportKind> transports;
  std::vector<std::uint32_t> traffic_classes;
};

class YamlLoader {
 public:
  YamlLoader(std::string_view origin, TargetList& out) : origin_(origin), out_(out) {}

  void error(const YAML::Node& at, const std::string& what) {
    out_.errors.push_back(located(origin_, static_cast<std::size_t>(at.Mark().line) + 1, what));
  }

  /// Applies the option keys of `node` on top of `base`; unknown keys are errors.
  GroupOptions options(const YAML::Node& node, GroupOptions base,
                       const std::set<std::string>& other_keys) {
    for (const auto& kv : node) {
      const auto key = kv.first.as<std::string>("");
      const YAML::Node& v = kv.second;
      try {
        if (key == "port") {
          auto port = parse_port(v.as<std::string>());
          if (port) {
            base.port = *port;
          } else {
            error(v, port.error().message);
          }
        } else if (key == "rate") {
          const double rate = v.as<double>();
          if (rate > 0 && rate <= 10000) {
            base.rate = rate;
          } else {
            error(v, "rate must be in (0, 10000] probes/s");
          }
        } else if (key == "transports") {
          std::string joined;
          for (const auto& t : v) joined += (joined.empty() ? "" : ",") + t.as<std::string>();
          auto kinds = parse_transport_list(v.IsSequence() ? joined : v.as<std::string>());
          if (kinds) {
            base.transports = *kinds;
          } else {
            error(v, kinds.error().message);
          }
        } else if (key == "tclass") {
          std::vector<std::uint32_t> classes;
          const auto one = [&](const YAML::Node& n) {
            const int tc = n.as<int>();
            if (tc < 0 || tc > 255) throw YAML::BadConversion(n.Mark());
            classes.push_back(static_cast<std::uint32_t>(tc));
          };
          if (v.IsSequence()) {
            for (const auto& n : v) one(n);
          } else {
            one(v);
          }
          base.traffic_classes = classes;
        } else if (other_keys.count(key) == 0) {
          error(kv.first, "unknown key \"" + key + "\"");
        }
      } catch (const YAML::Exception&) {
        error(v, "bad value for \"" + key + "\"");
      }
    }
    return base;
  }

  void targets(const YAML::Node& list, const std::string& group, const GroupOptions& opts,
               std::set<std::string>& seen) {
    if (!list.IsSequence()) {
      error(list, "\"targets\" must be a list");
      return;
    }
    for (const auto& item : list) {
      if (!item.IsScalar()) {
        error(item, "a target must be a host[:port] string");
        continue;
      }
      const auto text = item.as<std::string>();
      auto ep = parse_endpoint(text, opts.port);
      if (!ep) {
        error(item, ep.error().message);
        continue;
      }
      TargetSpec spec;
      spec.target = text;
      spec.endpoint = *ep;
      spec.group = group;
      spec.rate = opts.rate;
      spec.transports = opts.transports;
      spec.traffic_classes = opts.traffic_classes;
      if (auto dup = add_unique(out_, seen, std::move(spec))) error(item, *dup);
    }
  }

 private:
  std::string_view origin_;
  TargetList& out_;
};

}  // namespace

TargetList parse_target_yaml(std::string_view text, std::string_view origin,
                             std::uint16_t default_port) {
  TargetList list;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    list.errors.push_back(located(origin, static_cast<std::size_t>(e.mark.line) + 1, e.msg));
    list.unreadable = true;
    return list;
  }
  if (root.IsNull()) return list;
  YamlLoader loader(origin, list);
  if (!root.IsMap()) {
    loader.error(root, "expected a map with \"groups\" or \"targets\"");
    list.unreadable = true;
    return list;
  }
  GroupOptions defaults;
  defaults.port = default_port;
  if (root["defaults"]) {
    if (root["defaults"].IsMap()) {
      defaults = loader.options(root["defaults"], defaults, {});
    } else {
      loader.error(root["defaults"], "\"defaults\" must be a map");
    }
  }
  for (const auto& kv : root) {
    const auto key = kv.first.as<std::string>("");
    if (key != "defaults" && key != "groups" && key != "targets") {
      loader.error(kv.first, "unknown key \"" + key + "\"");
    }
  }
  std::set<std::string> seen;
  if (root["targets"]) loader.targets(root["targets"], "", defaults, seen);
  if (const auto groups = root["groups"]) {
    if (!groups.IsSequence()) {
      loader.error(groups, "\"groups\" must be a list");
      return list;
    }
    for (const auto& g : groups) {
      if (!g.IsMap()) {
        loader.error(g, "a group must be a map with \"name\" and \"targets\"");
        continue;
      }
      const auto name = g["name"] && g["name"].IsScalar() ? g["name"].as<std::string>() : "";
      if (name.empty()) {
        loader.error(g, "group without a \"name\"");
        continue;
      }
      if (!g["targets"]) {
        loader.error(g, "group \"" + name + "\" has no \"targets\"");
        continue;
      }
      const auto opts = loader.options(g, defaults, {"name", "targets"});
      loader.targets(g["targets"], name, opts, seen);
    }
  }
  return list;
}

TargetList parse_target_file(std::string_view text, std::string_view origin,
                             std::uint16_t default_port) {
  const auto ends_with = [&](std::string_view suffix) {
    return origin.size() >= suffix.size() && origin.substr(origin.size() - suffix.size()) == suffix;
  };
  if (ends_with(".yaml") || ends_with(".yml")) {
    return parse_target_yaml(text, origin, default_port);
  }
  return parse_target_text(text, origin, default_port);
}

TargetFile::TargetFile(std::string path, std::uint16_t default_port)
    : path_(std::move(path)), default_port_(default_port) {}

std::optional<TargetList> TargetFile::poll() {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    const int err = errno;
    TargetList list;
    list.unreadable = true;
    list.errors.push_back(path_ + ": " + errno_error(err, "stat").message);
    // Report an unreadable file once, not on every poll.
    if (!loaded_ && size_ == -2) return std::nullopt;
    size_ = -2;
    loaded_ = false;
    return list;
  }
  const std::int64_t mtime_ns =
      static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  if (loaded_ && mtime_ns == mtime_ns_ && st.st_size == size_) return std::nullopt;
  auto content = read_bounded_file(path_, kMaxTargetFileBytes);
  if (!content) {
    TargetList list;
    list.unreadable = true;
    list.errors.push_back(content.error().message);
    return list;
  }
  const std::string& text = *content;
  const std::size_t hash = std::hash<std::string>{}(text);
  mtime_ns_ = mtime_ns;
  size_ = st.st_size;
  // A touch or a rewrite with the same bytes keeps the streams untouched.
  if (loaded_ && hash == hash_) return std::nullopt;
  loaded_ = true;
  hash_ = hash;
  return parse_target_file(text, path_, default_port_);
}

}  // namespace rdmatop::probes
