// Text helpers shared by the capture parsers: cleaning pasted lines, recognising what is not
// command output (prompts, banners, Markdown fences), splitting a paste into the sections each
// command printed, and the renderings of port states and GIDs that several tools print.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collector/capture/capture_facts.h"

namespace rdmatop::capture {

/// The lines of `text`: CR of CRLF endings dropped, ANSI escape sequences (CSI "ESC [ ... m"
/// colours of `ip -c`, `grep --color`) removed, a last line without newline kept.
std::vector<Line> clean_lines(std::string_view text);

std::string_view trim(std::string_view s);
std::vector<std::string_view> split_words(std::string_view s);
bool is_decimal(std::string_view s);
std::optional<std::uint64_t> to_u64(std::string_view s);
bool starts_with_word(std::string_view s, std::string_view word);

/// A Markdown code fence ("```", "```bash").
bool is_fence(std::string_view line);

/// A shell prompt line: "$ cmd", "# cmd", "user@host:~# cmd", "host:/dir$ cmd",
/// "/sys/class/infiniband/mlx5_1/ports/1/counters$ cmd", "~$ cmd".
struct Prompt {
  std::string host;  ///< empty when the prompt names none
  std::string cwd;   ///< empty when the prompt names none; "~" kept as printed
  std::string command;
};
std::optional<Prompt> parse_prompt(std::string_view line);

/// A command named as the first word of a line (after "sudo"): "ibstat", "rdma link show",
/// "`ethtool -S enp178s0f0 |grep prio`" (backticks of a Markdown paste dropped). Only commands
/// of the formats this reader knows count, so a value line is never taken for one.
std::optional<std::string> parse_bare_command(std::string_view line);

/// "=== /sys/.../state ===" (cat loops, find-cat) or "==> /sys/.../state <==" (tail -n +1):
/// the file name the banner names.
std::optional<std::string> parse_banner(std::string_view line);

/// Splits a paste into sections at prompts, bare command lines and banners (a new section each;
/// a banner's section keeps the command, directory and host it was printed under). The lines
/// that are not command output (prompts, command lines and their continuations, Markdown
/// fences) are counted in `log` as ignored, with the reason.
std::vector<Section> split_sections(const std::vector<Line>& lines, LineLog& log);

/// The interface a command line names after one of `options` ("ethtool -S IF", "ethtool -i IF",
/// "mlnx_qos -i IF"), or "".
std::string command_argument(std::string_view command,
                             std::initializer_list<std::string_view> options);

/// An `rdma` command line (iproute2 rdma/rdma.c): its words after the program and the options
/// that change only the rendering (-j, -p, -d and their long forms), and how many -d it gave
/// (a second asks the kernel for the driver's own objects, RDMA_NLDEV_ATTR_DRIVER_DETAILS). None
/// when the line is no `rdma` command or pipes its output (a filter may leave rows out).
struct RdmaCommand {
  std::vector<std::string_view> args;  ///< views into the command line
  int details = 0;
};
std::optional<RdmaCommand> parse_rdma_command(std::string_view command);

/// Sysfs renderings (drivers/infiniband/core/sysfs.c state_show, phys_state_show): "4: ACTIVE".
std::string state_file(std::uint32_t state);
std::string phys_state_file(std::uint32_t phys_state);
/// ib_port_state from a name as rdma-core / iproute2 print it ("ACTIVE", "PORT_ACTIVE",
/// "Active", "Initializing"); none when unknown.
std::optional<std::uint32_t> state_from_name(std::string_view name);
/// ib_port_phys_state from "LINK_UP", "LinkUp", "Polling", "DISABLED", ...
std::optional<std::uint32_t> phys_state_from_name(std::string_view name);
/// ibstat's "0x8e8474fffe1f2550" -> sysfs "8e84:74ff:fe1f:2550"; none unless 0x + 1..16 hex.
std::optional<std::string> guid_from_hex(std::string_view text);

/// Records `value` under `key` (a later line of the same section wins).
void put(Attrs& files, std::string_view key, std::string value);

/// The detect() score of a format recognised line by line: `weight` per line `is_line` accepts.
template <class Predicate>
std::size_t score_lines(const Section& s, std::size_t weight, Predicate is_line) {
  std::size_t score = 0;
  for (const Line& line : s.lines) {
    if (is_line(std::string_view(line.text))) score += weight;
  }
  return score;
}

/// A detect() score raised above any line count when the section's command line names the
/// format's tool: what a paste says it ran decides between formats whose lines look alike.
inline std::size_t with_command_bonus(std::size_t score, bool command_names_it) {
  return score > 0 && command_names_it ? score + 1000 : score;
}

/// Counts a line used, or ignored for `reason`.
void count_line(LineLog& log, bool used, std::string_view reason);

/// Counts a line a parser does not use: "blank", or `reason`.
void ignore_line(LineLog& log, std::string_view text, std::string_view reason);

/// Files a port state / physical state a tool printed by name or number under "state" /
/// "phys_state" in sysfs's rendering; false (nothing filed) when it is none this reader knows.
bool put_state(Attrs& port_files, std::optional<std::uint32_t> state);
bool put_phys_state(Attrs& port_files, std::optional<std::uint32_t> phys_state);

/// "mlx5_0/1" -> ("mlx5_0", 1).
std::optional<std::pair<std::string, std::uint32_t>> parse_dev_port(std::string_view text);

/// A plausible RDMA device or interface name: one path component, printable, <= 64 bytes.
bool is_object_name(std::string_view name);

/// IEEE_8021QAZ_TSA_* (include/uapi/linux/dcbnl.h) from the names the DCB tools print: iproute2
/// dcb "strict", "cb_shaper", "ets", "vendor"; lldpad "cbshaper"; mlnx_qos the same as dcb.
std::optional<std::uint8_t> tsa_from_name(std::string_view name);

}  // namespace rdmatop::capture
