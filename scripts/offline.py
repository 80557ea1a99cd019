"""Makes a built site work offline once opened: adds the web app manifest, its icon and the
service worker (web/) to DIST_DIR, writes into the worker the list of the site's files and a
version (a hash of those files, so a new deploy replaces the old copy), and links the manifest
and the worker's registration from index.html. Run after the files it lists are final and
before sri.py and csp.py.
Usage: python3 offline.py DIST_DIR
"""
import hashlib
import json
import pathlib
import re
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
WEB = ROOT / "web"
COPIED = ["manifest.webmanifest", "icon.svg", "sw-register.js"]


def main() -> None:
    dist = pathlib.Path(sys.argv[1])
    for name in COPIED:
        shutil.copyfile(WEB / name, dist / name)
    index = dist / "index.html"
    html = index.read_text(encoding="utf-8")
    tags = '<link rel="manifest" href="./manifest.webmanifest"><link rel="icon" href="./icon.svg" type="image/svg+xml"><script src="./sw-register.js" defer></script>'
    html = re.sub(r'<link[^>]*rel="?icon"?[^>]*>', "", html)
    html, placed = re.subn(r"</head>", tags + "</head>", html, count=1, flags=re.I)
    if placed != 1:
        sys.exit("offline.py: no </head> in index.html")
    index.write_text(html, encoding="utf-8")

    files = sorted(p.name for p in dist.iterdir() if p.is_file() and p.name != "sw.js")
    digest = hashlib.sha256()
    for name in files:
        digest.update(name.encode())
        digest.update((dist / name).read_bytes())
    # "./" is the page itself as a person opens it; index.html is the same file by its name.
    worker = (WEB / "sw.js").read_text(encoding="utf-8")
    worker = worker.replace("'__VERSION__'", json.dumps(digest.hexdigest()[:16]))
    worker = worker.replace("__FILES__", json.dumps(["./"] + files))
    (dist / "sw.js").write_text(worker, encoding="utf-8")
    print(f"offline: service worker keeps {len(files) + 1} files")


if __name__ == "__main__":
    main()
