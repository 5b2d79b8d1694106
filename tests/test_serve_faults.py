"""The fault matrix of the service and its client (docs/agents.md, "When something fails"):
each way the service can fail the client (declared once in :data:`TRANSPORT`) leaves the
client with the same decision, taken in-process; each way a guard behind the service can fail
(:data:`GUARD`) is a block in every agent's form when the guard is ``fail_closed``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from serve_helpers import client, free_port, make_home, serving
from test_serve import PRE, payload, tool

TIMEOUT = 0.5  # the client's --timeout in these cells (seconds)


@dataclass(frozen=True)
class Fault:
    name: str
    what: str
    #: What the fake service does with one connection (None: nothing listens).
    act: Callable[[socket.socket], None] | None


def _read_request(conn: socket.socket) -> None:
    conn.settimeout(5)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return
        data += chunk


def _crash(conn: socket.socket) -> None:
    _read_request(conn)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")


def _garbage(conn: socket.socket) -> None:
    _read_request(conn)
    conn.sendall(b"\x00\xffnot http at all\r\n\r\n")


def _timeout(conn: socket.socket) -> None:
    _read_request(conn)
    time.sleep(TIMEOUT * 3)


def _slow_drip(conn: socket.socket) -> None:
    _read_request(conn)
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{")
    for _ in range(int(TIMEOUT * 30)):
        try:
            conn.sendall(b" ")
        except OSError:
            return
        time.sleep(0.1)


def _status(code: int, body: bytes) -> Callable[[socket.socket], None]:
    def act(conn: socket.socket) -> None:
        _read_request(conn)
        conn.sendall(b"HTTP/1.1 %d X\r\nContent-Length: %d\r\n\r\n" % (code, len(body)) + body)

    return act


def _truncated(conn: socket.socket) -> None:
    _read_request(conn)
    conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 400\r\n\r\n{"stdout": "{}"')


TRANSPORT = (
    Fault("refused", "nothing listens at the service's URL (it is stopped)", None),
    Fault("crash", "the service resets the connection after reading the request", _crash),
    Fault("garbage", "the reply is not HTTP", _garbage),
    Fault("timeout", "the service accepts and never answers", _timeout),
    Fault("slow-drip", "the reply arrives a byte at a time past the time limit", _slow_drip),
    Fault("http-500", "the service answers 500", _status(500, b'{"error": "boom"}')),
    Fault("http-401", "the service refuses the token", _status(401, b'{"error": "token"}')),
    Fault("not-json", "a 200 whose body is not JSON", _status(200, b"<html>ok</html>")),
    Fault("wrong-shape", "a 200 whose JSON is no command reply", _status(200, b"[1, 2]")),
    Fault("truncated", "the reply stops before its Content-Length", _truncated),
)


@contextmanager
def fake_service(act: Callable[[socket.socket], None]) -> Iterator[str]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    stop = threading.Event()

    def loop() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            threading.Thread(target=_one, args=(conn,), daemon=True).start()

    def _one(conn: socket.socket) -> None:
        try:
            act(conn)
        except OSError:
            pass
        finally:
            conn.close()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def _point(home: Path, url: str) -> None:
    (home / "serve").mkdir(mode=0o700, exist_ok=True)
    (home / "serve" / "url").write_text(url + "\n")
    token = home / "serve" / "token"
    token.write_text("t" * 43)
    token.chmod(0o600)


def _client(agent: str, home: Path, mark: str = "BLOCK"):
    data = payload(agent, PRE[agent], "pre_tool_call", tool(mark))
    return client(agent, PRE[agent], data, home, env={"HERMES_HOOKS_CLIENT_TIMEOUT": str(TIMEOUT)})


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    """What the real service answers, per agent, for the probe."""
    home = make_home(tmp_path_factory.mktemp("reference"))
    out = {}
    with serving(home) as service:
        for agent in PRE:
            data = payload(agent, PRE[agent], "pre_tool_call", tool("BLOCK"))
            status, reply = service.post(agent, PRE[agent], data)
            assert status == 200
            out[agent] = reply
    return out


@pytest.mark.parametrize("fault", TRANSPORT, ids=lambda f: f.name)
@pytest.mark.parametrize("agent", ["claude", "gemini", "copilot"])
def test_a_failing_service_leaves_the_client_with_the_same_decision(
    fault, agent, reference, tmp_path
):
    home = make_home(tmp_path / "home")
    if fault.act is None:
        _point(home, f"http://127.0.0.1:{free_port()}")
        done = _client(agent, home)
    else:
        with fake_service(fault.act) as url:
            _point(home, url)
            started = time.monotonic()
            done = _client(agent, home)
            assert time.monotonic() - started < TIMEOUT + 20
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == reference[agent]
    assert "did not answer" in done.stderr and "ran in-process" in done.stderr


def test_the_matrix_covers_every_transport_fault() -> None:
    assert len({f.name for f in TRANSPORT}) == len(TRANSPORT)
    assert {"refused", "crash", "garbage", "timeout", "slow-drip"} <= {f.name for f in TRANSPORT}


# ---------------------------------------------------------------------- guards behind the service

GUARD = {
    "crash": "kill -9 $$",
    "exit-garbage": "echo 'garbage{'; exit 3",
    "timeout": "sleep 5",
    "slow-drip": "for i in 1 2 3 4 5 6 7 8 9 10; do printf x; sleep 0.5; done",
    "malformed-reply": 'echo \'{"decision": "maybe"}\'',
}


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    """One service whose config.yaml holds a fail_closed shell guard per fault, each hearing
    only commands that name it (the matcher is the terminal tool; the script checks the name)."""
    root = tmp_path_factory.mktemp("guarded")
    hooks = []
    for name, body in GUARD.items():
        script = root / f"{name}.sh"
        script.write_text(
            f'#!/bin/sh\ninput=$(cat)\ncase "$input" in *"fault-{name}"*) ;; *) exit 0;; esac\n'
            f"{body}\n"
        )
        script.chmod(0o755)
        hooks.append({"command": str(script), "fail_closed": True, "timeout": 0.5})
    home = make_home(root / "home", {"hooks": {"pre_tool_call": hooks}, "hooks_auto_accept": True})
    with serving(home, "--accept-hooks") as service:
        yield service


@pytest.mark.parametrize("fault", list(GUARD))
@pytest.mark.parametrize("agent", ["claude", "cursor", "copilot"])
def test_a_failing_fail_closed_guard_behind_the_service_blocks(fault, agent, guarded):
    data = payload(agent, PRE[agent], "pre_tool_call", tool(f"fault-{fault}"))
    status, reply = guarded.post(agent, PRE[agent], data)
    assert status == 200
    text = json.dumps(reply)
    words = {"claude": '"deny"', "codex": '"deny"', "gemini": '"deny"', "cursor": '"deny"',
             "copilot": '"deny"', "hermes": '"block"'}  # fmt: skip
    assert words[agent] in text, (fault, agent, reply)
