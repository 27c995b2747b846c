"""Export asks whether the vault goes too (then sealed with a passphrase); import asks for that
passphrase, or goes on without the values, and never leaves a memory pointing at a vault
item that does not exist."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtWidgets import QMessageBox

from assistant.memory.store import NewMemory
from assistant.memory.types import Category, Source
from ui.memory_panel.passphrase_dialog import PassphraseDialog

SECRET = "13812345678"
PASSPHRASE = "correct horse battery"


def click(box: QMessageBox, text: str) -> None:
    for button in box.buttons():
        if button.text() == text:
            button.click()
            return
    raise AssertionError(f"no button {text!r} in {[b.text() for b in box.buttons()]}")


def vaulted(profile: Any) -> int:
    item = profile.vault.put("phone", SECRET, "138****5678", profile.service.now())
    profile.service.add(
        NewMemory(f"My phone is 138****5678 [vault #{item}]", Category.IDENTIFIER, source=Source.MANUAL, vault_ids=[item])
    )
    return item


def showing(panel: Any, kind: type) -> bool:
    """The panel's current dialog is a live `kind` (a closed one deletes itself)."""
    return isinstance(panel.dialog, kind) and shiboken6.isValid(panel.dialog)


def finished(qtbot: Any, panel: Any, text: str) -> None:
    qtbot.waitUntil(lambda: showing(panel, QMessageBox) and text in panel.dialog.text(), timeout=60000)
    panel.dialog.close()


def asked_passphrase(qtbot: Any, panel: Any) -> PassphraseDialog:
    qtbot.waitUntil(lambda: showing(panel, PassphraseDialog) and panel.dialog.isVisible(), timeout=30000)
    dialog = panel.dialog
    assert isinstance(dialog, PassphraseDialog)
    return dialog


def export_with_vault(qtbot: Any, panel: Any, path: Path) -> None:
    panel.ask_export(path)
    qtbot.waitUntil(lambda: showing(panel, QMessageBox) and panel.dialog.objectName() == "export-vault", timeout=30000)
    assert "1 sensitive values" in panel.dialog.text()
    click(panel.dialog, "Include, encrypted")
    dialog = asked_passphrase(qtbot, panel)
    dialog.passphrase.setText("short")
    dialog.again.setText("short")
    dialog.accept()
    assert dialog.isVisible() and "at least 8" in dialog.message.text()
    dialog.passphrase.setText(PASSPHRASE)
    dialog.again.setText(PASSPHRASE + "!")
    dialog.accept()
    assert dialog.isVisible() and "differ" in dialog.message.text()
    dialog.again.setText(PASSPHRASE)
    dialog.accept()
    finished(qtbot, panel, "Exported 1 memories")


def exported_then_forgotten(qtbot: Any, make_window: Any, profile: Any, path: Path) -> Any:
    """A sealed export of one vaulted memory, then forget-me; returns the memory panel."""
    vaulted(profile)
    panel = make_window().memories
    export_with_vault(qtbot, panel, path)
    profile.forget_me()
    return panel


def test_export_asks_and_seals_the_vault_and_import_asks_for_the_passphrase(
    qtbot: Any, make_window: Any, profile: Any, tmp_path: Path
) -> None:
    path = tmp_path / "export.json"
    panel = exported_then_forgotten(qtbot, make_window, profile, path)
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text and '"sealed"' in text
    panel.import_from(path)
    dialog = asked_passphrase(qtbot, panel)
    dialog.passphrase.setText("not the passphrase")
    dialog.accept()
    qtbot.waitUntil(lambda: panel.dialog is not dialog and showing(panel, PassphraseDialog), timeout=60000)
    again = asked_passphrase(qtbot, panel)
    assert "does not open" in again.message.text()
    assert profile.store.total() == 0, "nothing is imported with a wrong passphrase"
    again.passphrase.setText(PASSPHRASE)
    again.accept()
    finished(qtbot, panel, "Imported 1 memories")
    memory = profile.store.list()[0]
    assert profile.vault.get(memory.vault_ids[0]) == SECRET
    assert f"[vault #{memory.vault_ids[0]}]" in memory.content


def test_import_without_the_vault_values_leaves_no_dangling_reference(
    qtbot: Any, make_window: Any, profile: Any, tmp_path: Path
) -> None:
    path = tmp_path / "export.json"
    panel = exported_then_forgotten(qtbot, make_window, profile, path)
    panel.import_from(path)
    dialog = asked_passphrase(qtbot, panel)
    assert dialog.skip_button is not None
    dialog.skip_button.click()
    finished(qtbot, panel, "Imported 1 memories")
    memory = profile.store.list()[0]
    assert memory.vault_ids == [] and "[vault #" not in memory.content
    assert profile.vault.items() == []


def test_export_can_leave_the_vault_out(qtbot: Any, make_window: Any, profile: Any, tmp_path: Path) -> None:
    vaulted(profile)
    panel = make_window().memories
    path = tmp_path / "plain.json"
    panel.ask_export(path)
    qtbot.waitUntil(lambda: showing(panel, QMessageBox) and panel.dialog.objectName() == "export-vault", timeout=30000)
    click(panel.dialog, "Leave them out")
    finished(qtbot, panel, "Exported 1 memories")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["includes_sensitive"] is False
    assert SECRET not in path.read_text(encoding="utf-8") and '"sealed"' not in path.read_text(encoding="utf-8")
