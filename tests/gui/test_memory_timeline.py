"""The memory panel's timeline against the real core: the entries by day, undo from it (both
the timeline and the table follow), the way to a memory, and the empty state."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from PySide6.QtWidgets import QTextBrowser

from assistant.memory.types import Category, TimelineKind, Turn
from ui.memory_panel.timeline_model import describe
from ui.memory_panel.views import TIMELINE_VIEW


def say(profile: Any, clock: Any, text: str) -> None:
    profile.memories.remember([Turn("user", text, clock.now())], clock.now())


def open_timeline(qtbot: Any, window: Any) -> Any:
    panel = window.memories
    with qtbot.waitSignal(panel.timeline.model.loaded, timeout=10000):
        panel.view_filter.setCurrentIndex(TIMELINE_VIEW)
    assert panel.pages.currentWidget() is panel.timeline
    return panel.timeline


def texts(timeline: Any) -> list[str]:
    model = timeline.model
    return [str(model.data(model.index(row, 0))) for row in range(model.rowCount())]


def moved(profile: Any, clock: Any) -> None:
    say(profile, clock, "I live in Boston.")
    clock.advance(timedelta(days=8))
    say(profile, clock, "I moved to Denver last week.")


def test_the_timeline_lists_changes_by_day_without_deleted_text(
    qtbot: Any, make_window: Any, profile: Any, clock: Any
) -> None:
    moved(profile, clock)
    clock.advance(timedelta(days=2))
    secret = profile.memories.add("I keep my spare key under the blue flowerpot")
    profile.memories.delete([secret.id])
    window = make_window()
    timeline = open_timeline(qtbot, window)
    rows = texts(timeline)
    assert rows[0] == "Today"  # the day's heading, then its entry; the move's day before
    assert "A memory was deleted" in rows[1]
    assert not any("flowerpot" in row for row in rows)
    change = next(row for row in rows if "Changed:" in row)
    assert "Boston" in change and "Denver" in change and "→" in change
    assert len([row for row in rows if row[:1].isalpha() and ":" not in row]) == 2  # two days
    timeline.select_entry(0)  # the deletion
    assert not timeline.undo_button.isEnabled() and not timeline.open_button.isEnabled()
    assert "cannot be undone" in timeline.hint.text()
    panel = window.memories
    assert not panel.search.isEnabled() and not panel._actions["delete"].isEnabled()


def test_undo_from_the_timeline_refreshes_it_and_the_table(
    qtbot: Any, make_window: Any, profile: Any, clock: Any
) -> None:
    moved(profile, clock)
    window = make_window()
    panel = window.memories
    assert any("Denver" in m.content for m in panel.model.memories())
    timeline = open_timeline(qtbot, window)
    timeline.select_entry(0)
    assert timeline.undo_button.isEnabled() and timeline.hint.text() == ""
    with qtbot.waitSignal(panel.model.loaded, timeout=10000), qtbot.waitSignal(
        timeline.model.loaded, timeout=10000
    ):
        timeline.undo_button.click()
    table = [m.content for m in panel.model.memories()]
    assert any("Boston" in t for t in table) and not any("Denver" in t for t in table)
    entries = timeline.model.entries()
    assert [e.kind for e in entries] == [TimelineKind.SUPERSEDED, TimelineKind.SUPERSEDED]
    assert "Denver" in (entries[0].before or "") and "Boston" in (entries[0].after or "")
    timeline.select_entry(1)  # the first move, undone: it says why it cannot be undone again
    assert not timeline.undo_button.isEnabled() and "changed again" in timeline.hint.text()


def test_an_entry_opens_its_memory(qtbot: Any, make_window: Any, profile: Any) -> None:
    memory = profile.memories.add("Dentist on Friday", Category.GOAL)
    profile.memories.archive([memory.id])
    window = make_window()
    timeline = open_timeline(qtbot, window)
    timeline.select_entry(0)
    assert "Archived: Dentist on Friday" in describe(timeline.selected(), str)
    timeline.open_button.click()
    panel = window.memories
    qtbot.waitUntil(
        lambda: panel.dialog is not None and panel.dialog.windowTitle() == f"Memory #{memory.id}"
    )
    assert "archived" in panel.dialog.findChild(QTextBrowser).toPlainText()
    panel.dialog.close()


def test_an_empty_timeline_says_so(qtbot: Any, make_window: Any, seed: Any) -> None:
    seed("I have a cat")  # an addition is not a change: the timeline stays empty
    window = make_window()
    timeline = open_timeline(qtbot, window)
    assert timeline.pages.currentWidget() is timeline.empty_label
    assert "Nothing has changed yet" in timeline.empty_label.text()
    panel = window.memories
    with qtbot.waitSignal(panel.model.loaded, timeout=10000):
        panel.view_filter.setCurrentIndex(0)
    assert panel.pages.currentWidget() is panel.table and panel.search.isEnabled()


def test_a_long_history_loads_a_page_at_a_time(qtbot: Any, make_window: Any, profile: Any) -> None:
    from assistant.memory.store import NewMemory
    from assistant.memory.types import Status

    now = profile.service.now()
    ids = profile.store.add_many([(NewMemory(f"note {i}", Category.FACT), now - 86400) for i in range(12000)])
    with profile.db.atomic():  # rows only (SQL): the timeline reads the audit, not the index
        for i, memory_id in enumerate(ids):
            profile.store.set_status(memory_id, Status.ARCHIVED, now - 60.0 * i)
    window = make_window()
    timeline = open_timeline(qtbot, window)
    model = timeline.model
    first = len(model.entries())
    assert first == model.page_size and model.canFetchMore()
    assert model.rowCount() < first + 15  # with the few days' headings
    with qtbot.waitSignal(model.loaded, timeout=10000):
        timeline.list.scrollToBottom()
        model.fetchMore()
    assert len(model.entries()) == 2 * first
    ats = [e.at for e in model.entries()]
    assert ats == sorted(ats, reverse=True) and ats[0] == now


def test_undo_of_an_entry_that_changed_meanwhile_says_why(
    qtbot: Any, make_window: Any, profile: Any, clock: Any
) -> None:
    moved(profile, clock)
    window = make_window()
    timeline = open_timeline(qtbot, window)
    timeline.select_entry(0)
    entry = timeline.selected()
    from assistant.memory.types import Status

    for old in entry.memory_ids[1:]:  # behind the window's back: no change event
        profile.service.set_status(old, Status.ACTIVE)
    with qtbot.waitSignal(timeline.model.loaded, timeout=10000):
        timeline.undo_button.click()
    qtbot.waitUntil(lambda: timeline.dialog is not None and timeline.dialog.isVisible())
    assert "cannot be undone any more" in timeline.dialog.text()
    timeline.dialog.close()
    [again] = [e for e in timeline.model.entries() if e.key == entry.key]
    assert again.undo_blocked == "changed"


def test_forget_me_empties_the_timeline(qtbot: Any, make_window: Any, profile: Any, clock: Any) -> None:
    moved(profile, clock)
    window = make_window()
    timeline = open_timeline(qtbot, window)
    assert timeline.model.entries()
    with qtbot.waitSignal(window.memories.forgotten, timeout=30000), qtbot.waitSignal(
        timeline.model.loaded, timeout=30000
    ):
        window.memories.forget_me()
    window.memories.dialog.close()
    assert timeline.model.entries() == [] and timeline.pages.currentWidget() is timeline.empty_label
