#!/bin/sh
# Install Mnemo from this folder for the current user (no root needed), or remove it.
#
#   ./install.sh                 # the app to ~/.local/lib/mnemo, `mnemo` to ~/.local/bin,
#                                # the menu entry and icon to ~/.local/share
#   ./install.sh --prefix DIR    # DIR/lib/mnemo, DIR/bin, DIR/share instead of ~/.local
#   ./install.sh --uninstall     # remove what an install put there (never your memories)
#
# Without installing, ./mnemo in this folder runs as it is.
set -eu

prefix="$HOME/.local"
action=install
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) [ $# -ge 2 ] || { echo "error: --prefix needs a folder" >&2; exit 2; }
                  prefix=$2; shift ;;
        --prefix=*) prefix=${1#--prefix=} ;;
        --uninstall) action=uninstall ;;
        -h|--help) sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$prefix" in /*) ;; *) prefix="$(pwd)/$prefix" ;; esac

here=$(cd "$(dirname "$0")" && pwd)
app="$prefix/lib/mnemo"
bin="$prefix/bin"
# The menu entry and icons go where the desktop looks for this user's (XDG base directories);
# with --prefix, under it.
if [ "$prefix" = "$HOME/.local" ]; then share="${XDG_DATA_HOME:-$HOME/.local/share}"; else share="$prefix/share"; fi
desktop="$share/applications/mnemo.desktop"
icons="$share/icons/hicolor"

refresh_caches() {
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$share/applications" 2>/dev/null || true
    # no gtk-update-icon-cache: a cache in the user's folder goes stale when others add icons;
    # a newer folder time makes GTK look again
    touch "$icons" 2>/dev/null || true
}

if [ "$action" = uninstall ]; then
    rm -rf "$app"
    rm -f "$desktop" "$icons/scalable/apps/mnemo.svg"
    for png in "$icons"/*/apps/mnemo.png; do [ -e "$png" ] && rm -f "$png"; done
    if [ -L "$bin/mnemo" ]; then rm -f "$bin/mnemo"; fi
    refresh_caches
    echo "Mnemo is uninstalled. Your memories and settings stay where they were;"
    echo "to erase them, run \`mnemo memory forget-me\` before uninstalling, or delete"
    echo "${XDG_DATA_HOME:-$HOME/.local/share}/mnemo and ${XDG_CONFIG_HOME:-$HOME/.config}/mnemo."
    exit 0
fi

[ -x "$here/mnemo" ] && [ -d "$here/_internal" ] || {
    echo "error: $here does not hold the Mnemo program (mnemo and _internal/)." >&2
    echo "  → Run install.sh from the unpacked mnemo archive." >&2
    exit 2
}

mkdir -p "$prefix/lib" "$bin" "$share/applications" "$icons/scalable/apps"
if [ "$here" != "$app" ]; then
    # copy beside, then swap: an interrupted install leaves the old version working
    rm -rf "$app.new"
    cp -R "$here" "$app.new"
    rm -rf "$app.old"
    if [ -e "$app" ]; then mv "$app" "$app.old"; fi
    mv "$app.new" "$app"
    rm -rf "$app.old"
fi
ln -sfn "$app/mnemo" "$bin/mnemo"

cp "$app/share/icons/mnemo.svg" "$icons/scalable/apps/mnemo.svg"
for png in "$app"/share/icons/mnemo-*.png; do
    [ -e "$png" ] || continue
    size=${png##*/mnemo-}; size=${size%.png}
    mkdir -p "$icons/${size}x${size}/apps"
    cp "$png" "$icons/${size}x${size}/apps/mnemo.png"
done
# The entry starts this copy by its full path: ~/.local/bin is not on every desktop's PATH.
sed -e "s|^Exec=mnemo|Exec=\"$app/mnemo\"|" -e "s|^TryExec=.*|TryExec=$app/mnemo|" \
    "$app/share/applications/mnemo.desktop" > "$desktop.tmp"
mv "$desktop.tmp" "$desktop"
chmod 644 "$desktop"
refresh_caches

echo "Mnemo is installed: $app"
echo "  menu entry: $desktop"
case ":$PATH:" in
    *":$bin:"*) echo "  command:    mnemo (try \`mnemo doctor\`)" ;;
    *) echo "  command:    $bin/mnemo ($bin is not on your PATH; add it to use \`mnemo\`)" ;;
esac
