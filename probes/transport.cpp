#include "probes/transport.h"

namespace rdmatop::probes {

const char* to_string(TransportKind kind) {
  switch (kind) {
    case TransportKind::rc_send:
      return "rc_send";
    case TransportKind::rc_write:
      return "rc_write";
    case TransportKind::tcp:
      return "tcp";
  }
  return "unknown";
}

}  // namespace rdmatop::probes
