#include "probes/runner.h"

namespace rdmatop::probes {

TransportFactory default_transport_factory() {
  return [](const ProbeOptions& o) {
    return o.kind == TransportKind::tcp ? make_tcp_transport(o) : make_rc_transport(o);
  };
}

}  // namespace rdmatop::probes
