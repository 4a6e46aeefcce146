#!/usr/bin/python3
"""Checks the key space page pgrange serves at `/` in headless Chromium.

        key_space_page_check.py --url URL [--expect-ranges N] [--screenshot PATH] [--chromium PATH]

Loads URL in headless Chromium (--no-sandbox, as root needs), lets the page fetch api/ranges and
draw (virtual time), dumps the DOM and checks the page's DOM contract: <body data-loaded="1"
data-version>, every `rect.range` inside a `.bar` (with data-table and data-index) carries a
data-range-id unique among the bars (N of them when --expect-ranges is given), a data-shard naming
shard columns and a literal fill equal to the palette colour of its first shard's position among
the `.shard-column`s (PGRANGE_PALETTE[i % length]); every `.shard-column` has data-shard and its
palette colour as data-color and lists, as `.shard-range`s, exactly the ranges whose shards include
it; #status shows the version; text from the JSON never became markup. Then takes a screenshot.
Prints a summary and exits 0, or prints what is wrong and exits 1. Standard library only.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
        "source", "track", "wbr"}
# Every tag the page itself puts under #bars and #shards; anything else came from data as markup.
PAGE_TAGS = {"div", "span", "section", "svg", "rect", "path", "text", "g", "title"}
VIRTUAL_TIME_MS = 8000
TIMEOUT_S = 90


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children, self.text = [], []

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def text_content(self):
        return "".join(self.text) + "".join(c.text_content() for c in self.children)

    def ancestor(self, pred):
        n = self.parent
        while n is not None and not pred(n):
            n = n.parent
        return n


class TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", [], None)
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
        self.cur.text.append(data)


def find_chromium(given):
    if given:
        return given
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("FAIL: no chromium found (pass --chromium PATH)")


def run_chromium(chromium, profile, extra, url):
    cmd = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-first-run", "--user-data-dir=" + profile,
           "--virtual-time-budget=%d" % VIRTUAL_TIME_MS] + extra + [url]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        sys.exit("FAIL: chromium did not finish within %d s: %s" % (TIMEOUT_S, " ".join(cmd)))
    if p.returncode != 0:
        tail = "\n".join(p.stderr.splitlines()[-15:])
        sys.exit("FAIL: chromium exited %d: %s\n%s" % (p.returncode, " ".join(cmd), tail))
    return p.stdout


def palette_of(doc, dom_text):
    for n in doc.walk():
        if n.tag == "html" and n.attrs.get("data-palette"):
            return n.attrs["data-palette"].split()
    m = re.search(r"PALETTE\s*=\s*\[([^\]]*)\]", dom_text)
    return re.findall(r"#[0-9a-fA-F]{6}", m.group(1)) if m else []


def check(doc, dom_text, expect_ranges):
    """Returns (errors, summary lines)."""
    errors = []
    nodes = list(doc.walk())
    body = next((n for n in nodes if n.tag == "body"), None)
    if body is None:
        return ["no <body> in the dumped DOM"], []
    status = next((n for n in nodes if n.attrs.get("id") == "status"), None)
    status_text = status.text_content().strip() if status is not None else ""
    if body.attrs.get("data-loaded") != "1":
        errors.append('<body> lacks data-loaded="1": the page never drew (#status: %r)'
                      % status_text)
        return errors, []
    version = body.attrs.get("data-version")
    if not version:
        errors.append("<body> lacks data-version")
    if status is None:
        errors.append("no #status element")
    elif "error" in status.classes() or ("version %s" % version) not in status_text:
        errors.append("#status does not show version %s: %r" % (version, status_text))

    palette = [c.lower() for c in palette_of(doc, dom_text)]
    if len(palette) < 8:
        errors.append("palette has %d colours (want >= 8): %r" % (len(palette), palette))
        palette = palette or ["#000000"]

    columns = [n for n in nodes if "shard-column" in n.classes()]
    shard_pos = {}
    for i, c in enumerate(columns):
        name = c.attrs.get("data-shard")
        if name is None:
            errors.append("shard column %d lacks data-shard" % i)
            continue
        if name in shard_pos:
            errors.append("two shard columns for %r" % name)
        shard_pos.setdefault(name, i)
        want = palette[i % len(palette)]
        if (c.attrs.get("data-color") or "").lower() != want:
            errors.append("shard column %r: data-color %r, want %s (palette[%d])"
                          % (name, c.attrs.get("data-color"), want, i % len(palette)))
    if not columns:
        errors.append("no .shard-column elements")

    bars = [n for n in nodes if "bar" in n.classes()]
    for b in bars:
        if "data-table" not in b.attrs or "data-index" not in b.attrs:
            errors.append(".bar without data-table/data-index: %r" % b.attrs)

    ranges = {}  # id -> list of shards
    hot = 0
    for r in (n for n in nodes if n.tag == "rect" and "range" in n.classes()):
        rid = r.attrs.get("data-range-id")
        if not rid:
            errors.append("rect.range without data-range-id: %r" % r.attrs)
            continue
        if rid in ranges:
            errors.append("range %s drawn more than once in the bars" % rid)
        if r.ancestor(lambda n: "bar" in n.classes()) is None:
            errors.append("rect.range %s is not inside a .bar" % rid)
        shards = [s.strip() for s in (r.attrs.get("data-shard") or "").split(",") if s.strip()]
        ranges[rid] = shards
        hot += "hot" in r.classes()
        fill = r.attrs.get("fill") or ""
        if not re.fullmatch(r"#[0-9a-fA-F]{6}", fill):
            errors.append("range %s: fill %r is not a literal #rrggbb" % (rid, fill))
        if not shards:
            errors.append("range %s has no data-shard" % rid)
            continue
        missing = [s for s in shards if s not in shard_pos]
        if missing:
            errors.append("range %s: shard(s) %s have no column" % (rid, ", ".join(missing)))
            continue
        want = palette[shard_pos[shards[0]] % len(palette)]
        if fill.lower() != want:
            errors.append("range %s on %s: fill %s, want %s" % (rid, shards[0], fill, want))
    if expect_ranges is not None and len(ranges) != expect_ranges:
        errors.append("%d ranges drawn, expected %d" % (len(ranges), expect_ranges))
    if hot > 5:
        errors.append("%d hot ranges (at most 5)" % hot)

    per_column = {}
    for c in columns:
        name = c.attrs.get("data-shard")
        listed = [n.attrs.get("data-range-id") for n in c.walk() if "shard-range" in n.classes()]
        per_column[name] = len(listed)
        if len(set(listed)) != len(listed):
            errors.append("shard column %r lists a range twice" % name)
        for rid in listed:
            if rid not in ranges:
                errors.append("shard column %r lists range %r, which no bar draws" % (name, rid))
            elif name not in ranges[rid]:
                errors.append("shard column %r lists range %s of %s"
                              % (name, rid, ",".join(ranges[rid])))
        for rid, shards in ranges.items():
            if name in shards and rid not in listed:
                errors.append("shard column %r misses range %s" % (name, rid))

    for host_id in ("bars", "shards"):
        host = next((n for n in nodes if n.attrs.get("id") == host_id), None)
        if host is None:
            errors.append("no #%s element" % host_id)
            continue
        foreign = sorted({n.tag for n in host.walk() if n is not host and n.tag not in PAGE_TAGS})
        if foreign:
            errors.append("unexpected elements under #%s (data inserted as markup?): %s"
                          % (host_id, ", ".join(foreign)))

    summary = [
        "version %s; %d ranges in %d bars; %d hot" % (version, len(ranges), len(bars), hot),
        "shard columns: " + ", ".join("%s=%d" % kv for kv in per_column.items()),
        "#status: " + status_text,
    ]
    return errors, summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--expect-ranges", type=int)
    ap.add_argument("--screenshot", help="where to write a 1400x900 PNG of the page")
    ap.add_argument("--chromium", help="chromium binary (default: from PATH)")
    args = ap.parse_args()

    chromium = find_chromium(args.chromium)
    with tempfile.TemporaryDirectory(prefix="key_space_page_check.") as profile:
        dom_text = run_chromium(chromium, profile, ["--dump-dom"], args.url)
        builder = TreeBuilder()
        builder.feed(dom_text)
        builder.close()
        errors, summary = check(builder.root, dom_text, args.expect_ranges)
        if args.screenshot:
            if os.path.exists(args.screenshot):
                os.remove(args.screenshot)
            run_chromium(chromium, profile, ["--hide-scrollbars", "--window-size=1400,900",
                                             "--screenshot=" + os.path.abspath(args.screenshot)],
                         args.url)
            if not os.path.exists(args.screenshot) or os.path.getsize(args.screenshot) == 0:
                errors.append("no screenshot written to %s" % args.screenshot)
            else:
                summary.append("screenshot: %s (%d bytes)"
                               % (args.screenshot, os.path.getsize(args.screenshot)))

    if errors:
        print("FAIL: key space page at %s" % args.url)
        for e in errors[:30]:
            print("  - " + e)
        if len(errors) > 30:
            print("  ... and %d more" % (len(errors) - 30))
        for s in summary:
            print("  " + s)
        return 1
    print("OK: key space page at %s" % args.url)
    for s in summary:
        print("  " + s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
