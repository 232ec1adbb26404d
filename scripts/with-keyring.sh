#!/usr/bin/env bash
# Runs a command under a private D-Bus session with a throw-away GNOME keyring, so keychain tests
# use a real Secret Service without touching the user's own keyring. HOME points at a temp folder
# (the keyring lives there); npm's own config is therefore not visible inside: run no npm here.
set -euo pipefail
for tool in dbus-run-session gnome-keyring-daemon; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "with-keyring: $tool is missing. Install it: sudo apt-get install -y dbus-daemon dbus-x11 gnome-keyring" >&2
    exit 127
  fi
done
fake_home=$(mktemp -d)
trap 'rm -rf "$fake_home"' EXIT
export FLOWDECK_REAL_HOME="${HOME:-}"
export HOME="$fake_home"
export XDG_DATA_HOME="$fake_home/.local/share"
mkdir -p "$XDG_DATA_HOME"
# shellcheck disable=SC2016
exec dbus-run-session -- sh -c 'echo -n flowdeck-test | gnome-keyring-daemon --unlock --replace --components=secrets >/dev/null 2>&1; sleep 1; exec "$@"' sh "$@"
