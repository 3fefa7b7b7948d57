#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian machine: Debian packages when missing, a venv in .venv
# with the project and its test, train and distributed extras. Sourced by the other scripts; safe to rerun.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# The names hold on Debian 12 (bookworm) and 13 (trixie: Python 3.13, GNOME 48, LibreOffice 25+).
DEBIAN_PACKAGES=(python3-venv chromium chromium-driver fonts-dejavu-core
                 xvfb openbox wmctrl xterm mousepad x11-utils dbus-x11 bubblewrap locales
                 libreoffice-calc libreoffice-writer libreoffice-impress libreoffice-gtk3 python3-pyatspi at-spi2-core
                 slirp4netns iproute2
                 # the apps of OSWorld's tasks that Debian packages (Chromium stands in for Chrome), and the
                 # programs their setup commands and evaluators run
                 gimp vlc thunderbird evince nautilus socat xsel jq git unzip zip expect sysstat
                 pulseaudio pulseaudio-utils desktop-file-utils ffmpeg tesseract-ocr tesseract-ocr-eng
                 # the desktop around them as on OSWorld's Ubuntu VM: a dock (tint2), Ubuntu's video player,
                 # GNOME Terminal (ctrl+alt+t on every desktop)
                 tint2 totem gnome-terminal
                 # OSWorld's desktop itself, the default (shell="gnome"; openbox above is the light one): GNOME Shell with Ubuntu's dock and desktop
                 # icons, the settings daemon's keys, dconf behind gsettings
                 gnome-shell gnome-shell-extension-dashtodock gnome-shell-extension-desktop-icons-ng
                 gnome-settings-daemon dconf-service dconf-gsettings-backend libglib2.0-bin
                 # what the tests run inside the sandbox: gdb (a process the agent left tracing the evaluation's
                 # checker), curl (asking the kept Chromium's DevTools port)
                 gdb curl)
missing=()
for pkg in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  echo "gui-gym set-up: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# OSWorld's VM's locale, the desktop sandbox's (gui_gym/backends/desktop/system_files.py)
if ! locale -a 2>/dev/null | grep -qix 'en_US\.utf8'; then
  echo "gui-gym set-up: generating the en_US.UTF-8 locale"
  grep -q '^# *en_US.UTF-8 UTF-8' /etc/locale.gen && $SUDO sed -i 's/^# *en_US.UTF-8 UTF-8/en_US.UTF-8 UTF-8/' /etc/locale.gen
  grep -q '^en_US.UTF-8 UTF-8' /etc/locale.gen || echo 'en_US.UTF-8 UTF-8' | $SUDO tee -a /etc/locale.gen >/dev/null
  $SUDO locale-gen >/dev/null
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

# CUBE (cube-standard, for gui_gym.cube and GUI/CUBE-v0) needs Python >= 3.12, which .venv's Python
# may not be: its tests run in .venv-cube (tests/gui_gym/test_cube_venv.py), made with the first
# Python >= 3.12 found (python3.12 or python3.13 on the PATH, then pyenv's); with none, they skip.
cube_python=""
for candidate in python3.12 python3.13 "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python; do
  if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then
    cube_python="$candidate"; break
  fi
done
if [ -n "$cube_python" ]; then
  [ -x .venv-cube/bin/python ] || "$cube_python" -m venv .venv-cube
  cube_stamp=".venv-cube/.gui-gym-installed"
  if [ ! -f "$cube_stamp" ] || [ pyproject.toml -nt "$cube_stamp" ] || [ setup.py -nt "$cube_stamp" ]; then
    echo "gui-gym set-up: installing the CUBE test venv (.venv-cube, $("$cube_python" --version))"
    # the families the tests export (miniwob, desktop, android), and arithmetic-cube, a CUBE benchmark from the index
    .venv-cube/bin/python -m pip install -q -e ".[cube,miniwob,desktop,android]" "arithmetic-cube==0.1.0" \
      "pytest>=8" "pytest-timeout>=2.2"
    touch "$cube_stamp"
  fi
fi
