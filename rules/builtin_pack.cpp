#include "rules/builtin_pack.h"

namespace rdmatop {

bool is_builtin_rule_file(const std::string& name) {
  const std::string suffix = "_test.yaml";
  return name.size() < suffix.size() ||
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0;
}

RuleFileLoad load_builtin_rules() {
  RuleFileLoad out;
  for (const auto& f : builtin_files()) {
    if (!is_builtin_rule_file(f.name)) continue;
    auto one = parse_rule_file(f.content, std::string("builtin/") + f.name);
    for (auto& g : one.groups) out.groups.push_back(std::move(g));
    for (auto& e : one.errors) out.errors.push_back(std::move(e));
  }
  return out;
}

FileReader builtin_file_reader() {
  return [](const std::string& path) -> Result<std::string> {
    const auto slash = path.rfind('/');
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    for (const auto& f : builtin_files()) {
      if (name == f.name) return std::string(f.content);
    }
    return Error{2, path + ": no such built-in file"};
  };
}

}  // namespace rdmatop
