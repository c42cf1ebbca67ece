#!/usr/bin/env python3
"""Hostile and slow HTTP clients against the exporter (tests/exporter/*_test.sh), loopback only.

Subcommands (each prints one line and exits non-zero on a failed check):
  starve PORT N      hold N idle connections, N half-sent requests and one huge Content-Length;
                     /-/healthy and /metrics must still answer (#22: 2 idle sockets blocked both
                     of civetweb's workers for 30 s)
  trickle PORT       send a request one byte per 0.25 s: the server must close before the end
  load PORT ...      the load test: see load_main()
"""
import asyncio
import base64
import os
import resource
import socket
import sys
import time


def connect(port, source="127.0.0.1"):
    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    return s


def simple_get(port, path, auth=None, timeout=5.0):
    """One GET with Connection: close; returns (status, body bytes)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        head = f"GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
        if auth:
            head += "Authorization: Basic " + base64.b64encode(auth.encode()).decode() + "\r\n"
        s.sendall((head + "\r\n").encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    finally:
        s.close()
    status = int(data.split(b" ", 2)[1])
    return status, data.split(b"\r\n\r\n", 1)[1]


def starve(port, n):
    held = []
    for _ in range(n):
        held.append(connect(port))
    for _ in range(n):
        s = connect(port)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHo")
        held.append(s)
    big = connect(port)
    big.sendall(b"GET /metrics HTTP/1.1\r\nContent-Length: 1000000000\r\n\r\n")
    held.append(big)
    time.sleep(0.2)  # let the server see them all before the probes below
    for path in ("/-/healthy", "/metrics"):
        try:
            status, body = simple_get(port, path, timeout=5.0)
        except OSError as e:
            print(f"FAIL: {path} with {2 * n + 1} hostile connections open: {e}")
            return 1
        if status != 200 or not body:
            print(f"FAIL: {path} answered {status}")
            return 1
    big.settimeout(5)
    try:
        answer = big.recv(4096)
    except OSError as e:
        print(f"FAIL: no answer to a 1 GB Content-Length: {e}")
        return 1
    if not answer.startswith(b"HTTP/1.1 413 "):
        print(f"FAIL: a 1 GB Content-Length got {answer[:40]!r}, want 413")
        return 1
    print(f"ok: /-/healthy and /metrics answered with {2 * n} idle or half-sent connections "
          "open; a 1 GB Content-Length got 413")
    return 0


def trickle(port):
    s = connect(port)
    request = b"GET /metrics HTTP/1.1\r\nHost: " + b"h" * 60 + b"\r\n\r\n"
    s.settimeout(0.25)
    for i, byte in enumerate(request):
        try:
            s.send(bytes([byte]))
            if s.recv(1) == b"":
                print(f"ok: a trickled request was closed after {i + 1} of {len(request)} bytes")
                return 0
        except socket.timeout:
            continue
        except OSError:
            print(f"ok: a trickled request was reset after {i + 1} of {len(request)} bytes")
            return 0
    print(f"FAIL: {len(request)} bytes trickled over {len(request) / 4:.0f} s were accepted")
    return 1


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def http_get(port, path, auth, source):
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    try:
        head = f"GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
        if auth:
            head += "Authorization: Basic " + base64.b64encode(auth.encode()).decode() + "\r\n"
        writer.write((head + "\r\n").encode())
        data = await reader.read()
    finally:
        writer.close()
    return int(data.split(b" ", 2)[1]), data


async def load(port, pid, seconds, scrapers, idle, auth, wrong):
    stop = time.monotonic() + seconds
    stats = {"ok": 0, "errors": 0, "flood": 0, "flood_codes": {}, "reopened": 0}
    error_samples = []

    async def hold_idle():
        # Idle sockets from 127.0.0.3; the server closes them at its deadline, they come back.
        sockets = []
        while time.monotonic() < stop:
            while len(sockets) < idle:
                try:
                    sockets.append(await asyncio.wait_for(asyncio.open_connection(
                        "127.0.0.1", port, local_addr=("127.0.0.3", 0)), 5))
                except (OSError, asyncio.TimeoutError):
                    break
            await asyncio.sleep(0.5)
            alive = []
            for r, w in sockets:
                if r.at_eof():  # closed by the server (deadline or eviction): reopen
                    stats["reopened"] += 1
                    w.close()
                else:
                    alive.append((r, w))
            sockets = alive
        for _, w in sockets:
            w.close()

    async def scraper(i):
        await asyncio.sleep(i * seconds / (4 * scrapers))  # ramp up over the first quarter
        while time.monotonic() < stop:
            try:
                status, data = await asyncio.wait_for(http_get(port, "/metrics", auth, "127.0.0.1"), 10)
                if status == 200 and b"rdmatop_build_info" in data:
                    stats["ok"] += 1
                else:
                    stats["errors"] += 1
                    error_samples.append(f"status {status}")
            except (OSError, asyncio.TimeoutError) as e:
                stats["errors"] += 1
                error_samples.append(repr(e))
            await asyncio.sleep(2.0)

    async def flooder():
        while time.monotonic() < stop:
            try:
                status, _ = await asyncio.wait_for(http_get(port, "/metrics", wrong, "127.0.0.2"), 10)
                stats["flood"] += 1
                stats["flood_codes"][status] = stats["flood_codes"].get(status, 0) + 1
            except (OSError, asyncio.TimeoutError):
                stats["flood"] += 1
            await asyncio.sleep(0.05)

    # The credentials are verified once before the load (then they come from the cache).
    await asyncio.wait_for(http_get(port, "/metrics", auth, "127.0.0.1"), 10)
    rss = [rss_kib(pid)]

    async def sample_rss():
        while time.monotonic() < stop:
            await asyncio.sleep(max(1.0, seconds / 10))
            rss.append(rss_kib(pid))

    tasks = [asyncio.create_task(hold_idle()), asyncio.create_task(sample_rss())]
    tasks += [asyncio.create_task(flooder()) for _ in range(8 if wrong else 0)]
    tasks += [asyncio.create_task(scraper(i)) for i in range(scrapers)]
    await asyncio.gather(*tasks)
    return stats, rss, error_samples


def load_main(argv):
    """load PORT PID SECONDS SCRAPERS IDLE USER:PASSWORD USER:WRONG"""
    port, pid, seconds, scrapers, idle = (int(a) for a in argv[:5])
    auth, wrong = argv[5], argv[6]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = scrapers + idle + 64
    if hard < need:
        print(f"SKIP: RLIMIT_NOFILE hard limit {hard} < {need}")
        return 77
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, need), hard))
    stats, rss, errors = asyncio.run(load(port, pid, seconds, scrapers, idle, auth, wrong))
    print(f"scrapes ok {stats['ok']}, errors {stats['errors']}; wrong-password requests "
          f"{stats['flood']} {stats['flood_codes']}; idle sockets reopened {stats['reopened']}; "
          f"RSS KiB {rss}")
    if stats["errors"]:
        print("FAIL: scrape errors, e.g. " + "; ".join(errors[:5]))
        return 1
    if stats["ok"] < scrapers:
        print("FAIL: fewer scrapes than scrapers")
        return 1
    if 200 in stats["flood_codes"]:
        print("FAIL: a wrong password was let in")
        return 1
    # Flat: the second half of the run may not grow beyond the first half's peak by more
    # than a quarter (allocator noise), whatever the absolute size.
    half = len(rss) // 2
    first, second = max(rss[1:half + 1] or rss), max(rss[half:])
    if second > first * 1.25 + 4096:
        print(f"FAIL: RSS grew from {first} KiB to {second} KiB")
        return 1
    return 0


def main():
    cmd = sys.argv[1]
    if cmd == "starve":
        return starve(int(sys.argv[2]), int(sys.argv[3]))
    if cmd == "trickle":
        return trickle(int(sys.argv[2]))
    if cmd == "load":
        return load_main(sys.argv[2:])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
