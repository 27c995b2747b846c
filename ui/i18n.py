"""A small translator keyed by the English text: `tr("Send")` → "发送" when Chinese is on.

The strings live in `ui/translations/zh.json` (English → Chinese), package data read through
`importlib.resources`, so an installed wheel finds them as a checkout does. `set_language`
switches at run time and emits `translator.changed`; widgets re-read their texts in
`retranslate()`. A test checks that every `tr("…")` literal under `ui/` has a translation.
"""

from __future__ import annotations

import json
import locale
import os
from functools import cache
from importlib import resources

from PySide6.QtCore import QObject, Signal

TRANSLATIONS = "ui.translations"


@cache
def _table(language: str) -> dict[str, str]:
    path = resources.files(TRANSLATIONS) / f"{language}.json"
    if not path.is_file():
        return {}
    data: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return data


def resolve(setting: str) -> str:
    """'zh' or 'en' for a setting of 'auto', 'zh' or 'en' (auto follows the system locale)."""
    if setting in {"zh", "en"}:
        return setting
    lang = os.environ.get("LANG", "") or (locale.getlocale()[0] or "")
    return "zh" if lang.lower().startswith("zh") else "en"


class Translator(QObject):
    changed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.language = "en"

    def set_language(self, setting: str) -> None:
        language = resolve(setting)
        if language != self.language:
            self.language = language
            self.changed.emit()

    def translate(self, text: str, **values: object) -> str:
        out = _table(self.language).get(text, text) if self.language != "en" else text
        return out.format(**values) if values else out


translator = Translator()


def tr(text: str, **values: object) -> str:
    """The text in the current language; `{name}` fields are filled from `values`."""
    return translator.translate(text, **values)


def tr_n(singular: str, plural: str, n: int, **values: object) -> str:
    """`tr` for a count: "1 memory", "2 memories" (Chinese has one form: the plural's entry).

    Both texts get `n` as the field `{n}`.
    """
    text = singular if n == 1 and translator.language == "en" else plural
    return translator.translate(text, n=n, **values)


def set_language(setting: str) -> None:
    translator.set_language(setting)


ERROR_TEXTS = {
    # code → (message, hint) shown in the window; `{model}`/`{host}` come from the error.
    "ollama_down": (
        "Ollama is not running or not reachable at {host}.",
        "Start Ollama (`ollama serve` or open the Ollama app), then retry.",
    ),
    "model_missing": (
        "The model {model} is not installed in Ollama.",
        "Choose one of your models or download it (Choose or download a model…), or run "
        "`ollama pull {model}` in a terminal; then retry.",
    ),
    "message_too_long": (
        "Your message is too long for the model: it is about {tokens} tokens, and at most "
        "{limit} fit in the context window of {num_ctx} tokens.",
        "Shorten it or send it in parts, or raise the context size in the settings (if the "
        "model supports it). Nothing was sent.",
    ),
    "pull_failed": (
        "Ollama could not download {model}: {detail}",
        "Check the model's name (ollama.com/library), the network connection and the free "
        "disk space, then try again.",
    ),
    "timeout": (
        "The model did not answer in time.",
        "The first reply after loading a large model can take minutes: retry, or raise the timeout in the settings.",
    ),
    "stream_cut": (
        "The reply was cut off.",
        "Retry; if it keeps happening, look at the Ollama log.",
    ),
    "cloud_refused": (
        "{model} runs on Ollama's cloud, so your messages would leave this computer.",
        "Choose a local model, or allow cloud models in the settings.",
    ),
}


def error_text(exc: BaseException) -> tuple[str, str]:
    """(message, hint) for an engine error, in the current language."""
    code = getattr(exc, "code", "")
    if code in ERROR_TEXTS:
        message, hint = ERROR_TEXTS[code]
        fields = {
            name: f"{value:,}" if isinstance(value, int) else value
            for name in ("model", "host", "tokens", "limit", "num_ctx", "detail")
            if (value := getattr(exc, name, "")) is not None
        }
        return tr(message, **fields), tr(hint, **fields)
    return getattr(exc, "message", str(exc)), getattr(exc, "hint", "")
