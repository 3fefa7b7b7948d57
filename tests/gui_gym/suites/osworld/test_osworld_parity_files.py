"""Parity with OSWorld's PDF, archive, e-book, Thunderbird, desktop and test-suite metrics
(desktop-env 1.0.2: ``chrome.py``, ``pdf.py``, ``vscode.py``, ``others.py``,
``thunderbird.py``, ``basic_os.py``) on generated PDFs (LibreOffice-exported text, image
PDFs), zip/tar archives, EPUB books, Thunderbird profile files and directory listings.
The reference has PyMuPDF, so ours reads PDFs with it too; pypdf's reading is pinned in
test_osworld_metrics_files.py."""

from __future__ import annotations

import shutil
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest
from tests.osworld_reference import Parity
from PIL import Image, ImageDraw

from gui_gym.suites.osworld.metrics import code, desktop, files, mail

TEXTS = {"report": "Quarterly report\nRevenue grew by 12 percent.\nCosts fell.", "report2": "Quarterly report\nRevenue grew by 12 percent.\nCosts fell.",
         "changed": "Quarterly summary\nRevenue grew by 13 percent.\nCosts rose.", "other": "Completely different words here."}


@pytest.fixture(scope="module")
def pdfs(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("parity-pdf")
    sources = []
    for name, content in TEXTS.items():
        (folder / f"{name}.txt").write_text(content)
        sources.append(folder / f"{name}.txt")
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.fail("LibreOffice (soffice) is needed to write PDFs; scripts/setup.sh installs it")
    with tempfile.TemporaryDirectory(prefix="lo-profile-") as profile:
        subprocess.run([soffice, f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", "pdf",
                        "--outdir", str(folder), *map(str, sources)], check=True, capture_output=True, timeout=300)
    out = {name: str(folder / f"{name}.pdf") for name in TEXTS}
    for name, color in (("red", "red"), ("red2", "red"), ("blue", "blue")):
        image = Image.new("RGB", (64, 64), "white")
        ImageDraw.Draw(image).ellipse([8, 8, 56, 56], fill=color)
        image.save(folder / f"{name}.pdf", "PDF")
        out[name] = str(folder / f"{name}.pdf")
    two = [Image.new("RGB", (32, 32), c) for c in ("green", "black")]
    two[0].save(folder / "two.pdf", "PDF", save_all=True, append_images=two[1:])
    out["two"] = str(folder / "two.pdf")
    (folder / "junk.pdf").write_bytes(b"not a pdf")
    out["junk"] = str(folder / "junk.pdf")
    out["missing"] = str(folder / "missing.pdf")
    return out


def run(parity: Parity, cases: list) -> None:
    failures = parity.check(cases)
    assert not failures, "\n".join(failures)


def test_pdf_metrics(osworld_ref, pdfs):
    chrome, pdf = osworld_ref.metrics("chrome"), osworld_ref.metrics("pdf")
    names = list(pdfs)
    cases = [(f"{a}~{b}", (pdfs[a], pdfs[b]), {}) for a in names for b in ("report", "changed", "red")]
    cases += [("lists", ([pdfs["report"], pdfs["changed"]], [pdfs["report2"], pdfs["report"]]), {}),
              ("list-missing", ([pdfs["report"], None], [pdfs["report2"], pdfs["report"]]), {})]
    run(Parity("compare_pdfs", files.compare_pdfs, chrome.compare_pdfs), cases)
    cases = [(f"{a}~{b}", (pdfs[a], pdfs[b]), {}) for a in names for b in ("red", "blue", "two", "report")]
    run(Parity("compare_pdf_images", files.compare_pdf_images, chrome.compare_pdf_images), cases)
    rules = [{"relation": "eq", "ref_value": 1}, {"relation": "gt", "ref_value": 1}, {"relation": "le", "ref_value": 2}]
    assert files.pymupdf_available()  # the reference brings PyMuPDF, and ours uses it then
    cases = [(f"{n}-{i}", (pdfs[n], r), {}) for n in ("report", "two", "red", "junk") for i, r in enumerate(rules)]
    run(Parity("check_pdf_pages", files.check_pdf_pages, pdf.check_pdf_pages), cases + [("none", (None, rules[0]), {})])


def test_pdf_text_without_pymupdf(osworld_ref, pdfs, monkeypatch):
    """Without PyMuPDF ours reads PDFs with pypdf: identical PDFs agree; pairs of different
    texts may score differently (docs/osworld.md, deliberate differences: compare_pdfs)."""
    chrome = osworld_ref.metrics("chrome")
    monkeypatch.setattr(files, "pymupdf_available", lambda: False)
    names = ["report", "report2", "changed", "other", "red", "junk"]
    cases = [(f"{a}~{b}", (pdfs[a], pdfs[b]), {}) for a in names for b in names]
    same_text = {"report", "report2"}
    documented = {label: "compare_pdfs" for label, (a, b), _ in cases
                  if a != b and not {Path(a).stem, Path(b).stem} <= same_text}
    run(Parity("compare_pdfs (pypdf)", files.compare_pdfs, chrome.compare_pdfs, documented=documented), cases)


def _zip(path: Path, members: dict[str, bytes]) -> str:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return str(path)


def test_archives(osworld_ref, pdfs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # OSWorld's compare_zip_files writes PDF members to ./temp.pdf
    vscode, chrome = osworld_ref.metrics("vscode"), osworld_ref.metrics("chrome")
    report = Path(pdfs["report"]).read_bytes()
    zips = {"a": {"a.txt": b"1", "b/c.txt": b"2"}, "same": {"b/c.txt": b"2", "a.txt": b"1"}, "fewer": {"a.txt": b"1"},
            "bytes": {"a.txt": b"1", "b/c.txt": b"3"}, "pdf": {"r.pdf": report}, "pdf2": {"r.pdf": Path(pdfs["report2"]).read_bytes()},
            "pdf-other": {"r.pdf": Path(pdfs["other"]).read_bytes()}}
    paths = {name: _zip(tmp_path / f"{name}.zip", members) for name, members in zips.items()}
    run(Parity("compare_zip_files", files.compare_zip_files, vscode.compare_zip_files),
        [(f"{a}~{b}", (paths[a], paths[b]), {}) for a in paths for b in paths] + [("none", (None, paths["a"]), {})])

    def archive(name: str, members: dict[str, bytes], fmt: str = "zip", inner: str = "") -> str:
        folder = tmp_path / f"src-{name}"
        for member, data in members.items():
            (folder / inner / member).parent.mkdir(parents=True, exist_ok=True)
            (folder / inner / member).write_bytes(data)
        return shutil.make_archive(str(tmp_path / "archives" / name / name), fmt, folder)
    texts = {"one.txt": b"alpha\n", "two.txt": b"beta\n"}
    made = {
        "gold": archive("gold", texts), "pred": archive("pred", texts), "pred-diff": archive("pred-diff", {**texts, "two.txt": b"x\n"}),
        "pred-names": archive("pred-names", {"one.txt": b"alpha\n"}), "tar": archive("tar", texts, "gztar"),
        "pdf-gold": archive("pdf-gold", {"r.pdf": report}), "pdf-pred": archive("pdf-pred", {"r.pdf": Path(pdfs["changed"]).read_bytes()}),
        "nested-gold": archive("nested-gold", texts, inner="slides"), "nested-pred": archive("nested-pred", texts, inner="slides"),
    }
    cases = [(f"{p}", (made[p], made["gold"]), {}) for p in ("pred", "pred-diff", "pred-names", "tar")]
    cases += [("pdf", (made["pdf-pred"], made["pdf-gold"]), {"file_type": "pdf"}),
              ("nested", (made["nested-pred"], made["nested-gold"]), {"file_path": "slides"}),
              ("bad-type", (made["pred"], made["gold"]), {"file_type": "nope"}), ("none", (None, made["gold"]), {})]
    run(Parity("compare_archive", files.compare_archive, chrome.compare_archive), cases)


def _epub(path: Path, chapter: str, identifier: str = "id-1", nested: bool = False) -> str:
    page = f"<html><head><title>Book</title></head>\r\n<body><h1>Chapter</h1><p>{chapter}</p></body></html>"
    return _zip(path, {"mimetype": b"application/epub+zip",
                       "content.opf": f'<package>\n<dc:identifier id="bookid">{identifier}</dc:identifier>\n<dc:title>Pass Through</dc:title>\n</package>\n'.encode(),
                       "toc.ncx": b"<ncx>\n<navPoint id='1'>x</navPoint>\n<docTitle>Pass Through</docTitle>\n</ncx>\n",
                       ("OEBPS/chapter1.html" if nested else "chapter1.html"): page.encode()})


def test_compare_epub(osworld_ref, tmp_path):
    others = osworld_ref.metrics("others")
    books = {"gold": _epub(tmp_path / "gold.epub", "It was a dark night."), "same": _epub(tmp_path / "same.epub", "It was a dark night.", "id-2"),
             "edited": _epub(tmp_path / "edited.epub", "It was a bright day."), "nested": _epub(tmp_path / "nested.epub", "x", nested=True)}
    (tmp_path / "junk.epub").write_bytes(b"no")
    books["junk"] = str(tmp_path / "junk.epub")
    cases = [(f"{a}~{b}", (books[a], books[b]), {}) for a in books for b in books] + [("none", (None, books["gold"]), {})]

    def fresh(func):
        def call(a, b):  # OSWorld leaves <book>.dir folders next to the books; start clean each time
            for path in (a, b):
                if path:
                    shutil.rmtree(path + ".dir", ignore_errors=True)
            return func(a, b)
        return call
    run(Parity("compare_epub", files.compare_epub, fresh(others.compare_epub)), cases)


PREFS = """// Mozilla User Preferences
user_pref("mail.identity.id1.htmlSigText", "Best,\\nAnn");
user_pref("mail.spam.manualMark", true);
user_pref("mailnews.default_sort_order", 2);
user_pref("mail.server.server1.check_new_mail", false);
"""
FILTERS = """version="9"
logging="no"
name="Move newsletters"
enabled="yes"
type="17"
action="Move to folder"
actionValue="mailbox://nobody@Local%20Folders/News"
condition="AND (subject,contains,newsletter) OR (from,is,\\"a@b.org\\")"
name="Other"
enabled="no"
type="1"
action="Mark read"
condition="ALL"
"""


def test_thunderbird(osworld_ref, tmp_path):
    tb = osworld_ref.metrics("thunderbird")
    prefs = tmp_path / "prefs.js"
    prefs.write_text(PREFS)
    rules = [{"expect": {"mail.spam.manualMark": {"method": "eq", "ref": True}}},
             {"expect": {"mailnews.default_sort_order": {"method": "eq", "ref": 1}}},
             {"expect": {"mail.identity.id1.htmlSigText": {"method": "re", "ref": "Best"}},
              "unexpect": {"mail.server.server1.check_new_mail": {"method": "eq", "ref": True}}},
             {"unexpect": {"mail.spam.manualMark": {"method": "eq", "ref": True}}}, {"expect": {"absent": {"method": "eq", "ref": 1}}}]
    run(Parity("check_thunderbird_prefs", mail.check_thunderbird_prefs, tb.check_thunderbird_prefs),
        [(f"{i}", (str(prefs), r), {}) for i, r in enumerate(rules)] + [("none", (None, rules[0]), {})])
    filters = tmp_path / "msgFilterRules.dat"
    filters.write_text(FILTERS)
    rules = [{"expect": [{"name": "Move newsletters", "enabled": "yes", "action": "Move to folder"}]},
             {"expect": [{"name": "Move newsletters", "condition": ["AND (subject,contains,newsletter)", 'OR (from,is,"a@b.org")']}]},
             {"unexpect": [{"enabled": "no"}]}, {"expect": [{"name": "Nope"}]}, {}]
    run(Parity("check_thunderbird_filter", mail.check_thunderbird_filter, tb.check_thunderbird_filter),
        [(f"{i}", (str(filters), r), {}) for i, r in enumerate(rules)] + [("none", (None, rules[0]), {})])
    folders = {"two": "FROM - Mon\nSubject: a\n\nFROM - Tue\nSubject: b\n", "empty-piece": "FROM - FROM - Mon\nx\n",
               "none": "", "deleted": "FROM - \nX-Mozilla-Status: 0009\nFROM - x\n"}
    paths = {}
    for name, content in folders.items():
        paths[name] = str(tmp_path / name)
        Path(paths[name]).write_text(content)
    options = [{}, {"remove_duplicate": False}, {"remove_deleted": False, "ignore_status": True, "ignore_keys": True}]
    cases = [(f"{a}~{b}-{i}", (paths[a], paths[b]), o) for a in paths for b in paths for i, o in enumerate(options)]
    cases += [("lists", ([paths["two"], paths["none"]], [paths["two"], paths["empty-piece"]]), {}), ("none", (None, paths["two"]), {})]
    run(Parity("check_thunderbird_folder", mail.check_thunderbird_folder, tb.check_thunderbird_folder), cases)


def test_desktop_checks(osworld_ref):
    basic = osworld_ref.metrics("basic_os")
    apps = ["['thunderbird.desktop', 'vim.desktop']", "['vim.desktop', 'thunderbird.desktop']", "['vim.desktop']", "[]"]
    run(Parity("check_gnome_favorite_apps", desktop.check_gnome_favorite_apps, basic.check_gnome_favorite_apps),
        [(a, (a, {"expected": ["thunderbird.desktop", "vim.desktop"]}), {}) for a in apps] + [("bad", ("@as []", {"expected": []}), {})])
    outputs = ["      Local time: Thu\n  Universal time: Thu\n        RTC time: Thu\n       Time zone: Etc/UTC (UTC, +0000)\n",
               "      Local time: Thu\n  Universal time: Thu\n        RTC time: Thu\n       Time zone: Asia/Tokyo (JST, +0900)\n", "short"]
    run(Parity("is_utc_0", desktop.is_utc_0, basic.is_utc_0), [(f"{i}", (o,), {}) for i, o in enumerate(outputs)])
    trees = [{"children": [{"name": "a.jpg"}, {"name": "b.jpg"}]}, {"children": [{"name": "a.jpg"}]}, {"children": []}]
    run(Parity("check_moved_jpgs", desktop.check_moved_jpgs, basic.check_moved_jpgs),
        [(f"{i}", (t, {"expected": ["b.jpg", "a.jpg"]}), {}) for i, t in enumerate(trees)])
    run(Parity("is_in_vm_clickboard", desktop.is_in_vm_clickboard, basic.is_in_vm_clickboard),
        [(f"{e!r}-{o}", ({"expected": e}, o), {}) for e in ("/home/user/x.docx", ["a", "b"]) for o in ("/home/user/x.docx\n", "a b", "")])


TESTS = {
    "pass": "from game import score\n\ndef test():\n    return score() == 3\n",
    "number": "def test():\n    return 0.25\n", "big": "def test():\n    return 7\n", "text": "def test():\n    return 'yes'\n",
    "raises": "def test():\n    raise ValueError('no')\n", "missing": "def other():\n    return True\n",
    "broken": "def test(:\n", "import-error": "import does_not_exist\n\ndef test():\n    return True\n",
    "cwd": "import os\n\ndef test():\n    return os.path.exists('game.py')\n",
}


def test_check_python_file_by_test_suite(osworld_ref, tmp_path):
    """Ours runs the test through a runner (on the desktop in an episode; here a plain
    subprocess in a scratch folder, since the test files are our own)."""
    vscode = osworld_ref.metrics("vscode")
    game = tmp_path / "game.py"
    game.write_text("def score():\n    return 3\n")

    def local_runner(files: dict[str, bytes], arguments: list[str]) -> str:
        """What the desktop's runner does, in a plain subprocess: the harness answers on a pipe."""
        with tempfile.TemporaryDirectory() as folder:
            for name, data in files.items():
                Path(folder, name).write_bytes(data)
            answer, write_end = os.pipe()
            try:
                subprocess.run([sys.executable, "-I", f"{folder}/harness.py", folder, str(write_end), *arguments],
                               pass_fds=(write_end,), capture_output=True, timeout=60)
            finally:
                os.close(write_end)
            with os.fdopen(answer, encoding="utf-8") as reader:
                return reader.read()

    def ours(result, expected, **options):
        return code.check_python_file_by_test_suite(result, expected, run_python=local_runner, **options)
    cases = []
    for name, content in TESTS.items():
        test_file = tmp_path / f"test_{name}.py"
        test_file.write_text(content)
        cases.append((name, ([str(game)], str(test_file)), {}))
    cases += [("function-name", ([str(game)], str(tmp_path / "test_missing.py")), {"test_function_name": "other"}),
              ("no-test", ([str(game)], str(tmp_path / "absent.py")), {})]
    run(Parity("check_python_file_by_test_suite", ours, vscode.check_python_file_by_test_suite), cases)
