"""Settings → Connected apps lists the MCP clients with their permission and access log, and
revokes; the window asks the user before a client's forget deletes anything."""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtWidgets import QComboBox, QMessageBox, QPushButton, QTextBrowser

from assistant.mcp.consent import Permission
from assistant.mcp.gateway import MemoryGateway, Refused
from ui.connected_apps import ConnectedApps
from ui.mcp_service import McpService
from ui.memory_panel.details_dialog import MemoryDetailsDialog


def test_connected_apps_lists_clients_and_revokes(qtbot: Any, window: Any, seed: Any) -> None:
    memory = seed("I live in Lisbon.")
    gateway = MemoryGateway(window.core.profile)
    gateway.consent.allow("Jan", Permission.PROPOSE)
    gateway.list_memories("Jan")
    window.open_settings()
    section = window.dialog.findChild(ConnectedApps)
    assert section is not None
    qtbot.waitUntil(lambda: section.clients.rowCount() == 1 and section.log.rowCount() == 1, timeout=10000)
    assert section.clients.item(0, 0).text() == "Jan"
    choice = section.clients.cellWidget(0, 1)
    assert isinstance(choice, QComboBox) and choice.currentData() == "propose"
    assert section.log.item(0, 2).text() == "list_memories" and f"#{memory.id}" in section.log.item(0, 4).text()
    revoke = section.clients.cellWidget(0, 3)
    assert isinstance(revoke, QPushButton)
    revoke.click()
    qtbot.waitUntil(lambda: gateway.consent.client("Jan").permission is Permission.REVOKED, timeout=10000)
    qtbot.waitUntil(lambda: not section.clients.cellWidget(0, 3).isEnabled(), timeout=10000)
    try:
        gateway.list_memories("Jan")
    except Refused as exc:
        assert "revoked" in exc.message
    else:
        raise AssertionError("a revoked client still reads")
    window.dialog.reject()


def test_a_clients_forget_waits_for_the_users_yes(qtbot: Any, window: Any, seed: Any) -> None:
    kept = seed("My sister Ana lives in Porto.")
    service = McpService(window.core, window)
    gateway = MemoryGateway(window.core.profile, confirm_forget=service.confirm)
    gateway.consent.allow("Claude", Permission.WRITE)
    answers: list[Any] = []

    def ask() -> None:
        try:
            answers.append(gateway.forget("Claude", "Ana"))
        except Refused as exc:
            answers.append(exc)

    for button, expected in (("Keep", Refused), ("Forget", dict)):
        worker = threading.Thread(target=ask)
        worker.start()
        qtbot.waitUntil(lambda: service.dialog is not None, timeout=10000)
        box = service.dialog
        assert isinstance(box, QMessageBox) and "Claude" in box.text() and "Ana" in box.text()
        next(b for b in box.buttons() if b.text() == button).click()
        qtbot.waitUntil(lambda w=worker: not w.is_alive(), timeout=10000)
        assert isinstance(answers[-1], expected), answers
    assert answers[-1] == {"forgotten": 1}
    assert window.core.profile.memories.get_many([kept.id]) == []
    outcomes = [e.outcome.value for e in gateway.consent.log()]
    assert outcomes == ["ok", "declined"]


def test_a_proposed_memory_says_which_app_wrote_it(qtbot: Any, window: Any) -> None:
    gateway = MemoryGateway(window.core.profile)
    gateway.consent.allow("Jan", Permission.PROPOSE)
    proposed = gateway.remember("Jan", "The user prefers window seats.")
    dialog = MemoryDetailsDialog(window.core.profile.memories.details(proposed["id"]))
    qtbot.addWidget(dialog)
    browser = dialog.findChild(QTextBrowser)
    assert browser is not None and "Written by a connected app (MCP: Jan)." in browser.toPlainText()
