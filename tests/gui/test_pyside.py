"""The installed PySide6 keeps Python's reference counts right (see the pin in pyproject.toml).

PySide6 6.12.0 under Python 3.11 returned None from void methods without taking a reference:
every `label.setText(…)` dropped one, and the window aborted with "Fatal Python error:
none_dealloc" once None's count ran out — after some thousands of streamed updates.
"""

from __future__ import annotations

import sys
from typing import Any

from PySide6.QtWidgets import QLabel


def test_void_methods_keep_none_alive(qtbot: Any) -> None:
    label = QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for i in range(1000):
        label.setText(str(i))
        label.setObjectName("x")
    assert sys.getrefcount(None) - before > -50
