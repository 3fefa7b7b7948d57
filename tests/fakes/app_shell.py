"""Shell commands of the virtual device for apps and their data: am, monkey, pm, content,
dumpsys, date, service, find, cp, sqlite3 and the permission no-ops.

Each answers as the Android 13 command does for the arguments gui-gym sends (`am broadcast`
prints ``Broadcast completed: result=...``, `date` prints toybox's format, `sqlite3` prints
rows as ``a|b``), and refuses anything else, so a caller sending what a device would not
understand fails a test.
"""

from __future__ import annotations

import datetime
import re
import shutil
import sqlite3
from pathlib import Path

from .device_shell import Command, ShellError, device_path, split_flags
from .more_apps import SMS_PACKAGE
from .virtual_device import LAUNCHER, OTHER_PACKAGES, VirtualDevice

CONTACT_URIS = ("content://com.android.contacts/data/phones", "content://contacts/phones/",
                "content://contacts/phones")
RAW_CONTACTS_URI = "content://com.android.contacts/raw_contacts"
CLIPPER = "ca.zgrs.clipper"


def _intent(args: list[str]) -> dict:
    """Parse ``am start|broadcast`` intent options."""
    intent: dict = {"extras": {}}
    i = 0
    while i < len(args):
        option = args[i]
        if option in ("-a", "-d", "-t", "-n", "-c") and i + 1 < len(args):
            intent[option] = args[i + 1]
            i += 2
        elif option in ("-e", "--es", "--ez", "--ei", "--el") and i + 2 < len(args):
            intent["extras"][args[i + 1]] = args[i + 2]
            i += 3
        else:
            raise ShellError(1, f"am: unknown option {option!r}")
    return intent


def _broadcast(device: VirtualDevice, intent: dict) -> str:
    action = intent.get("-a", "")
    head = f"Broadcasting: Intent {{ act={action} flg=0x400000 }}\n"
    if action in ("clipper.set", "clipper.get"):
        if device.foreground != CLIPPER:  # Clipper answers only in the foreground
            return head + "Broadcast completed: result=0\n"
        if action == "clipper.set":
            device.clipboard = intent["extras"].get("text", "")
            return head + 'Broadcast completed: result=-1, data="Text is copied into clipboard."\n'
        return head + f'Broadcast completed: result=-1, data="{device.clipboard}"\n'
    device.events.append(("broadcast", action, intent.get("-d")))
    return head + "Broadcast completed: result=0\n"


def _am(device: VirtualDevice, args: list[str]) -> str:
    if args[:1] == ["force-stop"] and len(args) == 2:
        device.force_stop(args[1])
        return ""
    if args[:2] == ["stack", "remove"] and len(args) == 3:
        device.recents = [t for t in device.recents if str(t) != args[2]]
        return ""
    if args[:1] == ["broadcast"]:
        return _broadcast(device, _intent(args[1:]))
    if args[:1] != ["start"]:
        raise ShellError(1, f"am: unsupported {' '.join(args)!r}")
    intent = _intent(args[1:])
    action, data = intent.get("-a"), intent.get("-d")
    if action == "android.intent.action.INSERT" and intent.get("-t") == "vnd.android.cursor.dir/contact":
        contacts = device.apps["com.google.android.contacts"]
        device.launch(contacts.package)
        contacts.prefill(intent["extras"].get("name", ""), intent["extras"].get("phone", ""))
        return "Starting: Intent { act=android.intent.action.INSERT typ=vnd.android.cursor.dir/contact (has extras) }\n"
    if action == "android.intent.action.SENDTO" and data and data.startswith("sms:"):
        device.launch(SMS_PACKAGE)
        device.apps[SMS_PACKAGE].open_compose(data[len("sms:"):], intent["extras"].get("sms_body", ""))
        return f"Starting: Intent {{ act=android.intent.action.SENDTO dat={data} (has extras) }}\n"
    if "-n" in intent:
        component = intent["-n"]
        if device.launch(component.split("/")[0]):
            return f"Starting: Intent {{ cmp={component} }}\n"
        raise ShellError(1, f"Error: Activity class {{{component}}} does not exist.")
    if data:
        device.events.append(("view", data))
        return f"Starting: Intent {{ act={action} dat={data} }}\n"
    raise ShellError(1, f"am: unsupported {' '.join(args)!r}")


def _monkey(device: VirtualDevice, args: list[str]) -> str:
    if "-p" not in args[:-1]:
        raise ShellError(1, "monkey: expected -p <package>")
    if not device.launch(args[args.index("-p") + 1]):
        raise ShellError(252, "** No activities found to run, monkey aborted.")
    return "Events injected: 1\n## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)\n"


def _pm(device: VirtualDevice, args: list[str]) -> str:
    if args[:2] == ["list", "packages"]:
        packages = {p for p in device.apps if device.is_installed(p)}
        return "".join(f"package:{p}\n" for p in sorted({LAUNCHER, *packages, *OTHER_PACKAGES}))
    if args[:1] == ["install"]:
        _, paths = split_flags(args[1:])
        if len(paths) != 1 or not device_path(device, paths[0]).is_file():
            raise ShellError(1, f"Error: APK file {paths[-1] if paths else ''} not found")
        text = device_path(device, paths[0]).read_bytes()[:200].decode(errors="replace")
        match = re.search(r"package=([\w.]+)", text)
        if match is None or match.group(1) not in device.apps:
            raise ShellError(1, "Failure [INSTALL_FAILED_INVALID_APK: the fake installs only its APK stand-ins]")
        if device.installed is not None:
            device.installed.add(match.group(1))
        return "Success\n"
    if args[:1] == ["clear"] and len(args) == 2:
        if args[1] == "com.android.providers.contacts":
            device.contacts.clear()
        elif args[1] in device.apps:
            device.force_stop(args[1])
            device.apps[args[1]].clear_data()
        else:
            raise ShellError(1, f"Error: package {args[1]} not found")
        return "Success\n"
    if args[:1] == ["grant"] and len(args) == 3:
        if not device.is_installed(args[1]):
            raise ShellError(255, f"Exception occurred while executing 'grant': Unknown package: {args[1]}")
        device.granted.add((args[1], args[2]))
        return ""
    if args[:1] == ["path"] and len(args) == 2:
        if device.is_installed(args[1]) or args[1] == "android":
            return f"package:/data/app/{args[1]}/base.apk\n"
        raise ShellError(1, "")
    raise ShellError(1, f"pm: unsupported {' '.join(args)!r}")


def _rows(rows: list[dict], columns: list[str]) -> str:
    return "".join(f"Row: {n} " + ", ".join(f"{c}={row.get(c)}" for c in columns) + "\n"
                   for n, row in enumerate(rows)) or "No result found.\n"


def _content(device: VirtualDevice, args: list[str]) -> str:
    options = dict(zip(args[1::2], args[2::2]))
    uri = options.get("--uri")
    projection = options["--projection"].split(":") if "--projection" in options else None
    if args[:1] == ["query"] and uri in CONTACT_URIS:
        rows = [{"_id": str(n + 1), "display_name": name, "number": number}
                for n, (name, number) in enumerate(device.contacts)]
        columns = projection or ["_id", "display_name", "number"]
        if not set(columns) <= {"_id", "display_name", "number"}:
            raise ShellError(1, f"Error while accessing provider:contacts: no such column in {columns}")
        return _rows(rows, columns)
    if args[:1] == ["query"] and uri in ("content://sms/sent", "content://sms/inbox", "content://sms"):
        kind = {"content://sms/sent": 2, "content://sms/inbox": 1}.get(uri)
        rows = device.sms_messages(kind)
        return _rows(rows, projection or list(rows[0]) if rows else [])
    if args[:1] == ["delete"] and uri == RAW_CONTACTS_URI:
        device.contacts.clear()
        return ""
    if args[:1] == ["delete"] and uri in ("content://media/external/downloads", "content://call_log/calls"):
        return ""
    raise ShellError(1, f"content: unsupported {' '.join(args)!r}")


def _dumpsys(device: VirtualDevice, args: list[str]) -> str:
    if args[:1] == ["window"]:
        component = f"{device.foreground}/{device.activity}"
        return (f"WINDOW MANAGER WINDOWS (dumpsys window windows)\n  Window #0 Window{{5c1e2a7 u0 {component}}}:\n"
                f"    mDisplayId=0 rootTaskId=1 mSession=Session{{1f0 1234:u0a10123}}\n"
                f"  mCurrentFocus=Window{{5c1e2a7 u0 {component}}}\n"
                f"  mFocusedApp=ActivityRecord{{9e83b01 u0 {component} t12}}\n")
    if args[:2] == ["activity", "recents"]:
        return "ACTIVITY MANAGER RECENT TASKS (dumpsys activity recents)\n" + "".join(
            f"  * Recent #{n}: Task{{a1b2 #{t} type=standard}}\n    id={t} userId=0\n"
            for n, t in enumerate(reversed(device.recents)))
    if args[:1] == ["telephony.registry"]:
        return "last known state:\n  mCallState=0\n"
    return f"Can't find service: {args[0] if args else ''}\n"


def _date(device: VirtualDevice, args: list[str]) -> str:
    if args == ["+%s"]:
        return f"{int(device.now())}\n"
    if not args:
        when = datetime.datetime.fromtimestamp(device.now(), datetime.timezone.utc)
        return when.strftime("%a %b %d %H:%M:%S UTC %Y") + "\n"
    match = re.fullmatch(r"(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)?(\d\d)?(?:\.(\d\d))?", args[0]) if len(args) == 1 else None
    if match is None:
        raise ShellError(1, f"date: bad date {' '.join(args)!r}")
    if not device.root:
        raise ShellError(1, "date: cannot set date: Operation not permitted")
    month, day, hour, minute, first, second, seconds = match.groups()
    year = int((first or "") + (second or "")) if first else datetime.datetime.now().year
    year = 2000 + year if year < 100 else year
    when = datetime.datetime(year, int(month), int(day), int(hour), int(minute), int(seconds or 0),
                             tzinfo=datetime.timezone.utc)
    device.set_clock(when.timestamp())
    return when.strftime("%a %b %d %H:%M:%S UTC %Y") + "\n"


def _service(device: VirtualDevice, args: list[str]) -> str:
    if args[:3] == ["call", "alarm", "3"] and len(args) == 5 and args[3] == "s16":
        device.timezone = args[4]
        return "Result: Parcel(00000000    '....')\n"
    raise ShellError(1, f"service: unsupported {' '.join(args)!r}")


def _find(device: VirtualDevice, args: list[str]) -> str:
    if not args:
        raise ShellError(1, "find: missing path")
    root, rest = args[0], args[1:]
    mindepth, types, delete = 0, set(), False
    i = 0
    while i < len(rest):
        if rest[i] == "-mindepth":
            mindepth, i = int(rest[i + 1]), i + 2
        elif rest[i] == "-type":
            types.add(rest[i + 1])
            i += 2
        elif rest[i] == "-o":
            i += 1
        elif rest[i] == "-delete":
            delete, i = True, i + 1
        else:
            raise ShellError(1, f"find: unknown argument {rest[i]!r}")
    base = device_path(device, root)
    if not base.is_dir():
        raise ShellError(1, f"find: {root}: No such file or directory")
    found = [(base, 0)] + [(p, len(p.relative_to(base).parts)) for p in sorted(base.rglob("*"))]
    out = []
    for path, depth in found:
        if depth < mindepth or (types and ("f" if path.is_file() else "d") not in types):
            continue
        shown = (root.rstrip("/") + "/" + str(path.relative_to(base))) if depth else root.rstrip("/")
        if delete and path.is_file():
            path.unlink()
        elif not delete:
            out.append(shown)
    return "".join(f"{line}\n" for line in out)


def _cp(device: VirtualDevice, args: list[str]) -> str:
    options, paths = split_flags(args)
    if len(paths) != 2:
        raise ShellError(1, f"cp: unsupported {' '.join(args)!r}")
    source, target = paths
    if source.endswith("/.") and "a" in options:  # the contents of a folder
        src, dst = device_path(device, source[:-2]), device_path(device, target)
        if not src.is_dir():
            raise ShellError(1, f"cp: {source}: No such file or directory")
        shutil.copytree(src, dst, dirs_exist_ok=True)
        return ""
    src, dst = device_path(device, source), device_path(device, target)
    if not src.is_file():
        raise ShellError(1, f"cp: {source}: No such file or directory")
    shutil.copy2(src, dst / src.name if dst.is_dir() else dst)
    return ""


def _exists_each(command: str):
    """A command that only needs its path arguments to exist (chmod, restorecon, chcon)."""
    def run(device: VirtualDevice, args: list[str]) -> str:
        for arg in args:
            if arg.startswith("/") and not device_path(device, arg).exists():
                raise ShellError(1, f"{command}: {arg}: No such file or directory")
        return ""
    return run


def _sqlite3(device: VirtualDevice, args: list[str]) -> str:
    if len(args) != 2:
        raise ShellError(1, f"sqlite3: expected a database and one SQL text, received {args}")
    path: Path = device_path(device, args[0])
    if not path.parent.is_dir():
        raise ShellError(1, f'Error: unable to open database "{args[0]}": unable to open database file')
    connection = sqlite3.connect(path)
    try:
        connection.execute("PRAGMA synchronous=OFF")
        rows = []
        for statement in filter(None, (s.strip() for s in args[1].split(";"))):
            rows = connection.execute(statement).fetchall()
        connection.commit()
        return "".join("|".join("" if v is None else str(v) for v in row) + "\n" for row in rows)
    except sqlite3.Error as exc:
        raise ShellError(1, f"Error: {exc}") from None
    finally:
        connection.close()


APP_COMMANDS: dict[str, Command] = {
    "am": _am, "monkey": _monkey, "pm": _pm, "content": _content, "dumpsys": _dumpsys, "date": _date,
    "service": _service, "find": _find, "cp": _cp, "sqlite3": _sqlite3,
    "chmod": _exists_each("chmod"), "restorecon": _exists_each("restorecon"), "chcon": _exists_each("chcon"),
    "appops": lambda d, a: "",
}
