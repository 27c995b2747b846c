"""The memory manager panel against the real store: edit, delete, filter, search, paging."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox, QTextBrowser

from assistant.errors import NotFoundError
from assistant.memory.store import NewMemory
from assistant.memory.types import Category, Source, Status
from ui.memory_panel.edit_dialog import EditMemoryDialog


def press(box: QMessageBox, role: QMessageBox.ButtonRole) -> None:
    for button in box.buttons():
        if box.buttonRole(button) == role:
            button.click()
            return
    raise AssertionError(f"no button with role {role}")


def reloaded(qtbot: Any, panel: Any, action: Any) -> None:
    with qtbot.waitSignal(panel.model.loaded, timeout=10000):
        action()


def test_edit_changes_the_store(qtbot: Any, make_window: Any, seed: Any, profile: Any) -> None:
    memory = seed("I like tea", Category.PREFERENCE)
    window = make_window()
    panel = window.memories
    assert panel.model.rowCount() == 1
    panel.select_row(0)
    panel.edit_selected()
    dialog = panel.dialog
    assert isinstance(dialog, EditMemoryDialog)
    dialog.content.setPlainText("I like green tea")
    dialog.importance.setValue(5)
    reloaded(qtbot, panel, dialog.accept)
    stored = profile.store.get(memory.id)
    assert (stored.content, stored.importance) == ("I like green tea", 5)
    assert panel.model.memory(0).content == "I like green tea"
    assert any(e["event"] == "updated" for e in profile.store.history(memory.id))


def test_delete_with_confirmation_and_bulk(qtbot: Any, make_window: Any, seed: Any, profile: Any) -> None:
    first, second, third = seed("I live in Paris"), seed("I have a cat"), seed("I work as a nurse")
    window = make_window()
    panel = window.memories
    assert panel.model.rowCount() == 3
    panel.select_row(0)
    panel.delete_selected()
    press(panel.dialog, QMessageBox.ButtonRole.RejectRole)  # cancel: nothing happens
    assert profile.store.count() == 3
    panel.select_row(0)
    panel.select_row(1, extend=True)
    panel.delete_selected()
    assert "2" in panel.dialog.text()
    reloaded(qtbot, panel, lambda: press(panel.dialog, QMessageBox.ButtonRole.DestructiveRole))
    assert profile.store.count() == 1 and panel.model.rowCount() == 1
    left = panel.model.memory(0).id
    assert {first.id, second.id, third.id} - {left} == {m for m in (first.id, second.id, third.id) if m != left}
    for gone in {first.id, second.id, third.id} - {left}:
        with pytest.raises(NotFoundError):
            profile.store.get(gone)


def test_filters_search_pin_and_superseded_history(qtbot: Any, make_window: Any, seed: Any, profile: Any) -> None:
    old = seed("I live in Hangzhou", slot="user.city")
    new = seed("I live in Shanghai", slot="user.city")
    profile.service.supersede(old.id, new.id)
    seed("我喜欢喝乌龙茶", Category.PREFERENCE)
    window = make_window()
    panel = window.memories
    assert panel.model.rowCount() == 2
    reloaded(qtbot, panel, lambda: panel.view_filter.setCurrentIndex(2))  # Superseded
    assert [m.id for m in panel.model.memories()] == [old.id]
    reloaded(qtbot, panel, lambda: panel.view_filter.setCurrentIndex(0))
    reloaded(qtbot, panel, lambda: panel.category_filter.setCurrentIndex(panel.category_filter.findData(Category.PREFERENCE)))
    assert [m.content for m in panel.model.memories()] == ["我喜欢喝乌龙茶"]
    reloaded(qtbot, panel, lambda: panel.category_filter.setCurrentIndex(0))
    panel.search.setText("乌龙")
    reloaded(qtbot, panel, panel.search.returnPressed.emit)
    assert [m.content for m in panel.model.memories()] == ["我喜欢喝乌龙茶"]
    panel.search.setText("Shanghai")
    reloaded(qtbot, panel, panel.search.returnPressed.emit)
    assert [m.id for m in panel.model.memories()] == [new.id]
    panel.select_row(0)
    reloaded(qtbot, panel, panel.toggle_pin)
    assert profile.store.get(new.id).pinned
    panel.select_row(0)
    panel.show_details()
    qtbot.waitUntil(lambda: panel.dialog is not None and panel.dialog.windowTitle() == f"Memory #{new.id}")
    text = panel.dialog.findChild(QTextBrowser).toPlainText()
    assert "Hangzhou" in text and "added" in text  # what it replaced, and its history
    panel.dialog.close()


def test_review_queue_accept(qtbot: Any, make_window: Any, profile: Any) -> None:
    unsure = profile.service.add(NewMemory("I might move to Oslo", Category.GOAL, source=Source.USER_IMPLIED, review=True))
    window = make_window()
    panel = window.memories
    reloaded(qtbot, panel, lambda: panel.view_filter.setCurrentIndex(1))  # Review queue
    assert [m.id for m in panel.model.memories()] == [unsure.id]
    panel.select_row(0)
    assert panel.buttons["accept"].isEnabled()
    reloaded(qtbot, panel, panel.accept_selected)
    assert not profile.store.get(unsure.id).review and panel.model.rowCount() == 0


def test_lazy_paging(qtbot: Any, make_window: Any, profile: Any) -> None:
    now = profile.service.now()
    for i in range(250):  # rows only (SQL): paging is about the table, not the index
        profile.store.add(NewMemory(f"note number {i}", Category.FACT, source=Source.MANUAL), now + i)
    window = make_window()
    model = window.memories.model
    model.page_size = 100
    reloaded(qtbot, window.memories, window.memories.reload)
    assert model.total == 250 and model.rowCount() == 100
    assert model.canFetchMore()
    with qtbot.waitSignal(model.loaded, timeout=10000):
        window.memories.table.scrollToBottom()
        model.fetchMore()
    assert model.rowCount() == 200
    assert model.memory(0).status is Status.ACTIVE


def test_export_import_roundtrip(qtbot: Any, make_window: Any, seed: Any, profile: Any, tmp_path: Any) -> None:
    memory = seed("My favourite food is dumplings", Category.PREFERENCE)
    window = make_window()
    panel = window.memories
    path = tmp_path / "export.json"
    panel.export_to(path)
    qtbot.waitUntil(lambda: path.exists() and panel.dialog is not None and "1" in panel.dialog.text(), timeout=10000)
    panel.dialog.close()
    profile.service.delete(memory.id)
    reloaded(qtbot, panel, lambda: panel.import_from(path))
    assert [m.content for m in profile.store.list()] == ["My favourite food is dumplings"]
