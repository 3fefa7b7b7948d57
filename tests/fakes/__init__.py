"""Test doubles for what cannot run on a test machine, each speaking the real protocol on
loopback so that gui-gym's real client code runs against it (for Android: `adb_server`, the
adb wire protocol, over `virtual_device`, a scripted phone)."""
