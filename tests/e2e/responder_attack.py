#!/usr/bin/env python3
"""Hostile probers against `rdmatop responder` on loopback (tests/e2e/responder_flood_test.sh).

responder_attack.py PORT SECONDS runs, for SECONDS:
  * trickling holders from 127.0.0.3 to 127.0.0.6: each completes a valid TCP hello, then sends
    a frame header announcing 64 bytes and one byte of it every 0.25 s (#22: any byte restarted
    the 120 s idle deadline, so 64 such connections held every slot for ever); whenever the
    responder closes one, it reconnects;
  * a connection flood from 127.0.0.2: connect and close as fast as a 200/s budget allows.
Prints what happened; exits 0 (the prober's result is the test).
"""
import os
import socket
import struct
import sys
import threading
import time

HELLO_MAGIC, ACCEPT_SIZE, FRAME_MAGIC = 0x52545048, 60, 0x52545046
TCP_KIND, VERSION = 2, 1


def hello(max_payload=64):
    # probes/protocol.cpp encode_hello: magic, version, kind, flags, 0, max_payload,
    # unix_seconds, nonce, reply_addr, reply_rkey, proof (none): 56 bytes, big-endian.
    body = struct.pack(">IBBBBIQ8sQI", HELLO_MAGIC, VERSION, TCP_KIND, 0, 0, max_payload,
                       int(time.time()), os.urandom(8), 0, 0)
    return body + bytes(56 - len(body))


def holder(port, source, stop, stats):
    while not stop.is_set():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5,
                                         source_address=(source, 0))
        except OSError:
            time.sleep(0.5)
            continue
        try:
            s.sendall(hello())
            accept = s.recv(ACCEPT_SIZE)
            if len(accept) < 6 or accept[5] != 0:  # status 0: accepted
                stats["refused"] += 1
                s.close()
                time.sleep(0.5)
                continue
            stats["held"] += 1
            s.sendall(struct.pack(">IIQ", FRAME_MAGIC, 64, 1))
            s.settimeout(0.25)
            for _ in range(64):
                if stop.is_set():
                    break
                try:
                    if s.recv(1) == b"":
                        stats["closed_by_responder"] += 1
                        break
                except socket.timeout:
                    pass
                s.send(b"x")
            else:
                stats["survived"] += 1
        except OSError:
            stats["closed_by_responder"] += 1
        finally:
            s.close()


def flooder(port, stop, stats):
    while not stop.is_set():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2,
                                         source_address=("127.0.0.2", 0))
            s.close()
            stats["flood"] += 1
        except OSError:
            stats["flood_failed"] += 1
        time.sleep(0.005)


def main():
    port, seconds = int(sys.argv[1]), float(sys.argv[2])
    stop = threading.Event()
    stats = {"held": 0, "refused": 0, "closed_by_responder": 0, "survived": 0, "flood": 0,
             "flood_failed": 0}
    threads = [threading.Thread(target=flooder, args=(port, stop, stats))]
    for i in range(4):
        for _ in range(16):
            threads.append(threading.Thread(target=holder,
                                            args=(port, f"127.0.0.{3 + i}", stop, stats)))
    for t in threads:
        t.daemon = True
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join(timeout=5)
    print("attack: " + ", ".join(f"{k} {v}" for k, v in stats.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
