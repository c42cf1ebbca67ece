#include "exporters/prometheus/basic_auth.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/random.h>

#include <algorithm>
#include <charconv>

#include "exporters/http/http_request.h"
#include "exporters/prometheus/web_config.h"

namespace rdmatop {

namespace {

constexpr std::size_t kMaxTrackedClients = 4096;

/// The cost field of a bcrypt hash ("$2b$10$..." -> 10), 10 when unreadable.
int bcrypt_cost(const std::string& hash) {
  int cost = 10;
  if (hash.size() >= 7) std::from_chars(hash.data() + 4, hash.data() + 6, cost);
  return std::clamp(cost, 4, 31);
}

/// A bcrypt hash of a random password at `cost`: checking any password against it costs what a
/// known user's check costs, and never matches.
std::string unknown_user_hash(int cost) {
  std::array<char, CRYPT_GENSALT_OUTPUT_SIZE> setting{};
  if (crypt_gensalt_rn("$2b$", static_cast<unsigned long>(cost), nullptr, 0, setting.data(),
                       static_cast<int>(setting.size())) == nullptr) {
    return {};
  }
  std::array<char, 33> password{};  // 32 random letters and a NUL
  [[maybe_unused]] const ssize_t n = getrandom(password.data(), password.size() - 1, 0);
  for (std::size_t i = 0; i + 1 < password.size(); ++i) {
    password[i] = static_cast<char>('a' + static_cast<unsigned char>(password[i]) % 26);
  }
  crypt_data data{};
  const char* hash = crypt_rn(password.data(), setting.data(), &data, sizeof data);
  return hash != nullptr ? std::string(hash) : std::string();
}

}  // namespace

BasicAuth::BasicAuth(BasicAuthOptions options)
    : options_(std::move(options)),
      checks_(options_.checks_per_second, options_.check_burst, kMaxTrackedClients) {
  int cost = 4;
  for (const auto& [user, hash] : options_.users) cost = std::max(cost, bcrypt_cost(hash));
  unknown_user_hash_ = unknown_user_hash(cost);
  [[maybe_unused]] const ssize_t n = getrandom(hmac_key_.data(), hmac_key_.size(), 0);
  for (std::size_t i = 0; i < std::max<std::size_t>(1, options_.workers); ++i) {
    workers_.emplace_back([this] { work(); });
  }
}

BasicAuth::~BasicAuth() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  ready_.notify_all();
  for (auto& t : workers_) t.join();
}

BasicAuth::Key BasicAuth::key_of(std::string_view user, std::string_view password) const {
  std::string message;
  message.reserve(user.size() + 1 + password.size());
  message.append(user).push_back('\0');
  message.append(password);
  Key key{};
  unsigned int length = 0;
  // One-shot HMAC() is not deprecated in OpenSSL 3 (HMAC_CTX is).
  HMAC(EVP_sha256(), hmac_key_.data(), static_cast<int>(hmac_key_.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), key.data(), &length);
  OPENSSL_cleanse(message.data(), message.size());
  return key;
}

void BasicAuth::check(std::string_view authorization, const probes::PeerAddress& client,
                      Done done) {
  const auto credentials = http::parse_basic_authorization(authorization);
  if (!credentials) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.denied;
    }
    done(AuthVerdict::denied);
    return;
  }
  Job job{credentials->user, credentials->password,
          key_of(credentials->user, credentials->password), std::move(done)};
  AuthVerdict verdict = AuthVerdict::allowed;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (verified_.contains(job.key)) {
      ++stats_.cache_hits;
    } else if (!checks_.take(client, std::chrono::steady_clock::now())) {
      ++stats_.throttled;
      verdict = AuthVerdict::throttled;
    } else if (queue_.size() >= options_.max_pending) {
      ++stats_.busy;
      verdict = AuthVerdict::busy;
    } else {
      queue_.push_back(std::move(job));
      ready_.notify_one();
      return;
    }
  }
  job.done(verdict);
}

void BasicAuth::work() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    const auto it = options_.users.find(job.user);
    // An unknown user is checked against a hash of the same cost: the answer takes as long
    // as a wrong password of a known user's, so its timing names no user.
    const bool known = it != options_.users.end();
    const bool matched = bcrypt_matches(known ? it->second : unknown_user_hash_, job.password);
    const bool ok = known && matched;
    OPENSSL_cleanse(job.password.data(), job.password.size());
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.bcrypt_checks;
      if (ok) {
        // Only holders of a valid password can add entries; a full cache starts over.
        if (verified_.size() >= options_.max_cached) verified_.clear();
        verified_.insert(job.key);
      } else {
        ++stats_.denied;
      }
    }
    job.done(ok ? AuthVerdict::allowed : AuthVerdict::denied);
  }
}

BasicAuth::Stats BasicAuth::stats() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace rdmatop
