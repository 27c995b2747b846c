"""The memory manager panel against the real store: edit, delete, filter, search, paging."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QProgressBar, QTextBrowser

from assistant.errors import NotFoundError
from assistant.memory.store import NewMemory
from assistant.memory.types import Category, Source, Status
from tests.gui.test_chat import send
from ui.memory_panel.edit_dialog import EditMemoryDialog
from ui.memory_panel.vault_dialog import VaultDialog


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


def test_delete_with_confirmation_and_bulk(
    qtbot: Any, make_window: Any, seed: Any, profile: Any
) -> None:
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
    assert {first.id, second.id, third.id} - {left} == {
        m for m in (first.id, second.id, third.id) if m != left
    }
    for gone in {first.id, second.id, third.id} - {left}:
        with pytest.raises(NotFoundError):
            profile.store.get(gone)


def test_filters_search_pin_and_superseded_history(
    qtbot: Any, make_window: Any, seed: Any, profile: Any
) -> None:
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
    reloaded(
        qtbot,
        panel,
        lambda: panel.category_filter.setCurrentIndex(
            panel.category_filter.findData(Category.PREFERENCE)
        ),
    )
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
    qtbot.waitUntil(
        lambda: panel.dialog is not None and panel.dialog.windowTitle() == f"Memory #{new.id}"
    )
    text = panel.dialog.findChild(QTextBrowser).toPlainText()
    assert "Hangzhou" in text and "added" in text  # what it replaced, and its history
    panel.dialog.close()


def test_review_queue_accept_and_reject(qtbot: Any, make_window: Any, profile: Any) -> None:
    unsure = profile.service.add(
        NewMemory("I might move to Oslo", Category.GOAL, source=Source.USER_IMPLIED, review=True)
    )
    wrong = profile.service.add(
        NewMemory(
            "I may dislike jazz", Category.PREFERENCE, source=Source.USER_IMPLIED, review=True
        )
    )
    window = make_window()
    panel = window.memories
    reloaded(qtbot, panel, lambda: panel.view_filter.setCurrentIndex(1))  # Review queue
    assert {m.id for m in panel.model.memories()} == {unsure.id, wrong.id}
    panel.select_row([m.id for m in panel.model.memories()].index(unsure.id))
    assert panel.buttons["accept"].isEnabled() and panel.buttons["reject"].isEnabled()
    reloaded(
        qtbot, panel, lambda: qtbot.mouseClick(panel.buttons["accept"], Qt.MouseButton.LeftButton)
    )
    assert (
        not profile.store.get(unsure.id).review
        and profile.store.get(unsure.id).status is Status.ACTIVE
    )
    assert [m.id for m in panel.model.memories()] == [wrong.id]
    panel.select_row(0)
    reloaded(
        qtbot, panel, lambda: qtbot.mouseClick(panel.buttons["reject"], Qt.MouseButton.LeftButton)
    )
    with pytest.raises(NotFoundError):
        profile.store.get(wrong.id)
    assert panel.model.rowCount() == 0


def test_sort_by_a_column(qtbot: Any, make_window: Any, seed: Any) -> None:
    for importance, text in (
        (2, "I own a bike"),
        (5, "I am allergic to peanuts"),
        (3, "I like jazz"),
    ):
        seed(text, importance=importance)
    window = make_window()
    panel = window.memories
    reloaded(
        qtbot, panel, lambda: panel.table.sortByColumn(2, Qt.SortOrder.DescendingOrder)
    )  # Importance
    assert [m.importance for m in panel.model.memories()] == [5, 3, 2]
    reloaded(qtbot, panel, lambda: panel.table.sortByColumn(2, Qt.SortOrder.AscendingOrder))
    assert [m.importance for m in panel.model.memories()] == [2, 3, 5]


def test_sensitive_section_reveals_one_value(qtbot: Any, window: Any, profile: Any) -> None:
    send(qtbot, window, "My phone number is 13812345678 and my email is lin.wei@example.com")
    assert {item.kind for item in profile.vault.items()} >= {"phone", "email"}
    panel = window.memories
    qtbot.mouseClick(panel.buttons["vault"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: isinstance(panel.dialog, VaultDialog) and panel.dialog.isVisible(), timeout=10000
    )
    dialog = panel.dialog
    values = [dialog.table.item(row, 1).text() for row in range(dialog.table.rowCount())]
    assert "13812345678" not in values and "lin.wei@example.com" not in values  # all masked
    row = [item.kind for item in dialog.items].index("phone")
    reveal = dialog.table.cellWidget(row, 3)
    qtbot.mouseClick(reveal, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.table.item(row, 1).text() == "13812345678", timeout=10000)
    assert reveal.text() == "Hide"
    others = [dialog.table.item(r, 1).text() for r in range(dialog.table.rowCount()) if r != row]
    assert others == [v for r, v in enumerate(values) if r != row]  # only the one asked for
    qtbot.mouseClick(reveal, Qt.MouseButton.LeftButton)
    assert dialog.table.item(row, 1).text() == values[row] and reveal.text() == "Reveal"
    dialog.close()


def test_sensitive_section_closed_before_a_reveal_finishes(qtbot: Any, window: Any, profile: Any) -> None:
    # the dialog deletes itself on close; the decrypted value must not reach its deleted table
    send(qtbot, window, "My phone number is 13812345678")
    panel = window.memories
    qtbot.mouseClick(panel.buttons["vault"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: isinstance(panel.dialog, VaultDialog) and panel.dialog.isVisible(), timeout=10000
    )
    dialog = panel.dialog
    qtbot.mouseClick(dialog.table.cellWidget(0, 3), Qt.MouseButton.LeftButton)
    dialog.close()  # before the event loop can deliver the value
    qtbot.waitUntil(lambda: not window.core.runner.busy, timeout=10000)


def test_provenance_shows_the_message_a_memory_came_from(qtbot: Any, window: Any) -> None:
    result = send(qtbot, window, "I work as a nurse at the Charité hospital.")
    added = [c for c in result.changes if c.action.value == "add"]
    assert added
    panel = window.memories
    qtbot.waitUntil(lambda: not panel.model.loading and panel.model.rowCount() >= 1, timeout=10000)
    ids = [m.id for m in panel.model.memories()]
    panel.select_row(ids.index(added[0].memory_id))
    panel.show_details()
    qtbot.waitUntil(lambda: panel.dialog is not None and panel.dialog.isVisible(), timeout=10000)
    text = panel.dialog.findChild(QTextBrowser).toPlainText()
    assert "Where it came from" in text and "I work as a nurse at the Charité hospital." in text
    panel.dialog.close()


def test_lazy_paging(qtbot: Any, make_window: Any, profile: Any) -> None:
    now = profile.service.now()
    for i in range(250):  # rows only (SQL): paging is about the table, not the index
        profile.store.add(
            NewMemory(f"note number {i}", Category.FACT, source=Source.MANUAL), now + i
        )
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


def progress_of(qtbot: Any, panel: Any, action: Any, done: Any) -> list[tuple[int, int]]:
    """Run `action` (an export or import) until `done()`; the progress it showed, as (value, maximum)."""
    shown: list[tuple[int, int]] = []
    action()
    bar = panel.progress.findChild(QProgressBar)
    bar.valueChanged.connect(
        lambda value: shown.append((value, bar.maximum()))
    )  # reports arrive queued
    qtbot.waitUntil(done, timeout=20000)
    return shown


def test_export_import_roundtrip_with_progress(
    qtbot: Any, make_window: Any, seed: Any, profile: Any, tmp_path: Any
) -> None:
    memories = [seed("My favourite food is dumplings", Category.PREFERENCE)]
    memories += [
        seed(f"Project note {i}: the launch checklist is in the blue folder") for i in range(4)
    ]
    window = make_window()
    panel = window.memories
    path = tmp_path / "export.json"
    exported = progress_of(
        qtbot,
        panel,
        lambda: panel.export_to(path),
        lambda: (
            isinstance(panel.dialog, QMessageBox) and "Exported 5 memories" in panel.dialog.text()
        ),
    )
    assert path.exists() and exported and exported[-1] == (5, 5)
    panel.dialog.close()
    panel.dialog = None
    for memory in memories:
        profile.service.delete(memory.id)
    with qtbot.waitSignal(panel.model.loaded, timeout=20000):
        imported = progress_of(
            qtbot,
            panel,
            lambda: panel.import_from(path),
            lambda: (
                isinstance(panel.dialog, QMessageBox)
                and "Imported 5 memories" in panel.dialog.text()
            ),
        )
    assert imported and imported[-1] == (5, 5)
    assert sorted(m.content for m in profile.store.list()) == sorted(m.content for m in memories)
    assert panel.model.rowCount() == 5
    panel.dialog.close()


def test_empty_states_say_why(qtbot: Any, make_window: Any, seed: Any) -> None:
    window = make_window()
    panel = window.memories
    window.tabs.setCurrentWidget(panel)
    assert panel.pages.currentWidget() is panel.empty_label
    assert "No memories yet" in panel.empty_label.text()
    seed("I live in Berlin")
    reloaded(qtbot, panel, panel.reload)
    assert panel.pages.currentWidget() is panel.table
    panel.search.setText("Shanghai")
    reloaded(qtbot, panel, panel.search.returnPressed.emit)
    assert panel.pages.currentWidget() is panel.empty_label
    assert panel.empty_label.text() == "No memories match “Shanghai”."
    panel.search.clear()
    reloaded(qtbot, panel, lambda: panel.view_filter.setCurrentIndex(1))  # Review queue
    assert "Nothing to review" in panel.empty_label.text()
    assert panel.review_hint.isVisible() and "not sure about" in panel.review_hint.text()
    assert panel.buttons["accept"].isVisible() and not panel.buttons["restore"].isVisible()
    reloaded(qtbot, panel, lambda: panel.view_filter.setCurrentIndex(0))
    assert not panel.review_hint.isVisible() and not panel.buttons["accept"].isVisible()


def test_the_table_follows_changes_made_anywhere_and_after_forget_me(
    qtbot: Any, make_window: Any, profile: Any
) -> None:
    """One listener: a change made outside the panel (a chat turn, the CLI's kind of call)
    refreshes the table, and still does after forget-me, with nothing re-wired."""
    window = make_window()
    panel, memories = window.memories, profile.memories
    reloaded(qtbot, panel, lambda: memories.add("I like tea"))
    assert [m.content for m in panel.model.memories()] == ["I like tea"]

    erased: list[Any] = []
    with qtbot.waitSignal(window.core.reset, timeout=30000):
        window.core.forget_me(erased.append, lambda exc: erased.append(exc))
    qtbot.waitUntil(lambda: bool(erased) and not panel.model.loading, timeout=10000)
    assert panel.model.rowCount() == 0 and profile.memories is memories

    reloaded(qtbot, panel, lambda: memories.add("I like coffee"))
    assert [m.content for m in panel.model.memories()] == ["I like coffee"]
