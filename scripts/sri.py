"""Brings the integrity hashes in a built index.html up to date with the files on disk.

Trunk writes `integrity="sha384-..."` for the files it links; a step that rewrites one of them
after trunk (the JavaScript minifier) would otherwise leave a hash the browser refuses.
Usage: python3 sri.py DIST_DIR
"""
import base64
import hashlib
import pathlib
import re
import sys


def main() -> None:
    dist = pathlib.Path(sys.argv[1])
    index = dist / "index.html"
    html = index.read_text(encoding="utf-8")
    updated = 0

    def refresh(tag: re.Match) -> str:
        nonlocal updated
        text = tag.group(0)
        href = re.search(r'href="?\./([^" >]+)', text)
        if not href or "integrity=" not in text:
            return text
        body = (dist / href.group(1)).read_bytes()
        digest = "sha384-" + base64.b64encode(hashlib.sha384(body).digest()).decode()
        updated += 1
        return re.sub(r'integrity="?sha384-[A-Za-z0-9+/=]+"?', f'integrity="{digest}"', text)

    html = re.sub(r"<link\b[^>]*>", refresh, html)
    index.write_text(html, encoding="utf-8")
    print(f"integrity hashes refreshed: {updated}")


if __name__ == "__main__":
    main()
