"""Settings → Connected apps: the MCP clients, what each may do, revoking, the access log.

The rows come from the profile's consent tables (assistant/mcp/consent.py) on a worker; a
change (a new permission, Revoke) is written on a worker and the section reads them again.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ui.dates import long_datetime, short_datetime
from ui.i18n import tr

PERMISSIONS = [
    ("read", "Read only"),
    ("propose", "Propose (review queue)"),
    ("write", "Write"),
    ("revoked", "Revoked"),
]
"""A client's permission (`assistant.mcp.consent.Permission`) and how the section names it."""

OUTCOMES = {"ok": "done", "refused": "refused", "declined": "declined by you", "failed": "failed"}
LOG_ROWS = 50


class ConnectedApps(QWidget):
    """The section. `core` is the window's `ui.core.Core` (its profile is open)."""

    def __init__(self, core: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.core = core
        self.empty = QLabel(tr("No app has connected yet. To connect Claude Desktop, Jan or LM Studio, "
                               "add `mnemo mcp` as an MCP server in that app (see docs/mcp.md)."))
        self.empty.setWordWrap(True)
        self.clients = QTableWidget(0, 4)
        self.clients.setHorizontalHeaderLabels([tr("App"), tr("May"), tr("Last call"), ""])
        self.clients.verticalHeader().hide()
        self.clients.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.log = QTableWidget(0, 5)
        self.log.setHorizontalHeaderLabels([tr("When"), tr("App"), tr("Tool"), tr("Result"), tr("Memories")])
        self.log.verticalHeader().hide()
        self.log.horizontalHeader().setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.empty)
        layout.addWidget(self.clients)
        layout.addWidget(QLabel(tr("Recent calls")))
        layout.addWidget(self.log)
        self.refresh()

    def _consent(self) -> Any:
        from assistant.mcp.gateway import MemoryGateway

        return MemoryGateway(self.core.profile).consent

    def refresh(self) -> None:
        def read() -> tuple[list[Any], list[Any]]:
            consent = self._consent()
            return consent.clients(), consent.log(limit=LOG_ROWS)

        self.core.run_for(self, read, self._show)

    def _show(self, rows: tuple[list[Any], list[Any]]) -> None:
        clients, log = rows
        self.empty.setVisible(not clients)
        self.clients.setRowCount(len(clients))
        for row, client in enumerate(clients):
            self.clients.setItem(row, 0, QTableWidgetItem(client.name))
            choice = QComboBox()
            for value, text in PERMISSIONS:
                choice.addItem(tr(text), value)
            choice.setCurrentIndex(max(0, choice.findData(client.permission.value)))
            choice.currentIndexChanged.connect(lambda _i, n=client.name, c=choice: self.set_permission(n, c.currentData()))
            self.clients.setCellWidget(row, 1, choice)
            seen = long_datetime(client.last_seen) if client.last_seen else tr("never")
            self.clients.setItem(row, 2, QTableWidgetItem(seen))
            revoke = QPushButton(tr("Revoke"))
            revoke.setEnabled(client.permission.value != "revoked")
            revoke.clicked.connect(lambda _c=False, n=client.name: self.set_permission(n, "revoked"))
            self.clients.setCellWidget(row, 3, revoke)
        self.clients.resizeColumnsToContents()
        self.log.setRowCount(len(log))
        for row, entry in enumerate(log):
            ids = ", ".join(f"#{i}" for i in entry.memory_ids) or "—"
            cells = [short_datetime(entry.at), entry.client, entry.tool, tr(OUTCOMES[entry.outcome.value]), ids]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == 0:
                    item.setToolTip(long_datetime(entry.at))
                self.log.setItem(row, column, item)
        # every column but the memories as wide as what it holds: "Claude Desktop", "search_memories"
        for column in range(4):
            self.log.resizeColumnToContents(column)

    def set_permission(self, name: str, permission: str) -> None:
        from assistant.mcp.consent import Permission

        def write() -> None:
            consent = self._consent()
            if permission == Permission.REVOKED.value:
                consent.revoke(name)
            else:
                consent.allow(name, Permission(permission))

        self.core.run_for(self, write, lambda _r: self.refresh())


def add_to_settings(dialog: QWidget, core: Any) -> ConnectedApps:
    """Put the section in the settings dialog's form, above its buttons."""
    form = dialog.layout()
    assert isinstance(form, QFormLayout)
    section = ConnectedApps(core, dialog)
    row = QHBoxLayout()
    row.addWidget(section)
    form.insertRow(max(0, form.rowCount() - 1), tr("Connected apps"), row)
    return section
