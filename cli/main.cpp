// The one thin main: all behaviour lives in the libraries; see cli/commands.h.
#include "cli/commands.h"

int main(int argc, char** argv) {
  return rdmatop::run_cli(argc, argv);
}
