"""Adds a Content-Security-Policy to a built index.html.

The page has one inline script, its loader (web/loader.js), and one inline style, the
stylesheet (style/main.css, inlined by trunk); their SHA-256 hashes go into script-src and
style-src, so nothing else inline can run or apply. The page needs nothing from any other
origin: scripts, the Wasm module and its fetch all come from 'self', and WebAssembly needs
'wasm-unsafe-eval'.
The web app manifest and the offline service worker (scripts/offline.py) are the site's own.
Usage: python3 csp.py DIST_DIR
"""
import base64
import hashlib
import pathlib
import re
import sys


def hashes(bodies: list[str]) -> str:
    return " ".join("'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode() + "'" for body in bodies)


def main() -> None:
    index = pathlib.Path(sys.argv[1]) / "index.html"
    html = index.read_text(encoding="utf-8")
    scripts = re.findall(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", html, flags=re.S)
    styles = re.findall(r"<style\b[^>]*>(.*?)</style>", html, flags=re.S)
    if not styles:
        sys.exit("csp.py: no inline <style> in index.html (trunk inlines style/main.css)")
    policy = "; ".join(
        [
            "default-src 'none'",
            f"script-src 'self' 'wasm-unsafe-eval' {hashes(scripts)}".strip(),
            f"style-src {hashes(styles)}",
            "img-src 'self' data:",
            "connect-src 'self'",
            "manifest-src 'self'",
            "worker-src 'self'",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}" />'
    html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>\s*', "", html)
    # After the charset declaration (written either way, minified or not), before anything that loads.
    html, placed = re.subn(r'(<meta charset="?utf-8"?\s*/?>)', lambda m: m.group(1) + meta, html, count=1, flags=re.I)
    if placed != 1:
        sys.exit("csp.py: no <meta charset> in index.html to place the policy after")
    index.write_text(html, encoding="utf-8")
    # Hosts that read a `_headers` file (Cloudflare Pages, Netlify) also send the policy as a
    # header; the others ignore the file.
    headers = "\n".join(
        [
            "/*",
            f"  Content-Security-Policy: {policy}",
            "  X-Content-Type-Options: nosniff",
            "  Access-Control-Allow-Origin: *",
            "/*.wasm",
            "  Content-Type: application/wasm",
            "",
        ]
    )
    (index.parent / "_headers").write_text(headers, encoding="utf-8")
    print(f"Content-Security-Policy set: {len(scripts)} inline script(s) and {len(styles)} style(s) allowed by hash")


if __name__ == "__main__":
    main()
