"""One conversation turn: recall → prompt → stream → store → extraction (see engine.py)."""

from assistant.chat.background import BackgroundRunner, IdleTimer, ManualTimer, ThreadingIdleTimer
from assistant.chat.engine import ChatEngine
from assistant.chat.types import Session, StoredMessage, TurnResult

__all__ = [
    "BackgroundRunner",
    "ChatEngine",
    "IdleTimer",
    "ManualTimer",
    "Session",
    "StoredMessage",
    "ThreadingIdleTimer",
    "TurnResult",
]
