#include "rules/rule_set.h"

#include <set>

#include "rules/builtin_pack.h"
#include "util/bounded_file.h"

namespace rdmatop {

Result<std::string> read_text_file(const std::string& path) {
  return read_bounded_file(path, kMaxTextFileBytes);
}

RuleSetLoad load_rule_set(const std::vector<std::string>& user_files, bool include_builtin) {
  RuleSetLoad out;
  std::vector<RuleGroup> user_groups;
  std::set<std::string> user_rule_names;
  for (const auto& file : user_files) {
    auto text = read_text_file(file);
    if (!text) {
      out.errors.push_back(text.error().message);
      continue;
    }
    auto load = parse_rule_file(*text, file);
    if (!load.errors.empty()) {
      for (const auto& e : load.errors) out.errors.push_back(to_string(e));
      continue;
    }
    for (auto& group : load.groups) {
      for (const auto& rule : group.rules) user_rule_names.insert(rule.name);
      user_groups.push_back(std::move(group));
    }
  }
  if (include_builtin) {
    auto builtin = load_builtin_rules();
    for (const auto& e : builtin.errors) out.errors.push_back(to_string(e));
    for (auto& group : builtin.groups) {
      std::erase_if(group.rules,
                    [&](const Rule& rule) { return user_rule_names.count(rule.name) != 0; });
      if (!group.rules.empty()) out.groups.push_back(std::move(group));
    }
  }
  for (auto& group : user_groups) out.groups.push_back(std::move(group));
  return out;
}

}  // namespace rdmatop
