"""The status bar: Ollama and the model picker, the embedding model, the vault key, maintenance.

Every state says what is true ("model qwen2.5:7b not installed" is not "Ollama not available")
and one that needs the user is a button to the fix: `fix_requested` names the welcome page
that fixes it ("ollama", "embedding", "vault"). Items of low priority step aside in a narrow
window instead of being cut.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QProgressBar,
    QPushButton,
    QStatusBar,
    QWidget,
)

from ui.dates import short_datetime
from ui.i18n import tr
from ui.theme import note_style, theme

if TYPE_CHECKING:
    from assistant.llm.backend import HealthStatus
    from assistant.memory.api import MaintenanceReport

NOT_INSTALLED_ROLE = Qt.ItemDataRole.UserRole + 1

ITEM_SPACING = 12
"""Room a permanent item takes beside its own width (the layout's spacing and frame)."""
EDGE_ROOM = 40
"""The bar's margins and its size grip."""


def _flat_button() -> QPushButton:
    button = QPushButton()
    button.setFlat(True)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    return button


class StatusBar(QStatusBar):
    """Shows state handed to it; the main window wires the core's signals here."""

    model_chosen = Signal(str)
    refresh_requested = Signal()
    maintenance_requested = Signal()
    fix_requested = Signal(str)  # a welcome page: "ollama", "embedding" or "vault"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._health: HealthStatus | None = None
        self._embed = ("loading", "", "")
        self._maintenance: MaintenanceReport | float | None = None
        self._key_method = ""
        self._run_now_available = False  # a scheduler is attached
        self.ollama = _flat_button()
        self.ollama.clicked.connect(self._ollama_clicked)
        self.models = QComboBox()
        self.models.setMinimumWidth(120)
        self.models.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.models.activated.connect(self._model_activated)
        self.embedding = _flat_button()
        self.embedding.clicked.connect(lambda: self.fix_requested.emit("embedding"))
        self.embedding_progress = QProgressBar()
        self.embedding_progress.setRange(0, 0)  # busy: sentence-transformers reports no steps
        self.embedding_progress.setMaximumWidth(70)
        self.embedding_progress.setTextVisible(False)
        self.vault = _flat_button()
        self.vault.clicked.connect(lambda: self.fix_requested.emit("vault"))
        self.vault.hide()
        self.maintenance = QLabel()
        self.run_now = QPushButton()
        self.run_now.clicked.connect(self.maintenance_requested)
        self.run_now.hide()
        for widget in (
            self.ollama,
            self.models,
            self.embedding,
            self.embedding_progress,
            self.vault,
            self.maintenance,
            self.run_now,
        ):
            self.addPermanentWidget(widget)
        theme.changed.connect(self.retranslate)
        self.retranslate()

    # -- state -------------------------------------------------------------------------

    @property
    def healthy(self) -> bool:
        return self._health is not None and self._health.ok

    def set_health(self, health: HealthStatus) -> None:
        self._health = health
        self.retranslate()

    def set_models(self, names: list[str], current: str) -> None:
        """The installed models; the configured one, if it is not installed, says so."""
        self.models.clear()
        for name in names:
            self.models.addItem(name, name)
        if current not in names:
            self.models.addItem(tr("{model} (not installed)", model=current), current)
            self.models.setItemData(self.models.count() - 1, True, NOT_INSTALLED_ROLE)
        self.models.setCurrentIndex(self.models.findData(current))

    def model_names(self) -> list[str]:
        """The installed models listed in the picker."""
        return [
            str(self.models.itemData(i))
            for i in range(self.models.count())
            if not self.models.itemData(i, NOT_INSTALLED_ROLE)
        ]

    def set_embedder(self, state: str, warning: str = "", model: str = "") -> None:
        self._embed = (state, warning, model)
        self.embedding_progress.setVisible(state == "loading")
        self.retranslate()

    def set_key_method(self, method: str) -> None:
        """How the vault key is kept ("keyring", "passphrase", "keyfile")."""
        self._key_method = method
        self.retranslate()

    def set_maintenance(
        self, report: MaintenanceReport | float | None, *, available: bool = True
    ) -> None:
        self._maintenance = report
        self._run_now_available = available
        self.retranslate()

    # -- clicks ------------------------------------------------------------------------

    def _ollama_clicked(self) -> None:
        if self._health is not None and not self._health.ok:
            self.fix_requested.emit("ollama")
        else:
            self.refresh_requested.emit()

    def _model_activated(self, index: int) -> None:
        if self.models.itemData(index, NOT_INSTALLED_ROLE):
            self.fix_requested.emit("ollama")
            return
        self.model_chosen.emit(str(self.models.itemData(index)))

    # -- texts -------------------------------------------------------------------------

    def retranslate(self) -> None:
        self._ollama_text()
        self._embedding_text()
        self.vault.setText(tr("Vault: key file"))
        self.vault.setToolTip(
            tr("The vault's key is kept in a file beside your data. Click to protect it better.")
        )
        self.vault.setStyleSheet(note_style(theme.colors))
        self.vault.setVisible(self._key_method == "keyfile")
        self._maintenance_text()
        self.run_now.setText(tr("Run now"))
        self.run_now.setToolTip(tr("Run the nightly maintenance now"))
        self._fit()

    def _ollama_text(self) -> None:
        health = self._health
        note = ""
        if health is None:
            text, tip = tr("Ollama: checking…"), tr("Click to check again")
        elif health.ok:
            text = tr("Ollama: connected") + (f" ({health.version})" if health.version else "")
            tip = tr("Click to check again")
        else:
            model = self.models.currentData() or ""
            text = {
                "model_missing": tr("Ollama: {model} not installed", model=model),
                "ollama_down": tr("Ollama: not running"),
                "cloud_refused": tr("Ollama: {model} is a cloud model", model=model),
            }.get(health.code, tr("Ollama: error"))
            tip = tr("Click to fix this")
            note = note_style(theme.colors)
        self.ollama.setText(text)
        self.ollama.setToolTip(tip)
        self.ollama.setStyleSheet(note)

    def _embedding_text(self) -> None:
        state, warning, model = self._embed
        texts = {
            "loading": tr("Embeddings: loading…"),
            "ready": tr("Embeddings: ready"),
            "fallback": tr("Embeddings: small model"),
            "failed": tr("Embeddings: failed"),
        }
        self.embedding.setText(texts.get(state, state))
        if state in {"fallback", "failed"}:
            self.embedding.setToolTip(tr("Click to choose or download the embedding model"))
            self.embedding.setStyleSheet(note_style(theme.colors))
        else:
            self.embedding.setToolTip(model)
            self.embedding.setStyleSheet("")
        self.embedding.setEnabled(state != "loading")

    def _maintenance_text(self) -> None:
        report = self._maintenance
        if report is None:
            self.maintenance.setText(tr("Maintenance: not run yet"))
            self.maintenance.setToolTip("")
            return
        if isinstance(report, int | float):  # when the last run ended (read at start)
            at, steps = float(report), {}
        else:
            at, steps = report.started_at + report.duration_s, report.steps
        self.maintenance.setText(tr("Maintenance: {when}", when=short_datetime(at)))
        self.maintenance.setToolTip(
            "\n".join(
                f"{name}: " + ", ".join(f"{k} {v}" for k, v in counts.items())
                for name, counts in steps.items()
            )
        )

    # -- narrow windows ----------------------------------------------------------------

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        """Show the maintenance items only where everything fits whole (never cut)."""
        kept = [self.ollama, self.models, self.embedding, self.vault, self.embedding_progress]
        optional = [self.maintenance] + ([self.run_now] if self._run_now_available else [])
        need = sum(w.sizeHint().width() + ITEM_SPACING for w in kept if not w.isHidden())
        need += sum(w.sizeHint().width() + ITEM_SPACING for w in optional)
        fits = need + EDGE_ROOM <= self.width()
        self.maintenance.setVisible(fits)
        self.run_now.setVisible(fits and self._run_now_available)
