#!/usr/bin/env bash
# After PyInstaller: add the Linux install kit to dist/mnemo, and optionally pack it.
#
#   bash packaging/archive.sh [PYTHON]          # stage only: install.sh, menu entry, icons
#   bash packaging/archive.sh [PYTHON] --tar    # and dist/mnemo-<version>-linux-<arch>.tar.gz
#
# PYTHON (default .venv/bin/python) renders the icon PNGs with Qt and reads the version.
# MNEMO_APP_DIR (default dist/mnemo) is the PyInstaller folder; the archive goes beside it.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${1:-.venv/bin/python}
pack=${2:-}
app=${MNEMO_APP_DIR:-dist/mnemo}
[[ -x $app/mnemo ]] || { echo "error: $app/mnemo is missing; run \`make package\` (PyInstaller) first." >&2; exit 2; }

mkdir -p "$app/share/applications" "$app/share/icons"
cp packaging/install.sh "$app/install.sh"
chmod 755 "$app/install.sh"
cp resources/mnemo.desktop "$app/share/applications/mnemo.desktop"
cp ui/icons/mnemo.svg "$app/share/icons/mnemo.svg"
QT_QPA_PLATFORM=offscreen "$python" packaging/icons.py "$app/share/icons" 48 128 256 512 >/dev/null

[[ $pack == --tar ]] || exit 0
version=$("$python" -c 'import assistant; print(assistant.__version__)')
name="mnemo-$version-linux-$(uname -m)"
# pigz packs on every core where it is installed; gzip on one
if command -v pigz >/dev/null; then gzip=(pigz -6); else gzip=(gzip -6); fi
out=$(dirname "$app")/$name.tar.gz
folder=$(basename "$app")
tar -C "$(dirname "$app")" --transform "flags=r;s|^$folder|$name|" -cf - "$folder" | "${gzip[@]}" > "$out.part"
mv "$out.part" "$out"
ls -l "$out"
