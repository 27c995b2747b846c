#!/usr/bin/env bash
# Screenshots of the real Mnemo window under Xvfb, against the fake Ollama server.
#
#   bash packaging/screenshots.sh            # writes docs/screenshots/*.png
#
# Installs (as root, from Debian's packages) what a bare machine lacks: Xvfb, CJK fonts,
# ImageMagick and the X libraries Qt's xcb platform plugin needs.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(xvfb xauth fonts-noto-cjk imagemagick libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-image0
          libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libegl1)
missing=()
for pkg in "${PACKAGES[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "error: missing packages: ${missing[*]}" >&2
        echo "  → run as root, or: sudo apt-get install -y ${missing[*]}" >&2
        exit 2
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ -n "${PYTHON:-}" ]]; then :
elif [[ -x .venv/bin/python ]]; then PYTHON=.venv/bin/python
else PYTHON=python3; fi

export HF_HUB_OFFLINE=1 ANONYMIZED_TELEMETRY=False TOKENIZERS_PARALLELISM=false
export QT_QPA_PLATFORM=xcb
unset WAYLAND_DISPLAY
mkdir -p docs/screenshots
xvfb-run -a -s "-screen 0 1280x860x24" "$PYTHON" packaging/screenshot_driver.py docs/screenshots
ls -l docs/screenshots/*.png
