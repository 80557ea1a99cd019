"""Gives a built site its three modules (docs/architecture.md, "Three modules").

Trunk builds the complete app (every row, the product profiles included). The other views are
served by builds of the same app with fewer Cargo features, which build-site.sh makes with
wasm-bindgen and the same wasm-opt passes:
- the first view's module, without the product profiles, the workbench and the Durable Object lab;
- the Durable Object's module, the first one's with the feature `durable` (for `do=1`).
An embed (`embed=1`) is served by the module its view needs, as any other view: the full page's
sections are left out at run time.
This script names each pair of files by its content (`ratelab-<kind>-<hash>`), replaces trunk's
loader in index.html with web/loader.js (which picks the module from the view's link and asks for
it while the page is still being parsed) given the rule's names from Rust (TABLES_JS, printed by
`cargo run --example loader_tables`: src/site.rs), and drops trunk's preload links, which would
fetch the complete module for every view.
Run after trunk and before offline.py, sri.py and csp.py.
Usage: python3 site_modules.py DIST_DIR FIRST_VIEW_DIR DURABLE_VIEW_DIR TABLES_JS
"""
import hashlib
import pathlib
import re
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The modules built besides trunk's, in the order of the arguments; each kind names its files and
# the loader's placeholders (__FIRST_JS__, __FIRST_WASM__, ...).
BUILT = ("first", "durable")


def content_name(kind: str, wasm: pathlib.Path) -> str:
    return f"ratelab-{kind}-{hashlib.sha256(wasm.read_bytes()).hexdigest()[:16]}"


def main() -> None:
    if len(sys.argv) != 3 + len(BUILT):
        sys.exit(__doc__.strip().splitlines()[-1])
    dist = pathlib.Path(sys.argv[1])
    built = dict(zip(BUILT, (pathlib.Path(a) for a in sys.argv[2:2 + len(BUILT)])))
    tables = pathlib.Path(sys.argv[2 + len(BUILT)]).read_text(encoding="utf-8")
    ours = tuple(f"ratelab-{kind}-" for kind in ("complete",) + BUILT)
    trunk_wasm = [p for p in dist.glob("ratelab-*_bg.wasm") if not p.name.startswith(ours)]
    if len(trunk_wasm) != 1:
        sys.exit(f"site_modules.py: expected trunk's one module in {dist}, found {len(trunk_wasm)}")
    trunk_js = trunk_wasm[0].with_name(trunk_wasm[0].name.replace("_bg.wasm", ".js"))
    names = {"complete": content_name("complete", trunk_wasm[0])}
    trunk_wasm[0].rename(dist / f"{names['complete']}_bg.wasm")
    trunk_js.rename(dist / f"{names['complete']}.js")
    for kind, folder in built.items():
        names[kind] = content_name(kind, folder / "ratelab_bg.wasm")
        shutil.copyfile(folder / "ratelab_bg.wasm", dist / f"{names[kind]}_bg.wasm")
        shutil.copyfile(folder / "ratelab.js", dist / f"{names[kind]}.js")

    index = dist / "index.html"
    html = index.read_text(encoding="utf-8")
    html, loaders = re.subn(r"<script type=\"?module\"?>.*?</script>", "", html, flags=re.S)
    html, links = re.subn(r"<link\b[^>]*\brel=\"?(?:modulepreload|preload)\"?[^>]*>", "", html)
    if loaders != 1 or links != 2:
        sys.exit(f"site_modules.py: trunk's loader not found as expected ({loaders} scripts, {links} preload links)")
    loader = (ROOT / "web" / "loader.js").read_text(encoding="utf-8")
    loader = "\n".join(line for line in loader.splitlines() if not line.lstrip().startswith("//"))
    loader, written = re.subn(r"/\*__LOADER_TABLES__\*/", lambda _: tables, loader)
    if written != 1 or "var FIRST_VIEW_ROWS" not in tables:
        sys.exit("site_modules.py: web/loader.js's tables were not written in")
    for kind, name in names.items():
        loader = loader.replace(f"__{kind.upper()}_JS__", f"{name}.js")
        loader = loader.replace(f"__{kind.upper()}_WASM__", f"{name}_bg.wasm")
    if re.search(r"__[A-Z]+_(?:JS|WASM)__", loader):
        sys.exit("site_modules.py: web/loader.js names a module this script does not build")
    # Before the page's style (inline, index.html): the module's request leaves as soon as the
    # loader's bytes are in, while the browser still reads the style.
    html, placed = re.subn(r"(<style\b)", lambda m: f"<script>{loader}</script>" + m.group(1), html, count=1)
    if placed != 1:
        sys.exit("site_modules.py: no <style> in index.html to place the loader before")
    index.write_text(html, encoding="utf-8")
    print("three modules: " + ", ".join(f"{name} ({kind})" for kind, name in names.items()))


if __name__ == "__main__":
    main()
