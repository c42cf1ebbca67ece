#include "cli/suggest.h"

#include <algorithm>
#include <numeric>

namespace rdmatop {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic-programming table: i-2, i-1 and i.
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  std::iota(prev.begin(), prev.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        cur[j] = std::min(cur[j], before[j - 2] + 1);
      }
    }
    before.swap(prev);
    prev.swap(cur);
  }
  return prev[b.size()];
}

std::optional<std::string> closest_name(std::string_view typed,
                                        const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const std::string& candidate : candidates) {
    const std::size_t d = edit_distance(typed, candidate);
    if (d == 0) continue;  // the name itself is not a suggestion
    if (!best || d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  if (!best || best_distance > 2 || 2 * best_distance >= typed.size()) return std::nullopt;
  return best;
}

namespace {

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub :
       app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
    names.push_back(sub->get_name());
  }
  return names;
}

std::vector<std::string> long_flags(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

/// "rdmatop", "rdmatop rules", "rdmatop rules export" (the root's own name is argv[0]).
std::string command_path(const CLI::App& command) {
  if (command.get_parent() == nullptr) return "rdmatop";
  return command_path(*command.get_parent()) + " " + command.get_name();
}

void hints_for(const CLI::App& command, bool expects_subcommand, std::vector<std::string>& out) {
  const std::string path = command_path(command);
  for (const std::string& arg : command.remaining()) {
    if (arg.rfind("--", 0) == 0 && arg.size() > 2) {
      const std::string flag = arg.substr(0, arg.find('='));
      if (auto match = closest_name(flag, long_flags(command))) {
        out.push_back("rdmatop: unknown flag " + flag + " for " + path + "; did you mean " +
                      *match + "?");
      }
    } else if (expects_subcommand && !arg.empty() && arg[0] != '-') {
      if (auto match = closest_name(arg, subcommand_names(command))) {
        out.push_back("rdmatop: unknown command '" + arg + "'; did you mean '" + path + " " +
                      *match + "'?");
      }
      return;  // the words after a mistyped command are its arguments, not more commands
    }
  }
}

void hints_below(const CLI::App& command, std::vector<std::string>& out) {
  const std::vector<CLI::App*> chosen = command.get_subcommands();
  hints_for(command, chosen.empty() && !subcommand_names(command).empty(), out);
  for (const CLI::App* sub : chosen) hints_below(*sub, out);
}

}  // namespace

std::vector<std::string> did_you_mean(const CLI::App& app) {
  std::vector<std::string> out;
  hints_below(app, out);
  return out;
}

}  // namespace rdmatop
