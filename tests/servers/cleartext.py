"""Hostile database servers on 127.0.0.1 that ask for the password in cleartext, over a plain TCP
link, and record every byte the client sends: a PostgreSQL server answering the startup with
AuthenticationCleartextPassword, and a MySQL server switching the login to `mysql_clear_password`
(or to `dialog`, as PAM does). One connection is served at a time, each in a thread."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from types import TracebackType

SSL_REQUEST, GSSENC_REQUEST = 80877103, 80877104
# MySQL capabilities: LONG_PASSWORD, CONNECT_WITH_DB, PROTOCOL_41, TRANSACTIONS, SECURE_CONNECTION, PLUGIN_AUTH
MYSQL_CAPABILITIES = 0x1 | 0x8 | 0x200 | 0x2000 | 0x8000 | 0x80000


class CleartextStub:
    """`with CleartextStub("postgres") as stub:` connect to stub.port; stub.received holds what came."""

    def __init__(self, kind: str, plugin: str = "mysql_clear_password") -> None:
        self.kind, self.plugin = kind, plugin
        self.received = b""
        self.connections = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> CleartextStub:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._listener.shutdown(socket.SHUT_RDWR)  # wakes the thread's accept(), which close() alone does not
        self._listener.close()
        self._thread.join(timeout=10)

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:  # the listener was closed: the test is over
                return
            with conn, contextlib.suppress(OSError, struct.error):  # the client hangs up, as it should
                conn.settimeout(10)
                self.connections += 1
                self._postgres(conn) if self.kind == "postgres" else self._mysql(conn)

    def _read(self, conn: socket.socket, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = conn.recv(size - len(data))
            if not chunk:
                raise OSError("closed")
            data += chunk
        self.received += data
        return data

    def _answer(self, conn: socket.socket) -> None:
        """Record the client's answer to the request (one message on loopback), then hang up."""
        self.received += conn.recv(4096)

    def _postgres(self, conn: socket.socket) -> None:
        while True:
            length, code = struct.unpack("!ii", self._read(conn, 8))
            if code in (SSL_REQUEST, GSSENC_REQUEST):
                conn.sendall(b"N")  # no TLS, no GSS encryption: a plain link
                continue
            self._read(conn, length - 8)  # the rest of the startup message
            break
        conn.sendall(b"R" + struct.pack("!ii", 8, 3))  # AuthenticationCleartextPassword
        self._answer(conn)

    def _mysql(self, conn: socket.socket) -> None:
        sequence = self._mysql_login(conn)
        question = b"\x04Password: " if self.plugin == "dialog" else b""
        _send_packet(conn, sequence, b"\xfe" + self.plugin.encode() + b"\0" + question)
        self._answer(conn)

    def _mysql_login(self, conn: socket.socket) -> int:
        """A MySQL handshake, and the client's login read: the sequence number of the server's answer."""
        salt = b"abcdefgh" + b"ijklmnopqrst"
        handshake = (b"\x0a" + b"5.7.0-stub\0" + struct.pack("<I", 7) + salt[:8] + b"\0"
                     + struct.pack("<H", MYSQL_CAPABILITIES & 0xFFFF) + b"\x21" + struct.pack("<H", 2)
                     + struct.pack("<H", MYSQL_CAPABILITIES >> 16) + bytes([21]) + b"\0" * 10
                     + salt[8:] + b"\0" + b"mysql_native_password\0")
        _send_packet(conn, 0, handshake)
        header = self._read(conn, 4)
        self._read(conn, int.from_bytes(header[:3], "little"))  # the login, with a hashed password
        return header[3] + 1


class FileAskingStub(CleartextStub):
    """A MySQL server that lets anyone in, then answers the first statement after SET NAMES with a
    request for the client's file `asked` (LOAD DATA LOCAL's LOAD_LOCAL packet), as a hostile server
    may; `received` holds all the client sent."""

    def __init__(self, asked: str) -> None:
        super().__init__("mysql")
        self.asked = asked

    def _mysql(self, conn: socket.socket) -> None:
        ok = b"\x00\x00\x00\x02\x00\x00\x00"
        _send_packet(conn, self._mysql_login(conn), ok)  # logged in
        header = self._read(conn, 4)
        self._read(conn, int.from_bytes(header[:3], "little"))  # SET NAMES, which PyMySQL sends as it connects
        _send_packet(conn, 1, ok)
        header = self._read(conn, 4)
        self._read(conn, int.from_bytes(header[:3], "little"))  # the next statement
        _send_packet(conn, 1, b"\xfb" + self.asked.encode())  # LOAD_LOCAL: send me this file
        for _ in range(64):  # the file's packets, up to the empty one that ends it
            header = self._read(conn, 4)
            if not self._read(conn, int.from_bytes(header[:3], "little")):
                break
        _send_packet(conn, header[3] + 1, b"\x00\x00\x00\x02\x00\x00\x00")
        self._answer(conn)


def _send_packet(conn: socket.socket, sequence: int, payload: bytes) -> None:
    conn.sendall(len(payload).to_bytes(3, "little") + bytes([sequence & 0xFF]) + payload)
