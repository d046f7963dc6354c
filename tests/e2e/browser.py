"""Opens pages in real headless Chromium (Debian's chromium package) for
the end-to-end tests: the DOM after the page's scripts ran, every console
message (Chromium logs each, whatever its level, as INFO:CONSOLE), and a
screenshot.  A fresh profile directory per call, so runs never share
state."""
import os
import shutil
import subprocess
import tempfile
import time
from html.parser import HTMLParser


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    raise AssertionError("chromium is missing: run make setup (setup/packages.txt installs Debian's chromium)")


class Page:
    def __init__(self, dom, console, seconds, screenshot):
        self.dom, self.console, self.seconds, self.screenshot = dom, console, seconds, screenshot
        self.root = parse(dom)


def _run(args, width, height, budget_ms, extra=()):
    profile = tempfile.mkdtemp(prefix="alphaprof-chromium-")
    try:
        cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
               "--disable-extensions", "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0",
               "--virtual-time-budget=%d" % budget_ms, "--window-size=%d,%d" % (width, height)] + list(extra) + args
        start = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
        return p, time.perf_counter() - start
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def open_page(path, fragment="", screenshot=None, width=1400, height=1800, budget_ms=10000):
    """Loads file PATH (with #fragment) and returns a Page; screenshot: a
    PNG path to write as well (a second load, as a person would see it)."""
    url = "file://" + os.path.abspath(path) + (("#" + fragment) if fragment else "")
    return open_url(url, screenshot, width, height, budget_ms)


def open_url(url, screenshot=None, width=1400, height=1800, budget_ms=10000, extra=()):
    """open_page for any URL (a page served from 127.0.0.1); extra:
    more Chromium switches."""
    p, seconds = _run(["--dump-dom", url], width, height, budget_ms, extra)
    if p.returncode != 0:
        raise AssertionError("chromium failed on %s (exit %d):\n%s" % (url, p.returncode, p.stderr[-3000:]))
    console = [l for l in p.stderr.splitlines() if ":CONSOLE" in l]
    if screenshot:
        s, _ = _run(["--screenshot=" + screenshot, url], width, height, budget_ms, extra)
        if s.returncode != 0 or not os.path.exists(screenshot):
            raise AssertionError("chromium could not take a screenshot of %s:\n%s" % (url, s.stderr[-3000:]))
        console += [l for l in s.stderr.splitlines() if ":CONSOLE" in l]
    return Page(p.stdout, console, seconds, screenshot)


# ---- a small DOM, enough to look things up by id, class and tag ----

class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.text = tag, dict(attrs), parent, [], ""

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def all(self):
        yield self
        for c in self.children:
            yield from c.all()

    def find(self, tag=None, cls=None, id=None):
        return [n for n in self.all() if (tag is None or n.tag == tag) and (cls is None or cls in n.classes())
                and (id is None or n.attrs.get("id") == id)]

    def by_id(self, id):
        found = self.find(id=id)
        return found[0] if found else None

    def all_text(self):
        return self.text + "".join(c.all_text() for c in self.children)


VOID = {"meta", "br", "img", "input", "link", "hr", "col", "area", "base", "wbr", "source"}


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        t = Node("#text", {}, self.cur)
        t.text = data
        self.cur.children.append(t)


def parse(dom):
    b = _Builder()
    b.feed(dom)
    return b.root
