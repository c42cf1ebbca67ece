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
  register_record_command(app, exit_code);
  register_rules_command(app, exit_code);
  register_demo_command(app, exit_code);
  register_exporter_command(app, exit_code);
  register_probe_command(app, exit_code);
  register_responder_command(app, exit_code);
  const auto run_tui_default = register_tui_options(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return static_cast<int>(ReportExit::usage);
  }
  if (app.get_subcommands().empty()) {
    exit_code = run_tui_default();
  }
  return exit_code;
}

}  // namespace rdmatop
