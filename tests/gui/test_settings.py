"""Settings applied to the running window and kept; the model picker; the embedding-model switch."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QTime
from PySide6.QtWidgets import QProgressBar

from assistant.config import load_settings
from assistant.memory.embedder import bundled_model_path
from tests.fakes.fake_ollama import FakeOllama
from tests.gui.test_chat import send
from ui.settings_dialog import SettingsDialog

OTHER_MODEL = "llama3.2:3b"


@pytest.fixture
def two_models(fake_ollama: FakeOllama) -> FakeOllama:
    fake_ollama.models = ["qwen2.5:7b", OTHER_MODEL]
    return fake_ollama


def test_model_picker_lists_installed_models_and_switches(
    qtbot: Any, two_models: FakeOllama, make_window: Any
) -> None:
    window = make_window()
    picker = window.status.models
    qtbot.waitUntil(lambda: picker.count() == 2, timeout=10000)
    assert [picker.itemText(i) for i in range(picker.count())] == ["qwen2.5:7b", OTHER_MODEL]
    assert picker.currentText() == "qwen2.5:7b"
    with qtbot.waitSignal(window.core.engine_replaced, timeout=10000):
        picker.setCurrentIndex(1)
        picker.activated.emit(1)  # what choosing an entry with the mouse sends
    send(qtbot, window, "hello")
    assert two_models.last_chat["model"] == OTHER_MODEL
    qtbot.waitUntil(lambda: not window.core.runner.busy, timeout=10000)
    assert load_settings().chat_model == OTHER_MODEL


def test_every_settings_field_is_applied_and_kept(
    qtbot: Any, two_models: FakeOllama, make_window: Any
) -> None:
    window = make_window()
    qtbot.waitUntil(lambda: window.status.models.count() == 2, timeout=10000)
    window.open_settings()
    dialog = window.dialog
    assert isinstance(dialog, SettingsDialog) and dialog.isVisible()
    assert [dialog.chat_model.itemText(i) for i in range(dialog.chat_model.count())] == [
        "qwen2.5:7b",
        OTHER_MODEL,
    ]
    dialog.host.setText(two_models.host.replace("127.0.0.1", "localhost"))
    dialog.chat_model.setCurrentText(OTHER_MODEL)
    dialog.num_ctx.setValue(4096)
    dialog.memory_enabled.setChecked(False)
    dialog.recall_k.setValue(2)
    dialog.decay.setValue(45)
    dialog.nightly.setTime(QTime(2, 30))
    with qtbot.waitSignal(window.core.engine_replaced, timeout=10000):
        dialog.accept()
    qtbot.waitUntil(lambda: not window.core.runner.busy, timeout=10000)
    saved = load_settings()
    assert (saved.ollama_host, saved.chat_model, saved.num_ctx) == (
        two_models.host.replace("127.0.0.1", "localhost"),
        OTHER_MODEL,
        4096,
    )
    assert (
        saved.memory_enabled,
        saved.recall_k,
        saved.decay_half_life_days,
        saved.nightly_time,
    ) == (False, 2, 45.0, "02:30")
    assert window.core.profile.recaller.options.k == 2
    # the engine uses them: the new host, model and context size; memory off stores nothing
    before = window.core.profile.store.total()
    result = send(qtbot, window, "Remember that my favourite colour is green.")
    assert result.error is None and result.changes == []
    assert (two_models.last_chat["model"], two_models.last_chat["options"]["num_ctx"]) == (
        OTHER_MODEL,
        4096,
    )
    assert window.core.profile.store.total() == before
    # opened again, the dialog shows what was saved
    window.open_settings()
    again = window.dialog
    assert (
        again.chat_model.currentText(),
        again.num_ctx.value(),
        again.memory_enabled.isChecked(),
    ) == (OTHER_MODEL, 4096, False)
    assert (
        again.recall_k.value(),
        again.decay.value(),
        again.nightly.time().toString("HH:mm"),
    ) == (2, 45.0, "02:30")
    again.reject()


def test_switching_the_embedding_model_reindexes_with_progress(
    qtbot: Any, make_window: Any, seed: Any, profile: Any
) -> None:
    """The bundled model from its folder (a local folder is a valid model setting) is another
    model to the index: its own collection, filled from SQLite, the old one dropped."""
    berlin = seed("I live in Berlin", slot="user.city")
    for i in range(11):
        seed(f"Project note {i}: the launch checklist is in the blue folder")
    folder = str(bundled_model_path())
    old_collection = profile.service.index.name
    window = make_window()
    window.open_settings()
    dialog = window.dialog
    assert dialog.embedding.currentText() != folder
    dialog.embedding.setCurrentText(folder)
    dialog.accept()
    assert window.status.embedding.text() == "Embeddings: loading…"
    assert window.progress is not None  # shown if it takes more than a moment
    shown: list[tuple[int, int]] = []
    bar = window.progress.findChild(QProgressBar)
    bar.valueChanged.connect(
        lambda value: shown.append((value, bar.maximum()))
    )  # reports arrive queued
    qtbot.waitUntil(lambda: window.status.embedding.text() == "Embeddings: ready", timeout=60000)
    assert window.status.embedding.toolTip() == folder
    assert shown and shown[-1] == (12, 12)  # all 12 memories re-embedded
    service = profile.service
    assert profile.embedder is service.embedder and service.embedder.model_name == folder
    # the index is of what the vectors mean: the model, read Chinese through the gloss
    assert service.index.model_name == service.embedder.vector_space == f"{folder}+zh-gloss"
    assert service.index.name != old_collection
    assert service.index.ids(service.profile_id) == service.store.active_ids()
    assert service.index.other_collections() == []  # the old model's vectors are gone
    qtbot.waitUntil(lambda: not window.core.runner.busy, timeout=10000)
    assert load_settings(env=False).embedding_model == folder
    result = send(qtbot, window, "Where do I live now?")  # recall runs on the new model's vectors
    assert berlin.id in [m.id for m in result.injected]
