"""Gives a built site its three modules (docs/architecture.md, "Three modules").

Trunk builds the complete app (every row, the product profiles included). The first view is
served by a second build of the same app without the product profiles, the workbench and the
Durable Object lab (Cargo features off), and the Durable Object's views by a third (the first
one's with the feature `durable`), both of which build-site.sh makes with wasm-bindgen and the
same wasm-opt passes. This script names each pair of files by its content
(`ratelab-complete-<hash>`, `ratelab-durable-<hash>`, `ratelab-first-<hash>`), replaces trunk's
loader in index.html with web/loader.js (which picks the module from the view's link and asks for
it while the page is still being parsed), and drops trunk's preload links, which would fetch the
complete module for every view.
Run after trunk and before offline.py, sri.py and csp.py.
Usage: python3 two_modules.py DIST_DIR FIRST_VIEW_DIR DURABLE_VIEW_DIR
"""
import hashlib
import pathlib
import re
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def content_name(kind: str, wasm: pathlib.Path) -> str:
    return f"ratelab-{kind}-{hashlib.sha256(wasm.read_bytes()).hexdigest()[:16]}"


def main() -> None:
    dist, first, durable = (pathlib.Path(a) for a in sys.argv[1:4])
    trunk_wasm = [p for p in dist.glob("ratelab-*_bg.wasm") if not p.name.startswith(("ratelab-first-", "ratelab-durable-", "ratelab-complete-"))]
    if len(trunk_wasm) != 1:
        sys.exit(f"two_modules.py: expected trunk's one module in {dist}, found {len(trunk_wasm)}")
    trunk_js = trunk_wasm[0].with_name(trunk_wasm[0].name.replace("_bg.wasm", ".js"))
    complete = content_name("complete", trunk_wasm[0])
    trunk_wasm[0].rename(dist / f"{complete}_bg.wasm")
    trunk_js.rename(dist / f"{complete}.js")
    first_name = content_name("first", first / "ratelab_bg.wasm")
    shutil.copyfile(first / "ratelab_bg.wasm", dist / f"{first_name}_bg.wasm")
    shutil.copyfile(first / "ratelab.js", dist / f"{first_name}.js")
    durable_name = content_name("durable", durable / "ratelab_bg.wasm")
    shutil.copyfile(durable / "ratelab_bg.wasm", dist / f"{durable_name}_bg.wasm")
    shutil.copyfile(durable / "ratelab.js", dist / f"{durable_name}.js")

    index = dist / "index.html"
    html = index.read_text(encoding="utf-8")
    html, loaders = re.subn(r"<script type=\"?module\"?>.*?</script>", "", html, flags=re.S)
    html, links = re.subn(r"<link\b[^>]*\brel=\"?(?:modulepreload|preload)\"?[^>]*>", "", html)
    if loaders != 1 or links != 2:
        sys.exit(f"two_modules.py: trunk's loader not found as expected ({loaders} scripts, {links} preload links)")
    loader = (ROOT / "web" / "loader.js").read_text(encoding="utf-8")
    loader = "\n".join(line for line in loader.splitlines() if not line.lstrip().startswith("//"))
    for placeholder, value in {
        "__COMPLETE_JS__": f"{complete}.js",
        "__COMPLETE_WASM__": f"{complete}_bg.wasm",
        "__FIRST_JS__": f"{first_name}.js",
        "__FIRST_WASM__": f"{first_name}_bg.wasm",
        "__DURABLE_JS__": f"{durable_name}.js",
        "__DURABLE_WASM__": f"{durable_name}_bg.wasm",
    }.items():
        loader = loader.replace(placeholder, value)
    # Before the page's style (inline, index.html): the module's request leaves as soon as the
    # loader's bytes are in, while the browser still reads the style.
    html, placed = re.subn(r"(<style\b)", lambda m: f"<script>{loader}</script>" + m.group(1), html, count=1)
    if placed != 1:
        sys.exit("two_modules.py: no <style> in index.html to place the loader before")
    index.write_text(html, encoding="utf-8")
    print(f"three modules: {first_name} for the first view, {durable_name} for the Durable Object's views,"
          f" {complete} for views with product rows")


if __name__ == "__main__":
    main()
