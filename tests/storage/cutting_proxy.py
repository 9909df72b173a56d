"""A TCP proxy in front of the S3 server that cuts the connection in the middle of chosen
responses: what a lost connection does to a download, below every retry of s3fs."""

from __future__ import annotations

import contextlib
import re
import socket
import threading


class CuttingProxy:
    """Forwards 127.0.0.1:``port`` to ``target_port``; the response to a request whose
    head matches ``cut`` stops after ``after`` bytes and the connection is closed."""

    def __init__(self, target_port: int, cut: bytes, after: int) -> None:
        self.target_port = target_port
        self.cut = re.compile(cut, re.S)
        self.after = after
        #: How many responses were cut (one per attempt of the client's retries).
        self.cuts = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target_port))
            # Per connection: whether the response under way is to be cut, and its bytes.
            state = {"cut": False, "sent": 0}
            threading.Thread(target=self._up, args=(client, server, state), daemon=True).start()
            threading.Thread(target=self._down, args=(server, client, state), daemon=True).start()

    def _up(self, client: socket.socket, server: socket.socket, state: dict) -> None:
        try:
            while data := client.recv(1 << 16):
                if re.match(rb"[A-Z]+ /", data):  # a new request (no pipelining from s3fs)
                    state["cut"], state["sent"] = bool(self.cut.search(data)), 0
                server.sendall(data)
        except OSError:
            pass
        finally:
            _close(client, server)

    def _down(self, server: socket.socket, client: socket.socket, state: dict) -> None:
        try:
            while data := server.recv(1 << 16):
                if state["cut"] and state["sent"] + len(data) >= self.after:
                    client.sendall(data[: self.after - state["sent"]])
                    self.cuts += 1
                    return
                state["sent"] += len(data)
                client.sendall(data)
        except OSError:
            pass
        finally:
            _close(client, server)


def _close(*sockets: socket.socket) -> None:
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()
