#!/usr/bin/env python3
"""Check the links of a built HTML book (mdBook's output): every relative link and image must
name a file of the book, and every `#fragment` an element id of the page it points to.

Usage: python3 tools/linkcheck.py [BOOK_DIR]   (default: target/book)

External links (http:, https:, mailto:) are not fetched: the machines that build the book have
no network but the package registries. Exits 0 when every link resolves, 1 listing each broken
link as `page: link (reason)`, 2 when BOOK_DIR holds no HTML. Standard library only.
"""

import html.parser
import os
import sys
import urllib.parse

# Pages mdBook writes itself, whose links are its own (search index, print page duplicates).
SKIP_PAGES = {"print.html", "404.html", "toc.html"}


class Page(html.parser.HTMLParser):
    """Collects a page's element ids and the links it makes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        for key in ("href", "src"):
            if a.get(key) is not None:
                self.links.append(a[key])


def parse(path):
    p = Page()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    return p


def broken_links(root):
    """Yields (page, link, reason) for each link of the book under `root` that does not resolve."""
    pages = {}
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".html"):
                full = os.path.join(d, f)
                pages[os.path.relpath(full, root)] = parse(full)
    if not pages:
        print(f"error: {root} holds no HTML page (build the book first: mdbook build docs)",
              file=sys.stderr)
        sys.exit(2)
    for rel, page in sorted(pages.items()):
        if os.path.basename(rel) in SKIP_PAGES:
            continue
        for link in page.links:
            reason = check(root, rel, page, link, pages)
            if reason:
                yield rel, link, reason


def check(root, rel, page, link, pages):
    """Why `link` on page `rel` does not resolve, or None when it does."""
    url = urllib.parse.urlsplit(link)
    if url.scheme or link.startswith("//"):
        return None
    if not url.path:
        if url.fragment and url.fragment not in page.ids:
            return "no such id on this page"
        return None
    target = os.path.normpath(os.path.join(os.path.dirname(rel), urllib.parse.unquote(url.path)))
    if target.startswith(".."):
        return "points outside the book"
    full = os.path.join(root, target)
    if os.path.isdir(full):
        target = os.path.join(target, "index.html")
        full = os.path.join(root, target)
    if not os.path.exists(full):
        return "no such file"
    if url.fragment and target in pages and url.fragment not in pages[target].ids:
        return f"no id `{url.fragment}` in {target}"
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "target/book"
    broken = list(broken_links(root))
    for rel, link, reason in broken:
        print(f"{rel}: {link} ({reason})")
    if broken:
        print(f"{len(broken)} broken link(s) in {root}", file=sys.stderr)
        return 1
    print(f"links ok in {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
