"""What the sandbox shows in place of the host's own system identity: its host name, hosts
file, locale and package manager are OSWorld's VM's, not this machine's.

- Host name: ``osworld`` (the name the sandbox's private UTS namespace gets), also in
  ``/etc/hostname`` and ``/etc/hosts`` (Ubuntu's ``127.0.1.1`` line), which would otherwise be
  the host's files and name the host's machines.
- Locale: ``en_US.UTF-8``, the VM's, when this machine has it generated (the set-up does:
  Debian's ``locales`` package and ``locale-gen``); else ``C.UTF-8``, with a warning.
- apt: the agent may become root (`sudo.py`) and run ``apt-get``. The host's apt configuration
  (its sources, mirrors, proxies) and package lists stay out of sight: ``/etc/apt``,
  ``/var/lib/apt`` and ``/var/cache/apt`` are empty read-only folders of the sandbox's own, with
  the folders apt expects and one setting (apt's download sandbox user is root: the user apt
  would switch to has no id in the sandbox's namespace). dpkg's database is the host's,
  read-only, and its lock files are empty read-only files anyone may open (the host's are
  root's, whom the sandbox's root is not: apt would ask "are you root?"), so apt runs unlocked,
  lists what is installed, finds every installed package already there and fails cleanly on
  any other ("Unable to locate package"): nothing can be installed.
"""

from __future__ import annotations

import functools
import logging
import os
import subprocess

log = logging.getLogger(__name__)

HOSTNAME = "osworld"
HOSTS = (f"127.0.0.1\tlocalhost\n127.0.1.1\t{HOSTNAME}\n\n"
         "::1\tip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nff00::0\tip6-mcastprefix\n"
         "ff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n")
"""Ubuntu's hosts file for the host name."""
VM_LOCALE = "en_US.UTF-8"
FALLBACK_LOCALE = "C.UTF-8"
APT_CONFIG = 'APT::Sandbox::User "root";\n'
APT_CONFIG_FILE = "/etc/apt/apt.conf.d/00gui-gym-sandbox"
APT_FOLDERS = {"/etc/apt": ("sources.list.d", "apt.conf.d", "preferences.d", "trusted.gpg.d"),
               "/var/lib/apt": ("lists/partial",), "/var/cache/apt": ("archives/partial",)}
"""apt's folders -> what the sandbox's empty copy holds."""


DPKG_LOCKS = ("/var/lib/dpkg/lock", "/var/lib/dpkg/lock-frontend")


def data_files() -> dict[str, tuple[str, str, int]]:
    """Files the sandbox shows with its own text: name -> (path inside, text, mode)."""
    files = {"hostname": ("/etc/hostname", f"{HOSTNAME}\n", 0o644), "hosts": ("/etc/hosts", HOSTS, 0o644)}
    if os.path.isdir("/etc/apt"):
        files["apt"] = (APT_CONFIG_FILE, APT_CONFIG, 0o644)
    for lock in DPKG_LOCKS:
        if os.path.isfile(lock):
            files[os.path.basename(lock)] = (lock, "", 0o666)
    return files


def apt_arguments() -> list[str]:
    """bubblewrap arguments that put the empty apt folders over the host's (those it has); the
    configuration file is bound into them with the other `data_files`, before `apt_sealing`."""
    args = []
    for folder, inside in APT_FOLDERS.items():
        if os.path.isdir(folder):
            args += ["--perms", "0755", "--size", str(1 << 20), "--tmpfs", folder]
            args += [arg for sub in inside for arg in ("--perms", "0755", "--dir", f"{folder}/{sub}")]
    return args


def apt_sealing() -> list[str]:
    """bubblewrap arguments that make the apt folders read-only, once their files are in."""
    return [arg for folder in APT_FOLDERS if os.path.isdir(folder) for arg in ("--remount-ro", folder)]


@functools.cache
def desktop_locale() -> str:
    """The VM's locale when this machine has it, else `FALLBACK_LOCALE` (with a warning)."""
    try:
        listed = subprocess.run(["locale", "-a"], capture_output=True, text=True, timeout=30).stdout.split()
    except (OSError, subprocess.SubprocessError):
        listed = []
    if any(name.lower().replace("-", "") == "en_us.utf8" for name in listed):
        return VM_LOCALE
    log.warning("the locale %s (OSWorld's VM's) is not generated on this machine; the desktop uses %s "
                "(Debian: apt-get install locales, enable en_US.UTF-8 in /etc/locale.gen, run locale-gen)",
                VM_LOCALE, FALLBACK_LOCALE)
    return FALLBACK_LOCALE
