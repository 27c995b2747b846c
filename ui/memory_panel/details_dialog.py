"""A memory's provenance (the message it came from) and history (events, what it replaced)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTextBrowser, QVBoxLayout, QWidget

from assistant.memory.api import Details
from ui.dates import long_datetime
from ui.display import friendly
from ui.i18n import tr
from ui.memory_panel.model import label

if TYPE_CHECKING:
    from ui.display import VaultEntry

EVENTS = (
    "added",
    "updated",
    "superseded",
    "merged",
    "archived",
    "restored",
    "pinned",
    "unpinned",
    "deleted",
    "expired",
    "purged",
    "imported",
)
"""The history events the store records (`memory_events.event`), shown translated."""


class MemoryDetailsDialog(QDialog):
    """Shows what `Memories.details` read; `vault` words the vault references (see ui.display)."""

    def __init__(
        self,
        details: Details,
        parent: QWidget | None = None,
        *,
        vault: Mapping[int, VaultEntry] | None = None,
    ) -> None:
        super().__init__(parent)
        memory = details.memory

        def shown(text: str) -> str:
            return _esc(friendly(text, vault))

        self.setWindowTitle(tr("Memory #{id}", id=memory.id))
        layout = QVBoxLayout(self)
        head = QLabel(
            f"<b>{shown(memory.content)}</b><br>{label(memory.category.value)} · {label(memory.status.value)} · "
            + tr("importance {n}", n=memory.importance)
        )
        head.setWordWrap(True)
        layout.addWidget(head)
        body = QTextBrowser()
        parts = [f"<h4>{tr('Where it came from')}</h4>"]
        source = details.source
        if source is not None:
            stamp = long_datetime(source.created_at)
            parts.append(f"<p><i>{stamp}</i><br>{shown(source.content)}</p>")
        elif memory.source_message_id:
            parts.append(f"<p>{tr('The conversation it came from has been deleted.')}</p>")
        elif imported := next((str((e.get("detail") or {}).get("origin", "")) for e in details.history
                               if e["event"] == "imported"), ""):
            parts.append(f"<p>{tr('Brought over from another assistant: {origin}.', origin=_esc(imported))}</p>")
        elif origin := next((str((e.get("detail") or {}).get("origin", "")) for e in details.history[:1]), ""):
            parts.append(f"<p>{tr('Written by a connected app ({origin}).', origin=_esc(origin))}</p>")
        else:
            parts.append(f"<p>{tr('Added by hand or imported.')}</p>")
        parts.append(f"<h4>{tr('History')}</h4><ul>")
        for event in details.history:
            before = (event.get("detail") or {}).get("before")
            extra = f" — {tr('was')}: {shown(before)}" if before else ""
            parts.append(
                f"<li>{long_datetime(event['at'])} {tr(event['event']) if event['event'] in EVENTS else _esc(event['event'])}{extra}</li>"
            )
        parts.append("</ul>")
        if details.replaced:
            parts.append(f"<h4>{tr('Replaced')}</h4><ul>")
            for old in details.replaced:
                parts.append(f"<li>{shown(old.content)} ({label(old.status.value)})</li>")
            parts.append("</ul>")
        body.setHtml("".join(parts))
        layout.addWidget(body)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.button(QDialogButtonBox.StandardButton.Close).setText(tr("Close"))
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(520, 420)


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
