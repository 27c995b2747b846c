"""Settings: Ollama host and model, context size, embedding model, memory, decay, language,
colours."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QTime
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QTimeEdit,
    QWidget,
)

from ui.i18n import tr

if TYPE_CHECKING:
    from assistant.config import Settings

EMBEDDING_CHOICES = ["BAAI/bge-small-zh-v1.5", "BAAI/bge-m3", "bundled:all-MiniLM-L6-v2"]
LANGUAGES = [("auto", "Automatic"), ("zh", "中文"), ("en", "English")]
"""A language is named in itself (translated: only "Automatic")."""

THEME_CHOICES = [("system", "Follow the system"), ("light", "Light"), ("dark", "Dark")]


class SettingsDialog(QDialog):
    """Edits a copy of `settings`; `result_settings()` returns the edited copy."""

    def __init__(
        self, settings: Settings, models: list[str], data_dir: Path, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.original = settings
        self.setWindowTitle(tr("Settings"))
        self.host = QLineEdit(settings.ollama_host)
        self.chat_model = QComboBox()
        self.chat_model.setEditable(True)
        self.chat_model.addItems(models)
        self.chat_model.setCurrentText(settings.chat_model)
        self.num_ctx = QSpinBox()
        self.num_ctx.setRange(512, 1_048_576)
        self.num_ctx.setSingleStep(1024)
        self.num_ctx.setValue(settings.num_ctx)
        self.embedding = QComboBox()
        self.embedding.setEditable(True)
        self.embedding.addItems(EMBEDDING_CHOICES)
        self.embedding.setCurrentText(settings.embedding_model)
        self.memory_enabled = QCheckBox(tr("Remember things from conversations"))
        self.memory_enabled.setChecked(settings.memory_enabled)
        self.accept_imports = QCheckBox(tr("Accept imported memories without review"))
        self.accept_imports.setChecked(settings.accept_imports_without_review)
        self.recall_k = QSpinBox()
        self.recall_k.setRange(0, 50)
        self.recall_k.setValue(settings.recall_k)
        self.decay = QDoubleSpinBox()
        self.decay.setRange(1, 3650)
        self.decay.setSuffix(" " + tr("days"))
        self.decay.setValue(settings.decay_half_life_days)
        self.nightly = QTimeEdit(QTime.fromString(settings.nightly_time, "HH:mm"))
        self.nightly.setDisplayFormat("HH:mm")
        self.language = QComboBox()
        for value, text in LANGUAGES:
            self.language.addItem(tr(text) if value == "auto" else text, value)
        self.language.setCurrentIndex([v for v, _ in LANGUAGES].index(settings.language))
        self.theme = QComboBox()
        for value, text in THEME_CHOICES:
            self.theme.addItem(tr(text), value)
        self.theme.setCurrentIndex(max(0, self.theme.findData(settings.theme)))
        where = QLabel(str(data_dir))
        where.setWordWrap(True)
        form = QFormLayout(self)
        form.addRow(tr("Ollama address"), self.host)
        form.addRow(tr("Chat model"), self.chat_model)
        form.addRow(tr("Context size (tokens)"), self.num_ctx)
        form.addRow(tr("Embedding model"), self.embedding)
        form.addRow("", self.memory_enabled)
        form.addRow("", self.accept_imports)
        form.addRow(tr("Memories per reply"), self.recall_k)
        form.addRow(tr("Forgetting half-life"), self.decay)
        form.addRow(tr("Nightly maintenance"), self.nightly)
        form.addRow(tr("Language"), self.language)
        form.addRow(tr("Colours"), self.theme)
        form.addRow(tr("Data directory"), where)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Save).setText(tr("Save"))
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(tr("Cancel"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.setMinimumWidth(460)

    def result_settings(self) -> Settings:
        return dataclasses.replace(
            self.original,
            ollama_host=self.host.text().strip() or self.original.ollama_host,
            chat_model=self.chat_model.currentText().strip() or self.original.chat_model,
            num_ctx=self.num_ctx.value(),
            embedding_model=self.embedding.currentText().strip() or self.original.embedding_model,
            memory_enabled=self.memory_enabled.isChecked(),
            accept_imports_without_review=self.accept_imports.isChecked(),
            recall_k=self.recall_k.value(),
            decay_half_life_days=self.decay.value(),
            nightly_time=self.nightly.time().toString("HH:mm"),
            language=self.language.currentData(),
            theme=self.theme.currentData(),
        )
