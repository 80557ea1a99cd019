"""Plays a trace through nginx in real time, configured by a "Use these settings" nginx.conf, and
prints the verdict of each request (allowed, delayed or rejected), for scripts/check-snippets.sh
to compare with the lab's nginx row.

nginx reads its own clock, so the trace is played in real time: its groups of requests (keys
`a` and `b` at one time) are sent at once, each request on its own connection, key `a` from
127.0.0.1 and key `b` from 127.0.0.2 (the snippet's zone is keyed by the client's address). The
trace keeps every group 100 ms or more from any time at which a verdict would change
(tests/snippets.rs checks that on the row), so a late request on a busy machine does not change
them. Within a group, requests of one key are alike, so the verdicts of a group are compared in
order (allowed, then delayed, then rejected).

The snippet is included as it is in an http block that adds only an access log of each request's
$limit_req_status (PASSED, DELAYED, REJECTED); its `listen` ports are replaced by free ones. The
script waits for nginx to accept connections, then starts the trace.
Usage: python3 nginx_run.py NGINX NGINX_CONF TRACE_CSV WORK_DIR
"""
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

nginx, snippet, trace_file, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


ports = {}
text = open(snippet, encoding="utf-8").read()
text = re.sub(r"\b(8\d\d\d)\b", lambda m: str(ports.setdefault(m.group(1), free_port())), text)
front = ports["8080"]
open(f"{work}/nginx.conf", "w", encoding="utf-8").write(text)
open(f"{work}/test.conf", "w", encoding="utf-8").write(
    f"""pid {work}/nginx.pid;
error_log {work}/error.log;
daemon off;
events {{}}
http {{
    log_format verdicts '$server_port $arg_i $status $limit_req_status';
    access_log {work}/access.log verdicts;
    include {work}/nginx.conf;
}}
"""
)
server = subprocess.Popen([nginx, "-p", work, "-e", f"{work}/error.log", "-c", f"{work}/test.conf"])
try:
    while True:  # until nginx accepts connections (a connection alone asks the limiter nothing)
        if server.poll() is not None:
            sys.exit(f"nginx stopped: {open(f'{work}/error.log').read()}")
        try:
            socket.create_connection(("127.0.0.1", front), timeout=1).close()
            break
        except OSError:
            time.sleep(0.01)

    trace = [line.split(",") for line in open(trace_file, encoding="utf-8").read().split()]
    statuses = [None] * len(trace)

    def ask(i: int, key: str) -> None:
        source = "127.0.0.1" if key == "a" else "127.0.0.2"
        with socket.create_connection(("127.0.0.1", front), source_address=(source, 0)) as s:
            s.sendall(f"GET /?i={i} HTTP/1.0\r\nHost: ratelab\r\n\r\n".encode())
            reply = b""
            while chunk := s.recv(4096):
                reply += chunk
        statuses[i] = int(reply.split()[1])

    start = time.monotonic() + 0.2
    threads = []
    for i, (at_ms, key, _cost) in enumerate(trace):
        time.sleep(max(0.0, start + int(at_ms) / 1000 - time.monotonic()))
        threads.append(threading.Thread(target=ask, args=(i, key)))
        threads[-1].start()
    for thread in threads:
        thread.join()
finally:
    server.terminate()
    server.wait()

logged = {}
for line in open(f"{work}/access.log", encoding="utf-8"):
    port, i, status, verdict = line.split()
    if port == str(front):
        logged[int(i)] = (int(status), verdict)
words = []
for i in range(len(trace)):
    status, verdict = logged.get(i, (statuses[i], "-"))
    word = {"PASSED": "allowed", "DELAYED": "delayed", "REJECTED": "rejected"}.get(verdict)
    if word is None or (status == 200) != (word != "rejected") or status != statuses[i]:
        word = f"answered {statuses[i]}, logged {status} {verdict}"
    words.append(word)
# Requests of one group are alike: their verdicts in order.
rank = {"allowed": 0, "delayed": 1, "rejected": 2}
for i in range(len(trace)):
    if i and trace[i][:2] == trace[i - 1][:2]:
        continue
    group = [j for j in range(i, len(trace)) if trace[j][:2] == trace[i][:2]]
    for word in sorted((words[j] for j in group), key=lambda w: rank.get(w, 3)):
        print(word)
