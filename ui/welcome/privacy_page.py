"""The welcome's last page: what Mnemo remembers, where it is kept, how to make it forget."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtWidgets import QVBoxLayout, QWizardPage

from ui.i18n import tr
from ui.welcome.common import text

POINTS = (
    (
        "What it remembers",
        "What you tell it about yourself in chats: your name, where you live, what you like, "
        "your plans and decisions. Each reply says which memories it used.",
    ),
    (
        "Where it is kept",
        "Only on this computer, in {folder}. Sensitive values are encrypted in the vault. "
        "Nothing is sent anywhere: the model runs in Ollama, here.",
    ),
    (
        "How to make it forget",
        "Change or delete any memory in the Memories tab; say “forget my address” in a chat; "
        "use a temporary chat for what should not be kept; or Memory → Forget me… to erase "
        "everything at once.",
    ),
)
"""(heading, paragraph) — English; translated when shown."""


class PrivacyPage(QWizardPage):
    def __init__(self, folder: Path) -> None:
        super().__init__()
        self._folder = folder
        self.body = text(rich=True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.body)
        layout.addStretch(1)
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(tr("What Mnemo keeps, and how it forgets"))
        self.setSubTitle(tr("You can see, change and delete everything it remembers."))
        folder = f"<code>{html.escape(str(self._folder))}</code>"
        parts = []
        for heading, paragraph in POINTS:
            shown = html.escape(tr(paragraph)).replace(html.escape("{folder}"), folder)
            parts.append(f"<p><b>{html.escape(tr(heading))}</b><br>{shown}</p>")
        self.body.setText("".join(parts))
