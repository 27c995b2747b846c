"""What stored text looks like to the user: no internal tags, no raw kind ids.

A masked text keeps each sensitive value as a stub and a reference to the vault item that
holds it: "card **** **** **** 4521 [vault #3]". Shown, that reads
"card ••••4521 (bank card, in the vault)" / "card ••••4521（银行卡号，已加密保存）". The stored
text is not changed; an editor that shows the friendly text puts the references back with
`restore_tags` before saving.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from assistant.memory.api import KIND_LABELS
from ui.i18n import tr, translator

_REF = re.compile(r"(?:(?P<stub>\S*\*[* ]*\S*) )?\[vault #(?P<id>\d+)\]")
"""A vault reference and the masked stub before it (a stub holds at least one '*')."""

_STARS = re.compile(r"\*(?:[* ]*\*)? ?")


@dataclass(frozen=True)
class VaultEntry:
    kind: str
    masked: str


def kind_label(kind: str) -> str:
    """ "bank card" / "银行卡号" for "bank_card"; an unknown kind is shown as words."""
    english, chinese = KIND_LABELS.get(kind, (kind.replace("_", " "), kind.replace("_", " ")))
    return chinese if translator.language == "zh" else english


def dots(masked: str) -> str:
    """ "••••4521" for "**** **** **** 4521", "138••••5678" for "138****5678"."""
    return _STARS.sub("••••", masked).strip()


def friendly(text: str, vault: Mapping[int, VaultEntry] | None = None) -> str:
    """`text` with every vault reference written for people (see the module docstring)."""
    if "[vault #" not in text:
        return text
    return _REF.sub(lambda m: _shown(m, vault or {}), text)


def friendly_parts(
    text: str, vault: Mapping[int, VaultEntry] | None = None
) -> list[tuple[str, str]]:
    """(shown, stored) for every reference in `text`, to put them back after an edit."""
    return [(_shown(m, vault or {}), m.group(0)) for m in _REF.finditer(text)]


def restore_tags(edited: str, parts: Iterable[tuple[str, str]]) -> str:
    """The edited friendly text with each reference that is still there stored again."""
    for shown, stored in parts:
        edited = edited.replace(shown, stored)
    return edited


def _shown(match: re.Match[str], vault: Mapping[int, VaultEntry]) -> str:
    entry = vault.get(int(match.group("id")))
    stub = dots(match.group("stub") or (entry.masked if entry else ""))
    if entry is not None:
        where = tr("{kind}, in the vault", kind=kind_label(entry.kind))
    else:
        where = tr("in the vault")
    if translator.language == "zh":
        return f"{stub}（{where}）" if stub else f"（{where}）"
    return f"{stub} ({where})" if stub else f"({where})"
