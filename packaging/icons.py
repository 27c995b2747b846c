"""Render the app icon (ui/icons/mnemo.svg) to PNG files, with Qt's own SVG renderer.

    python packaging/icons.py OUT_DIR [SIZE …]     # writes OUT_DIR/mnemo-<size>.png

The Linux archive installs the PNGs beside the SVG (launchers that cannot draw SVG); on
Windows and macOS, PyInstaller turns the largest into the .ico / .icns the executable needs
(with Pillow, which the `package` extra installs there). No hand-made icon files to keep in step.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SVG = Path(__file__).resolve().parent.parent / "ui" / "icons" / "mnemo.svg"
SIZES = (48, 128, 256, 512)


def render(svg: Path, out_dir: Path, sizes: tuple[int, ...] = SIZES) -> list[Path]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"error: {svg} is not an SVG image Qt can draw.")
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        path = out_dir / f"mnemo-{size}.png"
        if not image.save(str(path)):
            raise SystemExit(f"error: could not write {path}.")
        written.append(path)
    return written


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    chosen = tuple(int(s) for s in sys.argv[2:]) or SIZES
    for written_path in render(SVG, Path(sys.argv[1]), chosen):
        print(written_path)
