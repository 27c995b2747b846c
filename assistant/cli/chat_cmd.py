"""`mnemo chat [--model NAME]`: a terminal chat with memory, streaming, scriptable via a pipe.

Commands inside the chat: /memories (what the last reply used), /forget TEXT, /temp (a
temporary chat that neither reads nor writes memory), /new, /quit; end of input also ends it.
When standard input is not a terminal, a confirmation reads the next line (y/n).
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable
from typing import TextIO

from assistant.app import open_profile
from assistant.chat.engine import ChatEngine
from assistant.chat.types import Session, TurnResult
from assistant.cli.common import repair_progress
from assistant.config import load_settings
from assistant.llm.ollama_backend import OllamaBackend
from assistant.memory.api import origin_text, reasons
from assistant.memory.types import Action, Memory

HELP = "Commands: /memories  /forget TEXT  /temp  /new  /quit  (end of input also quits)"
YES = {"y", "yes", "是", "好", "对"}


class TerminalChat:
    """The read–reply loop over a ChatEngine, on any text streams (tests pass StringIO)."""

    def __init__(self, engine: ChatEngine, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> None:
        self.engine = engine
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        self.interactive = bool(getattr(stdin, "isatty", lambda: False)())
        self.session: Session = engine.new_session()
        self.last_reply_id: int | None = None

    def run(self) -> int:
        if self.interactive:
            self._say(f"Mnemo chat with {self.engine.model}. {HELP}")
        while True:
            line = self._read("you› ")
            if line is None:
                break
            text = line.strip()
            if not text:
                continue
            if text.startswith("/"):
                if not self._command(text):
                    break
                continue
            self._turn(text)
        return 0

    # -- input/output -----------------------------------------------------------------

    def _read(self, prompt: str) -> str | None:
        if self.interactive:
            try:
                return input(prompt)
            except EOFError:
                return None
        line = self.stdin.readline()
        return line if line else None

    def _say(self, text: str) -> None:
        print(text, file=self.stdout, flush=True)

    def _error(self, message: str, hint: str = "") -> None:
        print(f"error: {message}", file=self.stderr, flush=True)
        if hint:
            print(f"  → {hint}", file=self.stderr, flush=True)

    def _confirm(self, question: str) -> bool:
        self._say(f"{question} [y/N]")
        answer = self._read("> ")
        return answer is not None and answer.strip().lower() in YES

    # -- commands ---------------------------------------------------------------------

    def _command(self, text: str) -> bool:
        name, _, rest = text.partition(" ")
        name = name.lower()
        if name in ("/quit", "/exit", "/q"):
            return False
        if name == "/new":
            self.session = self.engine.new_session()
            self.last_reply_id = None
            self._say("New chat.")
        elif name == "/temp":
            temporary = not self.session.temporary
            self.session = self.engine.new_session(temporary=temporary)
            self.last_reply_id = None
            self._say("Temporary chat: nothing is read from or written to memory." if temporary else "Back to a normal chat.")
        elif name == "/memories":
            self._show_used()
        elif name == "/forget":
            self._forget(rest.strip())
        elif name == "/help":
            self._say(HELP)
        else:
            self._error(f"unknown command {name}", HELP)
        return True

    def _show_used(self) -> None:
        if self.last_reply_id is None:
            self._say("No reply yet in this chat.")
            return
        used = self.engine.memories_used(self.last_reply_id)
        if not used:
            self._say("The last reply used no memories.")
        for item in used:  # each with why it was chosen and where it came from
            self._say(_memory_line(item.memory))
            for line in [*reasons(item.why), origin_text(item.origin)]:
                self._say(f"      {line}")

    def _forget(self, target: str) -> None:
        if not target:
            self._error("say what to forget", "e.g. /forget my address")
            return
        if self.session.temporary:
            self._say("This is a temporary chat; use /temp to go back, then /forget.")
            return
        matches = self.engine.memories.forget_matching(target).matches
        self._confirm_deletion(matches)

    def _confirm_deletion(self, matches: list[Memory]) -> None:
        if not matches:
            self._say("Nothing in memory matches that.")
            return
        self._say(f"These {len(matches)} memories match:")
        for memory in matches:
            self._say(_memory_line(memory))
        if self._confirm("Forget them?"):
            deleted = self.engine.confirm_forget([m.id for m in matches])
            self._say(f"Forgotten: {len(deleted)}.")
        else:
            self._say("Kept.")

    # -- a turn -----------------------------------------------------------------------

    def _turn(self, text: str) -> None:
        result = self._send(text)
        if result is None:
            return
        if result.reply:
            print(file=self.stdout, flush=True)
        if result.assistant_message_id is not None:
            self.last_reply_id = result.assistant_message_id
        if result.partial:
            self._say("[the reply was cut off; the part above is kept, marked partial]")
        if result.error is not None:
            self._error(result.error.message, result.error.hint)
        for change in result.changes:
            if change.action in (Action.ADD, Action.UPDATE):
                self._say(f"  · remembered: {change.content}")
        if result.forget_request is not None:
            self._confirm_deletion(result.forget_request.matches)

    def _send(self, text: str) -> TurnResult | None:
        """Send in a worker so Ctrl-C cancels the reply (what arrived is kept)."""
        cancel = threading.Event()
        box: dict[str, TurnResult | BaseException] = {}
        on_token: Callable[[str], None] = lambda piece: print(piece, end="", file=self.stdout, flush=True)  # noqa: E731

        def work() -> None:
            try:
                box["result"] = self.engine.send(self.session.id, text, on_token=on_token, cancel=cancel)
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread below
                box["error"] = exc

        worker = threading.Thread(target=work, name="mnemo-chat-turn")
        worker.start()
        try:
            worker.join()
        except KeyboardInterrupt:
            cancel.set()
            worker.join()
        if "error" in box:
            raise box["error"]  # type: ignore[misc]
        result = box["result"]
        assert isinstance(result, TurnResult)
        return result


def _memory_line(memory: Memory) -> str:
    return f"  #{memory.id:<5} {memory.category.value:<10} {memory.content}"


def cmd_chat(args: argparse.Namespace) -> int:
    settings = load_settings()  # MNEMO_CHAT_MODEL already applied over the file
    if args.model:
        settings.chat_model = args.model
    with OllamaBackend(settings) as backend:
        status = backend.health()
        if not status.ok:
            print(f"error: {status.message}", file=sys.stderr)
            if status.hint:
                print(f"  → {status.hint}", file=sys.stderr)
            return 2
        profile = open_profile(
            settings=settings,
            warn=lambda text: print(f"warning: {text}", file=sys.stderr),
            progress=repair_progress,
        )
        try:
            with ChatEngine(profile, backend, model=settings.chat_model) as engine:
                return TerminalChat(engine, sys.stdin, sys.stdout, sys.stderr).run()
        finally:
            profile.close()


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("chat", help="chat in the terminal, with memory")
    p.add_argument("--model", help="the Ollama chat model (default: MNEMO_CHAT_MODEL, else the settings)")
    p.set_defaults(handler=cmd_chat)
