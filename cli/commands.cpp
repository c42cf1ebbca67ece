#include "cli/commands.h"

#include <iostream>

#include "exporters/report/report_model.h"

namespace rdmatop {

int run_cli(int argc, char** argv) {
  CLI::App app{"rdmatop: RoCEv2 network health monitoring and diagnostics"};
  app.set_version_flag("--version", std::string("rdmatop ") + RDMATOP_VERSION);
  app.require_subcommand(0, 1);
  int exit_code = 0;
  register_report_command(app, exit_code);
  register_rules_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return static_cast<int>(ReportExit::usage);
  }
  if (app.get_subcommands().empty()) {
    // The interactive TUI is the default once it exists; until then, show what there is.
    std::cout << app.help();
  }
  return exit_code;
}

}  // namespace rdmatop
