// The RC probes and the RDMA responder of a build without libibverbs and librdmacm
// (-DRDMATOP_WITH_VERBS=OFF, docs/install.md): what rc_transport.cpp and rdma_responder.cpp
// provide, failing with a clear error instead, so that every other surface (the TUI, the
// exporter, reports, recording, the simulator, TCP probes) builds and runs unchanged.
#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "probes/rdma_responder.h"
#include "probes/transport.h"

namespace rdmatop::probes {
namespace {

constexpr const char* kNoVerbs =
    "rdmatop was built without libibverbs/librdmacm (-DRDMATOP_WITH_VERBS=OFF): RC probes and "
    "the rdma_cm responder are not available in this build; TCP probes are";

class NoVerbsTransport final : public Transport {
 public:
  std::optional<Error> connect(const Endpoint&, std::chrono::milliseconds) override {
    return Error{ENOTSUP, kNoVerbs};
  }
  PingResult ping(std::size_t, std::chrono::milliseconds) override {
    PingResult result;
    result.outcome = PingResult::Outcome::not_connected;
    result.error = kNoVerbs;
    return result;
  }
  void disconnect() override {}
  bool connected() const override { return false; }
};

}  // namespace

std::unique_ptr<Transport> make_rc_transport(const ProbeOptions&) {
  return std::make_unique<NoVerbsTransport>();
}

struct RdmaResponder::Impl final : ResponderCore {
  void poll_once(std::chrono::milliseconds) override {}
  void close_all() override {}
};

RdmaResponder::RdmaResponder(std::unique_ptr<Impl> impl) : Responder(std::move(impl)) {}
RdmaResponder::~RdmaResponder() = default;

Result<std::unique_ptr<RdmaResponder>> RdmaResponder::listen(const std::string&, std::uint16_t,
                                                             ResponderLimits, ResponderLog, bool) {
  return Error{ENOTSUP, kNoVerbs};
}

}  // namespace rdmatop::probes
