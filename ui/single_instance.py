"""One window per profile: a second `mnemo` brings the running window forward and exits.

The running app listens on a local socket (a Unix domain socket in the temp folder, a named
pipe on Windows; never a TCP port) named after the user, the data directory and the profile,
and readable by its owner only. A second start connects, says "activate", waits for the
answer and exits before it opens anything; nobody answering means no window runs (a socket
left by a crash is removed).
"""

from __future__ import annotations

import getpass
import hashlib
import logging
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

log = logging.getLogger("mnemo.ui")

ACTIVATE = b"activate\n"
ANSWER = b"ok\n"
WAIT_MS = 2000


def instance_key(data_dir: Path, profile: str) -> str:
    """The socket's name for one user's profile in one data directory."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container): the folder still tells
        user = ""
    where = f"{user}|{Path(data_dir).expanduser().resolve()}|{profile}"
    return "mnemo-" + hashlib.sha256(where.encode("utf-8")).hexdigest()[:24]


def activate_running(key: str, timeout_ms: int = WAIT_MS) -> bool:
    """Ask the window already running for this profile to come forward; False if none runs."""
    socket = QLocalSocket()
    socket.connectToServer(key)
    if not socket.waitForConnected(timeout_ms):
        return False
    socket.write(ACTIVATE)
    socket.flush()
    socket.waitForBytesWritten(timeout_ms)
    answered = socket.waitForReadyRead(timeout_ms) and bytes(socket.readAll().data()) == ANSWER
    socket.disconnectFromServer()
    if not answered:
        log.info("another Mnemo holds the instance socket but did not answer")
    return True


class InstanceServer(QObject):
    """Listens for later starts of the same profile; `activated` when one asks."""

    activated = Signal()

    def __init__(self, key: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.key = key
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._accept)

    def listen(self) -> bool:
        """Start listening (a socket a crashed run left behind is removed first)."""
        if self.server.listen(self.key):
            return True
        QLocalServer.removeServer(self.key)
        if self.server.listen(self.key):
            return True
        log.warning("cannot listen for other starts: %s", self.server.errorString())
        return False

    @property
    def path(self) -> str:
        return self.server.fullServerName()

    def close(self) -> None:
        self.server.close()

    def _accept(self) -> None:
        while (socket := self.server.nextPendingConnection()) is not None:
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(socket.deleteLater)

    def _read(self, socket: QLocalSocket) -> None:
        if bytes(socket.readAll().data()).startswith(ACTIVATE.strip()):
            socket.write(ANSWER)
            socket.flush()
            self.activated.emit()
