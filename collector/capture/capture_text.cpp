#include "collector/capture/capture_text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace rdmatop::capture {

std::size_t LineLog::ignored_total() const {
  std::size_t total = 0;
  for (const auto& [reason, count] : ignored) total += count;
  return total;
}

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// ESC [ params intermediates final (ECMA-48 CSI; the colours of `ip -c`, `grep --color`), and
// ESC ] ... BEL / ESC \ (OSC: terminal titles some prompts set).
std::string strip_escapes(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\x1b') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 1 < s.size() && s[i + 1] == '[') {
      std::size_t j = i + 2;
      while (j < s.size() &&
             (static_cast<unsigned char>(s[j]) < 0x40 || static_cast<unsigned char>(s[j]) > 0x7e)) {
        ++j;
      }
      i = j;  // the final byte (or the end)
    } else if (i + 1 < s.size() && s[i + 1] == ']') {
      std::size_t j = i + 2;
      while (j < s.size() && s[j] != '\a' && !(s[j] == '\x1b' && j + 1 < s.size())) ++j;
      i = (j < s.size() && s[j] == '\x1b') ? j + 1 : j;
    } else {
      ++i;  // a two-byte escape
    }
  }
  return out;
}

// The commands of the formats this reader knows, and the shell words that wrap them.
constexpr std::array<std::string_view, 31> kCommands = {"ethtool",
                                                        "rdma",
                                                        "ibstat",
                                                        "ibstatus",
                                                        "ibv_devinfo",
                                                        "ibdev2netdev",
                                                        "show_gids",
                                                        "ip",
                                                        "grep",
                                                        "cat",
                                                        "ls",
                                                        "tail",
                                                        "head",
                                                        "perfquery",
                                                        "mlnx_qos",
                                                        "dcb",
                                                        "devlink",
                                                        "lldptool",
                                                        "for",
                                                        "cd",
                                                        "find",
                                                        "date",
                                                        "diff",
                                                        "uname",
                                                        "hostname",
                                                        "show_counters",
                                                        "ibqueryerrors",
                                                        "echo",
                                                        "lspci",
                                                        "ifconfig",
                                                        "column"};

bool is_known_command(std::string_view word) {
  return std::find(kCommands.begin(), kCommands.end(), word) != kCommands.end();
}

std::string_view strip_sudo(std::string_view command) {
  command = trim(command);
  while (starts_with_word(command, "sudo")) command = trim(command.substr(4));
  return command;
}

// A shell loop or a line ending in "\" goes on until "done" / a line without the backslash.
bool command_continues(std::string_view command) {
  const std::string_view c = trim(command);
  if (!c.empty() && c.back() == '\\') return true;
  if (!(starts_with_word(strip_sudo(c), "for") || starts_with_word(strip_sudo(c), "while"))) {
    return false;
  }
  return c.find("done") == std::string_view::npos;
}

std::string join_dir(std::string_view cwd, std::string_view path) {
  if (path.empty() || path.front() == '/' || cwd.empty()) return std::string(path);
  while (path.starts_with("./")) path.remove_prefix(2);
  std::string out(cwd);
  if (out.back() != '/') out.push_back('/');
  out += path;
  return out;
}

}  // namespace

std::vector<Line> clean_lines(std::string_view text) {
  std::vector<Line> out;
  std::size_t number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    std::string_view raw =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    while (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    ++number;
    std::string line =
        raw.find('\x1b') == std::string_view::npos ? std::string(raw) : strip_escapes(raw);
    out.push_back(Line{std::move(line), number});
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    const std::size_t start = i;
    while (i < s.size() && !is_space(s[i])) ++i;
    if (i > start) words.push_back(s.substr(start, i - start));
  }
  return words;
}

bool is_decimal(std::string_view s) {
  return !s.empty() && s.size() <= 20 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<std::uint64_t> to_u64(std::string_view s) {
  if (!is_decimal(s)) return std::nullopt;
  std::uint64_t v = 0;
  for (const char c : s) {
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

bool starts_with_word(std::string_view s, std::string_view word) {
  return s.starts_with(word) && (s.size() == word.size() || is_space(s[word.size()]));
}

bool is_fence(std::string_view line) {
  return trim(line).starts_with("```");
}

std::optional<std::string> parse_bare_command(std::string_view line) {
  if (line.empty() || is_space(line.front()) || line.size() > 4096) return std::nullopt;
  std::string_view c = trim(line);
  if (c.size() >= 2 && c.front() == '`' && c.back() == '`') c = trim(c.substr(1, c.size() - 2));
  const std::string_view body = strip_sudo(c);
  const auto words = split_words(body);
  if (words.empty() || !is_known_command(words.front())) return std::nullopt;
  return std::string(body);
}

std::optional<Prompt> parse_prompt(std::string_view line) {
  if (line.empty() || line.size() > 4096 || is_space(line.front())) return std::nullopt;
  line = trim(line);
  if (line == "$" || line == "#") return Prompt{};
  if (line.starts_with("$ ")) return Prompt{{}, {}, std::string(strip_sudo(line.substr(2)))};
  if (line.starts_with("# ")) {
    // A root prompt, or a Markdown heading or shell comment: only a known command makes it a
    // prompt, and "# ethtool -S output" (isc-projects/ethq#8) titles the output that follows.
    const auto command = parse_bare_command(line.substr(2));
    if (!command) return std::nullopt;
    const auto words = split_words(*command);
    if (words.back() == "output" || words.back() == "output:") return std::nullopt;
    return Prompt{{}, {}, *command};
  }
  Prompt p;
  std::string_view rest;
  if (line.front() == '[') {  // "[user@host dir]$ cmd" (Fedora, RHEL)
    const std::size_t close = line.find(']');
    if (close == std::string_view::npos || close + 1 >= line.size()) return std::nullopt;
    if (line[close + 1] != '$' && line[close + 1] != '#') return std::nullopt;
    const std::string_view inner = line.substr(1, close - 1);
    const std::size_t at = inner.find('@');
    if (at == std::string_view::npos) return std::nullopt;
    const std::size_t space = inner.find(' ', at);
    p.host =
        std::string(inner.substr(at + 1, space == std::string_view::npos ? space : space - at - 1));
    if (space != std::string_view::npos) p.cwd = std::string(trim(inner.substr(space + 1)));
    rest = line.substr(close + 2);
  } else {
    const std::size_t space = line.find(' ');
    const std::string_view token = line.substr(0, space);
    if (token.size() < 2 || (token.back() != '$' && token.back() != '#')) return std::nullopt;
    const std::string_view prefix = token.substr(0, token.size() - 1);
    if (const std::size_t at = prefix.find('@'); at != std::string_view::npos && at > 0) {
      const std::string_view after = prefix.substr(at + 1);
      const std::size_t colon = after.find(':');
      p.host = std::string(after.substr(0, colon));
      if (colon != std::string_view::npos) p.cwd = std::string(after.substr(colon + 1));
      if (p.host.empty()) return std::nullopt;
    } else if (prefix.front() == '/' || prefix.front() == '~') {
      p.cwd = std::string(prefix);
    } else {
      return std::nullopt;
    }
    rest = space == std::string_view::npos ? std::string_view{} : line.substr(space);
  }
  p.command = std::string(strip_sudo(rest));
  return p;
}

std::optional<std::string> parse_banner(std::string_view line) {
  const std::string_view s = trim(line);
  if (s.size() > 8 && s.starts_with("=== ") && s.ends_with(" ===")) {
    return std::string(trim(s.substr(4, s.size() - 8)));
  }
  if (s.size() > 8 && s.starts_with("==> ") && s.ends_with(" <==")) {
    return std::string(trim(s.substr(4, s.size() - 8)));
  }
  return std::nullopt;
}

std::vector<Section> split_sections(const std::vector<Line>& lines, LineLog& log) {
  std::vector<Section> sections(1);
  std::string cwd;
  std::string host;
  // Inside a multi-line command: a shell loop goes on to its "done", a line ending in "\\" to
  // the first line that does not.
  enum class Continuation { none, loop, backslash } continuing = Continuation::none;
  const auto continuation_of = [](std::string_view command) {
    if (!command_continues(command)) return Continuation::none;
    return trim(command).ends_with("\\") ? Continuation::backslash : Continuation::loop;
  };
  for (const Line& line : lines) {
    if (continuing != Continuation::none) {
      log.ignore("command line");
      const std::string_view t = trim(line.text);
      if (continuing == Continuation::backslash) {
        if (t.empty() || t.back() != '\\') continuing = Continuation::none;
      } else if (t == "done" || t.ends_with(" done") || t.ends_with(";done")) {
        continuing = Continuation::none;
      }
      continue;
    }
    if (is_fence(line.text)) {
      log.ignore("markdown fence");
      continue;
    }
    std::optional<std::string> command;
    if (auto prompt = parse_prompt(line.text)) {
      if (!prompt->host.empty()) host = prompt->host;
      if (!prompt->cwd.empty()) cwd = prompt->cwd;
      command = prompt->command;
    } else {
      command = parse_bare_command(line.text);
    }
    if (command) {
      log.ignore("command line");
      if (starts_with_word(*command, "cd")) {
        const auto words = split_words(*command);
        if (words.size() >= 2) cwd = join_dir(cwd, words[1]);
      }
      Section next;
      next.command = *command;
      next.cwd = cwd;
      next.host = host;
      sections.push_back(std::move(next));
      continuing = continuation_of(*command);
      continue;
    }
    if (auto banner = parse_banner(line.text)) {
      log.ignore("banner");
      Section next;
      next.command = sections.back().command;
      next.cwd = sections.back().cwd;
      next.host = sections.back().host;
      next.banner = join_dir(next.cwd, *banner);
      sections.push_back(std::move(next));
      continue;
    }
    sections.back().lines.push_back(line);
  }
  return sections;
}

std::string command_argument(std::string_view command,
                             std::initializer_list<std::string_view> options) {
  const auto words = split_words(command);
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    for (const std::string_view option : options) {
      if (words[i] == option) {
        const std::string_view arg = words[i + 1];
        if (is_object_name(arg) && arg.front() != '-' && arg.front() != '|') {
          return std::string(arg);
        }
      }
    }
  }
  return {};
}

std::optional<RdmaCommand> parse_rdma_command(std::string_view command) {
  if (command.find('|') != std::string_view::npos) return std::nullopt;
  const auto words = split_words(command);
  if (words.empty() || words[0] != "rdma") return std::nullopt;
  RdmaCommand out;
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::string_view w = words[i];
    if (w == "-j" || w == "-p" || w == "-jp" || w == "-pj" || w == "--json" || w == "--pretty" ||
        w == "-json" || w == "-pretty") {
      continue;
    }
    if (w == "-d" || w == "--details" || w == "-details") {
      ++out.details;
      continue;
    }
    if (w == "-dd") {
      out.details += 2;
      continue;
    }
    out.args.push_back(w);
  }
  return out;
}

namespace {

// enum ib_port_state and ib_port_phys_state (include/rdma/ib_verbs.h) with the names
// drivers/infiniband/core/sysfs.c prints.
constexpr std::array<std::string_view, 6> kStateNames = {"NOP",   "DOWN",   "INIT",
                                                         "ARMED", "ACTIVE", "ACTIVE_DEFER"};
constexpr std::array<std::string_view, 8> kPhysNames = {"",
                                                        "Sleep",
                                                        "Polling",
                                                        "Disabled",
                                                        "PortConfigurationTraining",
                                                        "LinkUp",
                                                        "LinkErrorRecovery",
                                                        "Phy Test"};

std::string upper_alnum(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    }
  }
  return out;
}

}  // namespace

std::string state_file(std::uint32_t state) {
  if (state >= kStateNames.size()) return std::to_string(state) + ": UNKNOWN";
  return std::to_string(state) + ": " + std::string(kStateNames[state]);
}

std::string phys_state_file(std::uint32_t phys_state) {
  if (phys_state == 0 || phys_state >= kPhysNames.size()) {
    return std::to_string(phys_state) + ": <unknown>";
  }
  return std::to_string(phys_state) + ": " + std::string(kPhysNames[phys_state]);
}

std::optional<std::uint32_t> state_from_name(std::string_view name) {
  std::string n = upper_alnum(name);
  if (n.starts_with("PORT")) n = n.substr(4);  // ibv_devinfo "PORT_ACTIVE"
  // ibstat (libibumad port state names): "Down", "Initializing", "Armed", "Active".
  static constexpr std::pair<std::string_view, std::uint32_t> table[] = {
      {"NOP", 0},   {"DOWN", 1},   {"INIT", 2},        {"INITIALIZING", 2},
      {"ARMED", 3}, {"ACTIVE", 4}, {"ACTIVEDEFER", 5},
  };
  for (const auto& [key, value] : table) {
    if (n == key) return value;
  }
  return std::nullopt;
}

std::optional<std::uint32_t> phys_state_from_name(std::string_view name) {
  // iproute2 rdma/link.c phys_state_to_str ("LINK_UP"), ibstat ("LinkUp"), sysfs names.
  static constexpr std::pair<std::string_view, std::uint32_t> table[] = {
      {"SLEEP", 1},    {"POLLING", 2}, {"DISABLED", 3},          {"PORTCONFIGURATIONTRAINING", 4},
      {"TRAINING", 4}, {"LINKUP", 5},  {"LINKERRORRECOVERY", 6}, {"PHYTEST", 7},
      {"ERROR", 4},
  };
  const std::string n = upper_alnum(name);
  for (const auto& [key, value] : table) {
    if (n == key) return value;
  }
  return std::nullopt;
}

std::optional<std::string> guid_from_hex(std::string_view text) {
  text = trim(text);
  if (!text.starts_with("0x") || text.size() < 3 || text.size() > 18) return std::nullopt;
  std::string hex;
  for (const char c : text.substr(2)) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    hex.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  hex.insert(0, 16 - hex.size(), '0');
  return hex.substr(0, 4) + ":" + hex.substr(4, 4) + ":" + hex.substr(8, 4) + ":" +
         hex.substr(12, 4);
}

void count_line(LineLog& log, bool used, std::string_view reason) {
  if (used) {
    log.use();
  } else {
    log.ignore(reason);
  }
}

void ignore_line(LineLog& log, std::string_view text, std::string_view reason) {
  log.ignore(trim(text).empty() ? "blank" : reason);
}

bool put_state(Attrs& port_files, std::optional<std::uint32_t> state) {
  if (!state) return false;
  put(port_files, "state", state_file(*state));
  return true;
}

bool put_phys_state(Attrs& port_files, std::optional<std::uint32_t> phys_state) {
  if (!phys_state) return false;
  put(port_files, "phys_state", phys_state_file(*phys_state));
  return true;
}

void put(Attrs& files, std::string_view key, std::string value) {
  files.insert_or_assign(std::string(key), std::move(value));
}

std::optional<std::pair<std::string, std::uint32_t>> parse_dev_port(std::string_view text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string_view dev = text.substr(0, slash);
  const auto port = to_u64(text.substr(slash + 1));
  if (!is_object_name(dev) || !port || *port == 0 || *port > 255) return std::nullopt;
  return std::make_pair(std::string(dev), static_cast<std::uint32_t>(*port));
}

bool is_object_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return c > ' ' && c < 0x7f && c != '/' && c != ':' && c != '\'' && c != '"';
  });
}

std::optional<std::uint8_t> tsa_from_name(std::string_view name) {
  if (name == "strict") return 0;
  if (name == "cb_shaper" || name == "cbshaper") return 1;
  if (name == "ets") return 2;
  if (name == "vendor") return 255;
  return std::nullopt;
}

}  // namespace rdmatop::capture
