#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian machine: Debian packages when missing, a venv in .venv
# with the project and its test, train and distributed extras. Sourced by the other scripts; safe to rerun.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# The names hold on Debian 12 (bookworm) and 13 (trixie: Python 3.13, GNOME 48, LibreOffice 25+).
DEBIAN_PACKAGES=(python3-venv chromium chromium-driver fonts-dejavu-core
                 xvfb openbox wmctrl xterm lxterminal mousepad x11-utils dbus-x11 bubblewrap
                 libreoffice-calc libreoffice-writer libreoffice-impress libreoffice-gtk3 python3-pyatspi at-spi2-core
                 slirp4netns iproute2
                 # the apps of OSWorld's tasks that Debian packages (Chromium stands in for Chrome), and the
                 # programs their setup commands and evaluators run
                 gimp vlc thunderbird evince nautilus socat xsel jq git unzip zip expect sysstat
                 pulseaudio pulseaudio-utils desktop-file-utils ffmpeg tesseract-ocr tesseract-ocr-eng
                 # the desktop around them as on OSWorld's Ubuntu VM: a dock (tint2), Ubuntu's video player
                 tint2 totem
                 # OSWorld's desktop itself (shell="gnome"): GNOME Shell with Ubuntu's dock and desktop
                 # icons, GNOME Terminal, the settings daemon's keys, dconf behind gsettings
                 gnome-shell gnome-shell-extension-dashtodock gnome-shell-extension-desktop-icons-ng
                 gnome-terminal gnome-settings-daemon dconf-service dconf-gsettings-backend libglib2.0-bin)
missing=()
for pkg in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "gui-gym set-up: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=".venv/.gui-gym-installed"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ setup.py -nt "$stamp" ]; then
  echo "gui-gym set-up: installing Python packages into .venv"
  .venv/bin/python -m pip install -q --upgrade pip
  # torch before anything asks for it: the CPU build where pip can find one (a +cpu wheel in an
  # index or find-links pip is configured with), else the package index's default build, which
  # runs on a CPU too but brings NVIDIA's CUDA libraries (a few GB): on Python 3.13 that index has
  # no CPU build, and its default build does not import without those libraries.
  .venv/bin/python -m pip install -q "torch==2.13.0+cpu" 2>/dev/null || .venv/bin/python -m pip install -q "torch==2.13.0"
  .venv/bin/python -m pip install -q -e ".[dev,train,distributed,verl]"
  # verl for the PAGE/BEPA plug-ins, without its own requirements (they pin transformers < 5.11 and
  # would replace the CPU torch); the verl extra above holds what its imported modules need. Its
  # metadata says Python < 3.13; the plug-ins' tests pass with it on Debian 13's Python 3.13.
  .venv/bin/python -m pip install -q --no-deps --ignore-requires-python "verl==0.9.1"
  # verl's v1 trainer (the gui_gym trainer extends it) imports TransferQueue, whose own requirements
  # pull ray[default]'s dashboard stack; what it imports is in the verl extra.
  .venv/bin/python -m pip install -q --no-deps "TransferQueue==0.1.10"
  touch "$stamp"
fi
