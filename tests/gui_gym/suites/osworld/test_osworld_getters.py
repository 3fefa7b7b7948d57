"""OSWorld getters through the real client against a stand-in OSWorld VM on loopback."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from tests.gui_gym.suites.osworld.test_osworld_setup import ctx, vm  # noqa: F401 - fixtures

from gui_gym.errors import MissingResourceError
from gui_gym.suites.osworld.getters import get_getter


def get(ctx, **config):  # noqa: F811 - the fixture is passed in
    return get_getter(config["type"])(ctx, config)


def test_vm_file_single_multi_and_missing(vm, ctx):  # noqa: F811
    vm.files.update({"/home/user/a.txt": b"A", "/home/user/b.txt": b"B"})
    path = get(ctx, type="vm_file", path="/home/user/a.txt", dest="a.txt")
    assert isinstance(path, str)  # OSWorld's getters give paths as strings; some metrics rely on it
    assert Path(path).read_bytes() == b"A" and Path(path).parent == ctx.scratch
    both = get(ctx, type="vm_file", multi=True, path=["/home/user/a.txt", "/home/user/b.txt"],
               dest=["a.txt", "b.txt"], gives=[0, 1])
    assert [Path(p).read_bytes() for p in both] == [b"A", b"B"]
    assert get(ctx, type="vm_file", path="/home/user/none.txt", dest="none.txt") is None


def test_command_getters(vm, ctx):  # noqa: F811
    vm.run = lambda command, shell: {"status": "success", "output": "43 132\n", "error": "warn", "returncode": 0}
    assert get(ctx, type="vm_command_line", command="stty size", shell=True) == "43 132\n"
    assert get(ctx, type="vm_command_error", command=["x"]) == "warn"
    assert get(ctx, type="vm_terminal_output").endswith("43 132\n")
    assert get(ctx, type="vm_screen_size") == {"width": 1920, "height": 1080}
    assert get(ctx, type="rule", rules={"expected": 1}) == {"expected": 1}
    assert get(ctx, type="accessibility_tree") == "<desktop-frame/>"


def test_local_cache_and_cloud_files(ctx, tmp_path):  # noqa: F811
    assert get(ctx, type="local_file", path="missing.txt", dest="m.txt") is None
    (ctx.spec.folder / "gold.txt").write_text("gold")
    assert Path(get(ctx, type="local_file", path="gold.txt", dest="g.txt")).read_text() == "gold"
    (ctx.scratch / "out.txt").write_text("from setup")
    assert Path(get(ctx, type="cache_file", path="out.txt")).read_text() == "from setup"
    assert get(ctx, type="cache_file", path="nothing.txt") is None
    with pytest.raises(MissingResourceError, match=r"https://example.org/gold.xlsx is not in the OSWorld file cache"):
        get(ctx, type="cloud_file", path="https://example.org/gold.xlsx", dest="gold.xlsx")
    (ctx.task_cache).mkdir(parents=True)
    (ctx.task_cache / "gold.xlsx").write_bytes(b"cached")
    assert Path(get(ctx, type="cloud_file", path="https://example.org/gold.xlsx", dest="gold.xlsx")).read_bytes() == b"cached"


def test_content_from_vm_file_last_row(vm, ctx, tmp_path):  # noqa: F811
    wb = openpyxl.Workbook()
    for row in (["a", "b"], [1, 2], [3, "x"]):
        wb.active.append(row)
    wb.save(tmp_path / "w.xlsx")
    vm.files["/home/user/w.xlsx"] = (tmp_path / "w.xlsx").read_bytes()
    assert get(ctx, type="content_from_vm_file", path="/home/user/w.xlsx", file_type="xlsx",
               file_content="last_row") == ["3", "x"]


def test_rule_relative_time_fills_osworld_placeholders(ctx):  # noqa: F811
    """OSWorld's ``getters/misc.py::get_rule_relativeTime``: "tomorrow" is now + 1 day, the
    placeholders are replaced in the rules' ``expected`` text; the task's rules stay as they were."""
    import datetime
    from zoneinfo import ZoneInfo

    rules = {"relativeTime": {"from": "tomorrow"}, "timezone": "Europe/Zurich",
             "expected": {"time": "{DoW}, {Month} {DayD}, {Year}"}}
    config = {"type": "rule_relativeTime", "rules": rules}
    tomorrow = datetime.datetime.now(ZoneInfo("Europe/Zurich")) + datetime.timedelta(days=1)
    got = get(ctx, **config)
    assert got["expected"]["time"] == tomorrow.strftime("%a, %b ") + f"{tomorrow.day}, {tomorrow.year}"
    assert config["rules"]["expected"]["time"].startswith("{DoW}")
    span = get(ctx, type="rule_relativeTime", rules={
        "relativeTime": {"from": "next Monday", "to": "next Friday"}, "timezone": "UTC",
        "expected": {"from": "{Year}-{Month0D}-{Day0D}", "to": "{Year}-{Month0D}-{Day0D}"}})
    start = datetime.date.fromisoformat(span["expected"]["from"])
    assert start.weekday() == 0 and datetime.date.fromisoformat(span["expected"]["to"]) - start == datetime.timedelta(days=4)


def test_desktop_getters(vm, ctx):  # noqa: F811
    assert get(ctx, type="list_directory", path="/home/user") == {"name": "user", "type": "directory", "children": []}
    vm.files["/home/user/.config/GIMP/2.10/gimprc"] = b"(undo-levels 100)\n"
    assert Path(get(ctx, type="gimp_config_file", file_name="gimprc", dest="gimprc")).read_bytes() == b"(undo-levels 100)\n"
    assert get(ctx, type="gimp_config_file", file_name="sessionrc", dest="sessionrc") is None
    vm.files["/home/user/.config/vlc/vlcrc"] = b"qt-bgcone=0\n"
    assert Path(get(ctx, type="vlc_config", dest="vlcrc")).read_bytes() == b"qt-bgcone=0\n"
    wallpaper = get(ctx, type="vm_wallpaper", dest="wall.png")
    assert Path(wallpaper).read_bytes() == b""  # the stand-in VM has no /wallpaper: an empty file, as OSWorld writes


def test_chrome_profile_getters(vm, ctx, tmp_path):  # noqa: F811
    """OSWorld's ``getters/chrome.py``: Preferences and Bookmarks read from
    ``~/.config/google-chrome/Default``, with OSWorld's answers when they are missing."""
    import json
    import sqlite3

    profile = "/home/user/.config/google-chrome/Default"
    assert get(ctx, type="default_search_engine") == "Google"
    assert get(ctx, type="enable_do_not_track") == "false" and get(ctx, type="bookmarks") == []
    vm.files[f"{profile}/Preferences"] = json.dumps({
        "default_search_provider_data": {"template_url_data": {"short_name": "Bing"}}, "enable_do_not_track": True,
        "webkit": {"webprefs": {"default_font_size": 20}}, "safebrowsing": {"enabled": True},
        "profile": {"name": "Thomas"}, "extensions": {"settings": {"id1": {"path": "/home/user/ext", "manifest": {"name": "Ext"}}}},
    }).encode()
    assert get(ctx, type="default_search_engine") == "Bing" and get(ctx, type="enable_do_not_track") == "true"
    assert get(ctx, type="chrome_font_size") == {"default_font_size": 20} and get(ctx, type="profile_name") == "Thomas"
    assert get(ctx, type="enable_safe_browsing") == "true" and get(ctx, type="new_startup_page") == "true"
    assert get(ctx, type="find_unpacked_extension_path") == ["/home/user/ext"]
    assert get(ctx, type="find_installed_extension_name") == ["Ext"]
    assert get(ctx, type="data_delete_automacally") == "false"
    vm.files[f"{profile}/Bookmarks"] = json.dumps({"roots": {"bookmark_bar": {"children": []}}}).encode()
    assert get(ctx, type="bookmarks") == {"bookmark_bar": {"children": []}}
    with sqlite3.connect(tmp_path / "History") as db:
        db.execute("create table urls (url, title, last_visit_time)")
        db.execute("insert into urls values ('https://a.org', 'A', 1)")
    vm.files[f"{profile}/History"] = (tmp_path / "History").read_bytes()
    assert get(ctx, type="history", dest="History") == [("https://a.org", "A", 1)]
    assert get(ctx, type="cookie_data", dest="Cookies") is None


ADDRESS = ('<desktop-frame><application name="Chromium"><frame name="x"><entry name="Address and search bar">'
           'example.org/a?q=1,2&amp;x=y</entry></frame></application></desktop-frame>')


def test_address_bar_getters(vm, ctx):  # noqa: F811
    """The active URL is ``goto_prefix`` + the address bar's text (OSWorld's
    ``get_active_url_from_accessTree``; Chromium's application stands in for Chrome's)."""
    original = vm._route

    def route(method, path, request):
        if path == "/accessibility":
            return 200, {"AT": ADDRESS}
        return original(method, path, request)
    vm._route = route
    assert get(ctx, type="active_url_from_accessTree", goto_prefix="https://www.") == "https://www.example.org/a?q=1,2&x=y"
    assert get(ctx, type="active_tab_url_parse", parse_keys=["q", "x"], replace={"x": "ex"}, split_list=True) == {
        "q": ["1", "2"], "ex": ["y"]}
    assert get(ctx, type="url_dashPart", partIndex=3, needDeleteId=True, returnType="json", key="k") == {"k": "a"}


def test_slide_audio_and_background_getters(vm, ctx, tmp_path):  # noqa: F811
    """OSWorld's ``getters/impress.py``: the slide's audio relationship (embedded: extracted
    next to the presentation) and its background picture's."""
    import zipfile

    rels = ('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.microsoft.com/office/2007/relationships/media" Target="../media/s.mp3"/>'
            '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/audio" '
            'Target="../media/s.mp3"/><Relationship Id="rId3" '
            'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="../media/bg.png"/>'
            '</Relationships>')
    slide = ('<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
             'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
             'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><p:cSld><p:bg><p:bgPr>'
             '<a:blipFill><a:blip r:embed="rId3"/></a:blipFill></p:bgPr></p:bg></p:cSld></p:sld>')
    with zipfile.ZipFile(tmp_path / "d.pptx", "w") as deck:
        deck.writestr("ppt/slides/_rels/slide1.xml.rels", rels)
        deck.writestr("ppt/slides/slide1.xml", slide)
        deck.writestr("ppt/media/s.mp3", b"ID3 audio")
        deck.writestr("ppt/media/bg.png", b"PNG image")
    vm.files["/home/user/d.pptx"] = (tmp_path / "d.pptx").read_bytes()
    audio = get(ctx, type="audio_in_slide", ppt_file_path="/home/user/d.pptx", slide_index=0, dest="a.mp3")
    assert Path(audio).read_bytes() == b"ID3 audio"
    image = get(ctx, type="background_image_in_slide", ppt_file_path="/home/user/d.pptx", slide_index=0, dest="bg.png")
    assert Path(image).read_bytes() == b"PNG image"
    assert get(ctx, type="audio_in_slide", ppt_file_path="/home/user/d.pptx", slide_index=3, dest="a.mp3") is None


def test_googledrive_file_through_the_drive_api(ctx, tmp_path, monkeypatch):  # noqa: F811
    """OSWorld's ``get_googledrive_file`` (PyDrive): the saved credentials are refreshed, each
    query is searched in the folder the previous one found, the last hit downloaded; a file
    not found is None. A stand-in Drive API on loopback answers as Google's v2 API does."""
    import json
    import shutil
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import parse_qs, urlparse

    from gui_gym.suites.osworld.getters import drive

    seen = []

    class Drive(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, body: bytes, kind: str = "application/json") -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
            assert form["grant_type"] == ["refresh_token"] and form["refresh_token"] == ["r1"]
            self._send(json.dumps({"access_token": "fresh", "expires_in": 3600}).encode())

        def do_GET(self):
            assert self.headers["Authorization"] == "Bearer fresh"
            url = urlparse(self.path)
            if url.path == "/drive/v2/files":
                query = parse_qs(url.query)["q"][0]
                seen.append(query)
                items = []
                if "'meetings'" in query and '"root" in parents' in query:
                    items = [{"id": "folder1", "mimeType": "application/vnd.google-apps.folder"}]
                elif "'Meeting-Agenda.pdf'" in query and '"folder1" in parents' in query:
                    items = [{"id": "file1", "mimeType": "application/pdf", "downloadUrl": f"{base}/download/file1"}]
                self._send(json.dumps({"items": items}).encode())
            else:
                self._send(b"%PDF-1.4 agenda", "application/pdf")
    server = ThreadingHTTPServer(("127.0.0.1", 0), Drive)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setattr(drive, "DRIVE_API", f"{base}/drive/v2")
    settings = ctx.spec.folder.parent.parent / "settings" / "googledrive"
    try:
        config = {"type": "googledrive_file", "settings_file": "evaluation_examples/settings/googledrive/settings.yml",
                  "path": ["meetings", "Meeting-Agenda.pdf"], "dest": "Meeting-Agenda.pdf"}
        with pytest.raises(MissingResourceError, match=r"put settings.yml"):
            get(ctx, **config)
        settings.mkdir(parents=True)
        (settings / "settings.yml").write_text("save_credentials_file: evaluation_examples/settings/googledrive/credentials.json\n")
        (settings / "credentials.json").write_text(json.dumps({
            "access_token": "old", "token_expiry": "2000-01-01T00:00:00Z", "refresh_token": "r1", "client_id": "c",
            "client_secret": "s", "token_uri": f"{base}/token"}))
        assert Path(get(ctx, **config)).read_bytes() == b"%PDF-1.4 agenda"
        assert seen[0] == "( title = 'meetings' and mimeType = 'application/vnd.google-apps.folder' and trashed = false ) and \"root\" in parents"
        assert get(ctx, **{**config, "path": ["meetings", "absent.pdf"]}) is None
        assert get(ctx, type="googledrive_file", query_list=[["title = 'nothing'"]], dest=["n.pdf"]) == [None]
    finally:
        server.shutdown()
        shutil.rmtree(settings.parent, ignore_errors=True)


def test_one_getter_call_reads_a_bounded_total_of_files(vm, ctx):  # noqa: F811
    """The attack: a 15 MB ``.desktop`` file under 40 more names (hard links cost the agent no
    room) each read whole, +1,205 MiB in the host; a cap per file had no total. Now the
    files of one call share `max_host_parse_bytes` and count at each name; their number is
    bounded too. The control: small shortcuts read as before."""
    import dataclasses

    from gui_gym.errors import LimitExceededError

    original = vm._route

    def route(method, path, request):
        if path == "/list_directory":
            names = [n.rsplit("/", 1)[1] for n in vm.files if n.startswith("/home/user/Desktop/")]
            return 200, {"directory_tree": {"name": "Desktop", "type": "directory",
                                            "children": [{"name": n, "type": "file"} for n in names]}}
        return original(method, path, request)
    vm._route = route
    vm.files.update({"/home/user/Desktop/a.desktop": b"Name=A\n", "/home/user/Desktop/b.desktop": b"Name=B\n"})
    assert get(ctx, type="shortcuts_on_desktop") == {"a.desktop": "Name=A\n", "b.desktop": "Name=B\n"}
    ctx.limits = dataclasses.replace(ctx.limits, max_host_parse_bytes=1 << 20)
    vm.files.update({f"/home/user/Desktop/game-{i}.desktop": b"a" * (600 << 10) for i in range(3)})
    with pytest.raises(LimitExceededError, match="the files one getter reads are over 1048576 bytes in all"):
        get(ctx, type="shortcuts_on_desktop")
    ctx.limits = dataclasses.replace(ctx.limits, max_host_parse_bytes=16 << 20, max_getter_files=4)
    with pytest.raises(LimitExceededError, match="5 files to read, over the 4 one getter reads"):
        get(ctx, type="shortcuts_on_desktop")


def test_a_profile_file_past_its_bound_scores_zero_not_osworlds_fallback(vm, ctx):  # noqa: F811
    """A Preferences file too big to read gave OSWorld's fallback answer (for some getters the
    answer a task expects); now it is a bound the agent went past. A file that does not parse
    still gives the fallback, as in OSWorld."""
    import dataclasses

    from gui_gym.errors import LimitExceededError

    preferences = "/home/user/.config/google-chrome/Default/Preferences"
    ctx.limits = dataclasses.replace(ctx.limits, max_host_parse_bytes=1 << 10)
    vm.files[preferences] = b" " * 2048
    with pytest.raises(LimitExceededError, match="over the 1024 bytes allowed"):
        get(ctx, type="enable_do_not_track")
    vm.files[preferences] = b"[" * 1000
    assert get(ctx, type="enable_do_not_track") == "false"


def test_a_presentation_that_unpacks_past_its_bounds_is_refused(vm, ctx, tmp_path):  # noqa: F811
    """The attack: a 510 KiB presentation whose slide audio unpacks to 512 MiB (written to the
    host's disk before) and a 765 KiB one whose slide relationships unpack to 768 MiB (read into
    the host's memory before)."""
    import zipfile

    from gui_gym.errors import LimitExceededError

    rels = ('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship '
            'Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/audio" '
            'Target="../media/s.mp3"/></Relationships>')
    for parts, message in (({"ppt/slides/_rels/slide1.xml.rels": rels.encode(), "ppt/media/s.mp3": 64 << 20},
                            "member ppt/media/s.mp3 unpacks"),
                           ({"ppt/slides/_rels/slide1.xml.rels": 64 << 20}, "member ppt/slides/_rels/slide1.xml.rels")):
        with zipfile.ZipFile(tmp_path / "d.pptx", "w", zipfile.ZIP_DEFLATED) as deck:
            for name, data in parts.items():
                deck.writestr(name, data if isinstance(data, bytes) else bytes(data))
        vm.files["/home/user/d.pptx"] = (tmp_path / "d.pptx").read_bytes()
        with pytest.raises(LimitExceededError, match=message):
            get(ctx, type="audio_in_slide", ppt_file_path="/home/user/d.pptx", slide_index=0, dest="a.mp3")
        assert not (ctx.scratch / "ppt" / "media").exists()
