#include "probes/address.h"

#include <cerrno>

#include <fmt/format.h>

namespace rdmatop::probes {

Result<AddrinfoPtr> resolve_stream(const std::string& host, const std::string& service, int flags) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = flags;
  addrinfo* out = nullptr;
  const int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(),
                             service.empty() ? nullptr : service.c_str(), &hints, &out);
  if (rc != 0) {
    return Error{rc == EAI_SYSTEM ? errno : EHOSTUNREACH,
                 fmt::format("resolve {}: {}", host, gai_strerror(rc))};
  }
  return AddrinfoPtr(out);
}

}  // namespace rdmatop::probes
