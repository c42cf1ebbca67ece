// The exporter's HTTP request parser (exporters/http/http_request.h): what it accepts, what it
// refuses and with which status, and that it never waits for more than its caps.
#include "exporters/http/http_request.h"

#include <catch2/catch.hpp>
#include <string>

namespace rdmatop::http {
namespace {

using State = ParseResult::State;

ParseResult parse(const std::string& text, Request& request, RequestLimits limits = {}) {
  return parse_request(text, limits, request);
}

}  // namespace

TEST_CASE("http: a scrape request parses, with its fields", "[http]") {
  Request r;
  const std::string text =
      "GET /metrics?x=1 HTTP/1.1\r\nHost: h\r\nAuthorization: Basic cHJvbTpwdw==\r\n"
      "Accept-Encoding: gzip\r\n\r\nGET / HTTP/1.1\r\n\r\n";
  const ParseResult p = parse(text, r);
  REQUIRE(p.state == State::complete);
  CHECK(p.consumed == text.find("GET /", 1));  // the pipelined second request stays
  CHECK(r.method == "GET");
  CHECK(r.path == "/metrics");
  CHECK(r.keep_alive);
  CHECK(r.authorization == "Basic cHJvbTpwdw==");
  CHECK(accepts_gzip(r.accept_encoding));
}

TEST_CASE("http: partial requests wait, bare LF and leading empty lines are accepted", "[http]") {
  Request r;
  CHECK(parse("GET /metrics HTTP/1.1\r\nHost: h\r\n", r).state == State::need_more);
  CHECK(parse("\r\nGET /x HTTP/1.0\n\n", r).state == State::complete);
  CHECK(r.path == "/x");
  CHECK_FALSE(r.keep_alive);  // HTTP/1.0 closes by default
  CHECK(parse("GET http://h:9/m?q HTTP/1.1\r\nConnection: keep-alive, close\r\n\r\n", r).state ==
        State::complete);
  CHECK(r.path == "/m");
  CHECK_FALSE(r.keep_alive);
  // A body announced by Content-Length is waited for, then consumed with the request.
  CHECK(parse("GET / HTTP/1.1\r\nContent-Length: 3\r\n\r\nab", r).state == State::need_more);
  const ParseResult body = parse("GET / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", r);
  CHECK(body.state == State::complete);
  CHECK(body.consumed == 40);
}

// #22: a huge Content-Length with no body held a civetweb worker until its timeout. It is now
// refused as soon as the header section ends.
TEST_CASE("http: oversized, malformed and unsupported requests are refused at once", "[http]") {
  Request r;
  const auto status = [&](const std::string& text) {
    const ParseResult p = parse(text, r);
    CHECK(p.state == State::error);
    CHECK_FALSE(p.reason.empty());
    return p.status;
  };
  CHECK(status("GET / HTTP/1.1\r\nContent-Length: 1000000000\r\n\r\n") == 413);
  CHECK(status("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") == 501);
  CHECK(status("GET / HTTP/2.0\r\n\r\n") == 505);
  CHECK(status("GET /\r\n\r\n") == 400);
  CHECK(status("GET  / HTTP/1.1\r\n\r\n") == 400);
  CHECK(status("G(T / HTTP/1.1\r\n\r\n") == 400);
  CHECK(status("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n") == 400);
  CHECK(status("GET / HTTP/1.1\r\n folded\r\n\r\n") == 400);
  CHECK(status("GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n") == 400);
  CHECK(status("GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n") == 400);
  CHECK(status("GET nopath HTTP/1.1\r\n\r\n") == 400);
  // The header cap holds whether or not the section ever ends.
  const std::string big(9000, 'a');
  CHECK(status("GET / HTTP/1.1\r\nX: " + big + "\r\n\r\n") == 431);
  CHECK(status("GET / HTTP/1.1\r\nX: " + big) == 431);
}

TEST_CASE("http: basic credentials and Accept-Encoding", "[http]") {
  const auto c = parse_basic_authorization("Basic cHJvbTpzM2NyZXQgcHc=");  // prom:s3cret pw
  REQUIRE(c.has_value());
  CHECK(c->user == "prom");
  CHECK(c->password == "s3cret pw");
  const auto colon = parse_basic_authorization("basic dTpwOnE=");  // u:p:q
  REQUIRE(colon.has_value());
  CHECK(colon->password == "p:q");
  CHECK_FALSE(parse_basic_authorization("Bearer abc").has_value());
  CHECK_FALSE(parse_basic_authorization("Basic !!!!").has_value());
  CHECK_FALSE(parse_basic_authorization("Basic bm9jb2xvbg==").has_value());  // "nocolon"
  CHECK(parse_basic_authorization("Basic cHJvbTpw").has_value());            // prom:p, no padding
  CHECK(accepts_gzip("deflate, gzip;q=1.0, *;q=0.5"));
  CHECK(accepts_gzip("*"));
  CHECK_FALSE(accepts_gzip("gzip;q=0"));
  CHECK_FALSE(accepts_gzip("identity"));
  CHECK_FALSE(accepts_gzip(""));
}

}  // namespace rdmatop::http
