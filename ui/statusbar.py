"""The status bar: Ollama connection and model picker, embedding model state, maintenance."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QLabel, QProgressBar, QPushButton, QStatusBar, QWidget

from ui.i18n import tr


class StatusBar(QStatusBar):
    """Shows state handed to it; the main window wires the core's signals here."""

    model_chosen = Signal(str)
    refresh_requested = Signal()
    maintenance_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._health: Any = None
        self._embed = ("loading", "", "")
        self._maintenance: Any = None
        self.ollama = QPushButton()
        self.ollama.setFlat(True)
        self.ollama.clicked.connect(self.refresh_requested)
        self.models = QComboBox()
        self.models.setMinimumWidth(140)
        self.models.activated.connect(lambda i: self.model_chosen.emit(self.models.itemText(i)))
        self.embedding = QLabel()
        self.embedding_progress = QProgressBar()
        self.embedding_progress.setRange(0, 0)  # busy: sentence-transformers reports no steps
        self.embedding_progress.setMaximumWidth(90)
        self.embedding_progress.setTextVisible(False)
        self.maintenance = QLabel()
        self.run_now = QPushButton()
        self.run_now.clicked.connect(self.maintenance_requested)
        self.run_now.hide()
        for widget in (
            self.ollama,
            self.models,
            self.embedding,
            self.embedding_progress,
            self.maintenance,
            self.run_now,
        ):
            self.addPermanentWidget(widget)
        self.retranslate()

    def set_health(self, health: Any) -> None:
        self._health = health
        self.retranslate()

    def set_models(self, names: list[str], current: str) -> None:
        self.models.clear()
        self.models.addItems(names)
        if current not in names:
            self.models.addItem(current)
        self.models.setCurrentText(current)

    def set_embedder(self, state: str, warning: str = "", model: str = "") -> None:
        self._embed = (state, warning, model)
        self.embedding_progress.setVisible(state == "loading")
        self.retranslate()

    def set_maintenance(self, report: Any, *, available: bool = True) -> None:
        self._maintenance = report
        self.run_now.setVisible(available)
        self.retranslate()

    def retranslate(self) -> None:
        health = self._health
        if health is None:
            self.ollama.setText(tr("Ollama: checking…"))
        elif health.ok:
            self.ollama.setText(
                tr("Ollama: connected") + (f" ({health.version})" if health.version else "")
            )
        else:
            self.ollama.setText(tr("Ollama: not available"))
        self.ollama.setToolTip(
            (health.message + "\n" + health.hint)
            if health is not None and not health.ok
            else tr("Click to check again")
        )
        state, warning, model = self._embed
        texts = {
            "loading": tr("Embeddings: loading…"),
            "ready": tr("Embeddings: ready"),
            "fallback": tr("Embeddings: fallback model"),
            "failed": tr("Embeddings: failed"),
        }
        self.embedding.setText(texts.get(state, state))
        self.embedding.setToolTip(warning or model)
        self.embedding.setStyleSheet("color:#b45309;" if state in {"fallback", "failed"} else "")
        report = self._maintenance
        if report is None:
            self.maintenance.setText(tr("Maintenance: not run yet"))
        else:
            at = (
                report
                if isinstance(report, int | float)
                else (getattr(report, "started_at", 0.0) + getattr(report, "duration_s", 0.0))
            )
            stamp = (
                at.strftime("%m-%d %H:%M")
                if isinstance(at, datetime)
                else (
                    datetime.fromtimestamp(at).strftime("%m-%d %H:%M")
                    if isinstance(at, int | float)
                    else tr("just now")
                )
            )
            self.maintenance.setText(tr("Maintenance: {when}", when=stamp))
            steps = getattr(report, "steps", {}) or {}
            self.maintenance.setToolTip(
                "\n".join(
                    f"{name}: " + ", ".join(f"{k} {v}" for k, v in counts.items())
                    for name, counts in steps.items()
                )
            )
        self.run_now.setText(tr("Run now"))
