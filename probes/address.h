// Address resolution for the probe sockets and rdma_cm ids: one getaddrinfo(3) wrapper for the
// TCP prober, the RC transport and both responders.
#pragma once

#include <netdb.h>

#include <memory>
#include <string>

#include "collector/model/result.h"

namespace rdmatop::probes {

struct AddrinfoDeleter {
  void operator()(addrinfo* ai) const { freeaddrinfo(ai); }
};
using AddrinfoPtr = std::unique_ptr<addrinfo, AddrinfoDeleter>;

/// getaddrinfo for a stream socket of any family with `flags` (AI_NUMERICHOST, AI_PASSIVE, ...).
/// An empty `host` is the wildcard address (with AI_PASSIVE), an empty `service` no port. The
/// Error reads "resolve HOST: reason", code EHOSTUNREACH (errno for EAI_SYSTEM).
Result<AddrinfoPtr> resolve_stream(const std::string& host, const std::string& service, int flags);

}  // namespace rdmatop::probes
