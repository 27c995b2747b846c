#!/usr/bin/env bash
# After PyInstaller: add the Linux install kit to dist/mnemo, and optionally pack it.
#
#   bash packaging/archive.sh [PYTHON]          # stage only: install.sh, menu entry, icons
#   bash packaging/archive.sh [PYTHON] --tar    # and dist/mnemo-<version>-linux-<arch>.tar.gz
#
# PYTHON (default .venv/bin/python) renders the icon PNGs with Qt and reads the version.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${1:-.venv/bin/python}
pack=${2:-}
app=dist/mnemo
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
# pigz packs on every core; plain gzip takes about three times as long on two
if command -v pigz >/dev/null; then gzip=(pigz -6); else gzip=(gzip -6); fi
tar -C dist --transform "flags=r;s|^mnemo|$name|" -cf - mnemo | "${gzip[@]}" > "dist/$name.tar.gz.part"
mv "dist/$name.tar.gz.part" "dist/$name.tar.gz"
ls -l "dist/$name.tar.gz"
