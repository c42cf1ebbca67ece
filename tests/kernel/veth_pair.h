// A veth pair addressed for traffic inside the test's private network namespace, and UDP
// traffic across it: shared by the real-kernel tests of ethtool and of rtnetlink statistics.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "tests/kernel/kernel_support.h"

namespace rdmatop::kernel_test {

// Each veth end gets its own TEST-NET subnet and a static neighbour pointing at the other end's
// MAC, so a datagram sent to the ".2" address leaves through one end and is received by the
// other (two addresses of the same namespace would be delivered over `lo` instead).
constexpr const char* kA = "rta0";
constexpr const char* kB = "rtb0";
constexpr const char* kAddrA = "198.51.100.1";
constexpr const char* kPeerViaA = "198.51.100.2";
constexpr const char* kAddrB = "203.0.113.1";
constexpr const char* kPeerViaB = "203.0.113.2";

inline std::string mac_of(const std::string& ifname) {
  // `ip -br link show IF`: "IF@PEER  UP  aa:bb:cc:dd:ee:ff <FLAGS>"
  const std::string out = must_run({"ip", "-br", "link", "show", ifname}).out;
  std::istringstream in(out);
  std::string name, state, mac;
  in >> name >> state >> mac;
  return mac;
}

/// A veth pair with 4 queues per end, addressed for traffic; deleted on every exit path.
class VethPair {
 public:
  VethPair() {
    must_run({"ip", "link", "add", kA, "numtxqueues", "4", "numrxqueues", "4", "type", "veth",
              "peer", "name", kB, "numtxqueues", "4", "numrxqueues", "4"});
    must_run({"ip", "link", "set", kA, "up"});
    must_run({"ip", "link", "set", kB, "up"});
    must_run({"ip", "addr", "add", std::string(kAddrA) + "/24", "dev", kA});
    must_run({"ip", "addr", "add", std::string(kAddrB) + "/24", "dev", kB});
    must_run({"ip", "neigh", "add", kPeerViaA, "lladdr", mac_of(kB), "dev", kA});
    must_run({"ip", "neigh", "add", kPeerViaB, "lladdr", mac_of(kA), "dev", kB});
    // GRO + UDP GRO forwarding put veth's receive path through NAPI, where the per-queue
    // rx_queue_N_xdp_packets/_bytes counters count every packet (drivers/net/veth.c
    // veth_xdp_rcv), so `ethtool -S` values move with plain UDP traffic.
    napi_ = run({"ethtool", "-K", kA, "gro", "on", "rx-udp-gro-forwarding", "on"}).exit_code == 0 &&
            run({"ethtool", "-K", kB, "gro", "on", "rx-udp-gro-forwarding", "on"}).exit_code == 0;
  }
  VethPair(const VethPair&) = delete;
  VethPair& operator=(const VethPair&) = delete;
  ~VethPair() { run({"ip", "link", "del", kA}); }  // removes both ends
  bool napi() const { return napi_; }

 private:
  bool napi_ = false;
};

/// One UDP socket bound to `src`, sending small datagrams to `dst`:9 (discard).
class UdpSender {
 public:
  UdpSender(const char* src, const char* dst) : fd_(::socket(AF_INET, SOCK_DGRAM, 0)) {
    if (fd_ < 0) throw std::runtime_error("socket failed");
    sockaddr_in local{};
    local.sin_family = AF_INET;
    ::inet_pton(AF_INET, src, &local.sin_addr);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0) {
      throw std::runtime_error(std::string("bind ") + src + ": " + std::strerror(errno));
    }
    dst_.sin_family = AF_INET;
    dst_.sin_port = htons(9);
    ::inet_pton(AF_INET, dst, &dst_.sin_addr);
  }
  UdpSender(const UdpSender&) = delete;
  UdpSender& operator=(const UdpSender&) = delete;
  ~UdpSender() { ::close(fd_); }
  void send(int count) {
    static const char payload[] = "rdmatop kernel test";
    for (int i = 0; i < count; ++i) {
      ::sendto(fd_, payload, sizeof(payload), 0, reinterpret_cast<const sockaddr*>(&dst_),
               sizeof(dst_));
    }
  }

 private:
  int fd_;
  sockaddr_in dst_{};
};

/// Both directions at once, in the background, until destroyed: counters move while we read.
class BackgroundTraffic {
 public:
  BackgroundTraffic()
      : thread_([this] {
          UdpSender ab(kAddrA, kPeerViaA), ba(kAddrB, kPeerViaB);
          while (!stop_.load()) {
            ab.send(5);
            ba.send(5);
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
        }) {}
  BackgroundTraffic(const BackgroundTraffic&) = delete;
  BackgroundTraffic& operator=(const BackgroundTraffic&) = delete;
  ~BackgroundTraffic() {
    stop_.store(true);
    thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace rdmatop::kernel_test
