"""The welcome flow: five pages in a QWizard, Skip on every one, reachable from Help → Welcome
and, one page at a time, from the status bar items that need the user.

The wizard changes nothing itself: it says what the user chose by signals, and the main
window applies it (settings, the model, re-indexing) as it does for the Settings dialog.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QWidget, QWizard

from assistant.llm.setup import find_ollama
from ui.i18n import tr, translator
from ui.icons import app_icon
from ui.welcome.embedding_page import Downloader, EmbeddingPage, download_model
from ui.welcome.language_page import LanguagePage
from ui.welcome.ollama_page import OllamaPage
from ui.welcome.privacy_page import PrivacyPage
from ui.welcome.vault_page import VaultPage

if TYPE_CHECKING:
    from ui.core import Core


class WelcomeOptions(TypedDict, total=False):
    """What a test gives the wizard instead of the real thing (`MainWindow.welcome_options`)."""

    find: Callable[[], Path | None]
    downloader: Downloader
    platform: str

PAGES = ("language", "ollama", "embedding", "vault", "privacy")


class WelcomeWizard(QWizard):
    """The first-run flow on `core` (open: it is the profile's).

    Args:
        core: the window's Core.
        start: the page to open at (one of PAGES), None for the first.
        find_ollama: where Ollama is installed (None: it is not).
        downloader: fetches an embedding model (see `EmbeddingPage`).
        platform: whose install and start instructions to give.
    """

    language_chosen = Signal(str)
    chat_model_chosen = Signal(str)
    embedding_chosen = Signal(str)
    vault_changed = Signal()
    ollama_changed = Signal()

    def __init__(
        self,
        core: Core,
        *,
        start: str | None = None,
        parent: QWidget | None = None,
        find: Callable[[], Path | None] = find_ollama,
        downloader: Downloader = download_model,
        platform: str = sys.platform,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowIcon(app_icon())
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.setPixmap(QWizard.WizardPixmap.LogoPixmap, app_icon().pixmap(48, 48))
        settings = core.settings
        self.language = LanguagePage(settings.language)
        self.ollama = OllamaPage(core, find=find, platform=platform)
        self.embedding = EmbeddingPage(core, downloader=downloader)
        self.vault = VaultPage(core)
        self.privacy = PrivacyPage(core.profile.dir)
        for index, page in enumerate(
            (self.language, self.ollama, self.embedding, self.vault, self.privacy)
        ):
            self.setPage(index, page)
        if start in PAGES:
            self.setStartId(PAGES.index(start))
        self.language.chosen.connect(self.language_chosen)
        self.ollama.model_chosen.connect(self.chat_model_chosen)
        self.ollama.checked.connect(lambda _p: self.ollama_changed.emit())
        self.embedding.model_chosen.connect(self.embedding_chosen)
        self.vault.changed.connect(self.vault_changed)
        self.finished.connect(lambda _r: self.ollama.cancel_pull())  # a pull ends with the flow
        translator.changed.connect(self.retranslate)
        self.resize(680, 520)
        self.retranslate()

    def page_name(self) -> str:
        return PAGES[self.currentId()] if self.currentId() >= 0 else ""

    def show_page(self, name: str) -> None:
        """Go to page `name` (forward, as Next would)."""
        while self.page_name() != name and self.currentId() < len(PAGES) - 1:
            self.next()

    def retranslate(self) -> None:
        self.setWindowTitle(tr("Welcome to Mnemo"))
        for which, label in (
            (QWizard.WizardButton.NextButton, tr("Next")),
            (QWizard.WizardButton.BackButton, tr("Back")),
            (QWizard.WizardButton.FinishButton, tr("Start chatting")),
            (QWizard.WizardButton.CancelButton, tr("Skip")),
        ):
            self.setButtonText(which, label)
        for page in (self.language, self.ollama, self.embedding, self.vault, self.privacy):
            page.retranslate()
