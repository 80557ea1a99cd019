"""Makes the Wasm module and its wasm-bindgen JavaScript glue smaller, without changing what runs.

Run on a trunk-built site folder, after trunk and before the JavaScript is minified:

1. Leptos always links `server_fn`, whose browser streams (`wasm-streams`) export three classes
   (IntoUnderlyingSource, IntoUnderlyingByteSource, IntoUnderlyingSink) that nothing on this page
   uses. Their exports and JavaScript classes go, and wasm-opt drops the code only they reached.
2. Every import and export between the module and its glue has a long name, most with a random
   hash (`__wbg_setAttribute_1a2b3c4d5e6f7a8b`), written once in the module and once in the glue,
   where a minifier cannot shorten it (it is a property name). Each gets a short name in both.
3. Custom sections the browser ignores (producers, target features) are dropped; the glue loses
   initSync and trunk's loader in index.html only starts the module (no window.wasmBindings,
   no "TrunkApplicationStarted" event: nothing here uses them).

Every step checks what it expects to find and stops the build when it does not, so a new
wasm-bindgen output shape fails loudly instead of shipping a broken page.
Usage: python3 slim_glue.py DIST_DIR
"""
import pathlib
import re
import subprocess
import sys
import tempfile

# The passes trunk runs (index.html: data-wasm-opt="s", data-wasm-opt-params, which add -g so
# that the names reach this script).
WASM_OPT = ("-Os", "--converge", "--low-memory-unused", "--one-caller-inline-max-function-size=30")

# Exported classes nothing on the page uses (wasm-streams, linked by Leptos through server_fn).
UNUSED_CLASSES = ("IntoUnderlyingByteSource", "IntoUnderlyingSink", "IntoUnderlyingSource")

# What serves only those classes: their own code, and the promises their methods return
# (`js_sys::futures::future_to_promise`, which no other crate this page links calls: the only
# other callers, `#[wasm_bindgen]` async functions, exist in tests only). The closures inside
# `future_to_promise` are generic over the stream's future and inline its code, so their names do
# not say `wasm_streams`.
STREAM_CODE = ("wasm_streams", "future_to_promise")


def fail(message: str) -> None:
    sys.exit(f"slim_glue.py: {message}")


def read_leb(data: bytes, i: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, i


def leb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def name_bytes(name: str) -> bytes:
    raw = name.encode("utf-8")
    return leb(len(raw)) + raw


def read_name(data: bytes, i: int) -> tuple[str, int]:
    length, i = read_leb(data, i)
    return data[i : i + length].decode("utf-8"), i + length


def sections(module: bytes) -> list[tuple[int, bytes]]:
    if module[:8] != b"\0asm\1\0\0\0":
        fail("not a Wasm module (version 1)")
    out, i = [], 8
    while i < len(module):
        sid = module[i]
        size, j = read_leb(module, i + 1)
        out.append((sid, module[j : j + size]))
        i = j + size
    return out


def assemble(parts: list[tuple[int, bytes]]) -> bytes:
    return b"\0asm\1\0\0\0" + b"".join(bytes([sid]) + leb(len(body)) + body for sid, body in parts)


def limits_end(data: bytes, i: int) -> int:
    flags = data[i]
    _, i = read_leb(data, i + 1)
    if flags & 1:
        _, i = read_leb(data, i)
    return i


def parse_imports(body: bytes) -> list[tuple[str, str, bytes]]:
    count, i = read_leb(body, 0)
    out = []
    for _ in range(count):
        module, i = read_name(body, i)
        field, i = read_name(body, i)
        start, kind = i, body[i]
        i += 1
        if kind == 0:  # function: type index
            _, i = read_leb(body, i)
        elif kind == 1:  # table: reference type, limits
            i = limits_end(body, i + 1)
        elif kind == 2:  # memory: limits
            i = limits_end(body, i)
        elif kind == 3:  # global: value type, mutability
            i += 2
        else:
            fail(f"import {module}.{field} of an unknown kind {kind}")
        out.append((module, field, body[start:i]))
    return out


def parse_exports(body: bytes) -> list[tuple[str, bytes]]:
    count, i = read_leb(body, 0)
    out = []
    for _ in range(count):
        name, i = read_name(body, i)
        start = i
        _, i = read_leb(body, i + 1)
        out.append((name, body[start:i]))
    return out


def section(parts: list[tuple[int, bytes]], sid: int) -> bytes:
    found = [body for s, body in parts if s == sid]
    if len(found) != 1:
        fail(f"expected one section {sid}, found {len(found)}")
    return found[0]


def replace_section(parts: list[tuple[int, bytes]], sid: int, body: bytes) -> list[tuple[int, bytes]]:
    return [(s, body if s == sid else b) for s, b in parts]


def short_names(taken: set[str]):
    """a, b, ... Z, aa, ab, ...: valid JavaScript property names, none already in use."""
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    n = 0
    while True:
        name, k = "", n
        while True:
            name = letters[k % len(letters)] + name
            k = k // len(letters) - 1
            if k < 0:
                break
        n += 1
        if name not in taken:
            yield name


def remove_unused_classes(js: str) -> str:
    for cls in UNUSED_CLASSES:
        block = re.compile(r"^export class " + cls + r" \{\n.*?^\}\n", re.S | re.M)
        js, n = block.subn("", js)
        dispose = f"if (Symbol.dispose) {cls}.prototype[Symbol.dispose] = {cls}.prototype.free;\n"
        m = js.count(dispose)
        js = js.replace(dispose, "")
        registry = re.compile(r"^const " + cls + r"Finalization = .*?;\n", re.S | re.M)
        js, r = registry.subn("", js)
        if (n, m, r) != (1, 1, 1):
            fail(f"the glue's class {cls} is not shaped as expected ({n}, {m}, {r})")
    if re.search("intounderlying", js, re.I):
        fail("the glue still mentions an unused class after removing it")
    return js


def drop_import_entries(js: str, keep: set[str]) -> str:
    """Removes the glue's import functions the module no longer imports."""
    start = js.find("function __wbg_get_imports() {")
    if start < 0:
        fail("no __wbg_get_imports in the glue")
    lines = js[start:].split("\n")
    out, skipping, seen = [], False, set()
    entry = re.compile(r"^        ([A-Za-z0-9_$]+): function\(")
    for line in lines:
        if skipping:
            if line in ("        },", "        }, arguments); },"):
                skipping = False
            elif line.startswith("        ") and not line.startswith("         ") and line.strip() != "":
                fail(f"unexpected line in an import entry: {line!r}")
            continue
        m = entry.match(line)
        if m:
            seen.add(m.group(1))
            single = line.endswith("},") and line.count("{") == line.count("}")
            if m.group(1) not in keep:
                skipping = not single
                continue
        out.append(line)
        if line.startswith("    return {"):
            # The rest of the file after the import object is copied as it is.
            index = lines.index(line)
            out.extend(lines[index + 1 :])
            break
    else:
        fail("the glue's import object has no end")
    missing = keep - seen
    if missing:
        fail(f"the module imports functions the glue does not define: {sorted(missing)[:5]}")
    return js[:start] + "\n".join(out)


def function_names(parts: list[tuple[int, bytes]]) -> dict[int, str]:
    """Function index -> name, from the module's name section (empty without one)."""
    names: dict[int, str] = {}
    for sid, body in parts:
        if sid != 0:
            continue
        title, i = read_name(body, 0)
        if title != "name":
            continue
        while i < len(body):
            sub = body[i]
            size, i = read_leb(body, i + 1)
            end = i + size
            if sub == 1:
                count, k = read_leb(body, i)
                for _ in range(count):
                    index, k = read_leb(body, k)
                    names[index], k = read_name(body, k)
            i = end
    return names


def direct_calls(module: bytes) -> list[set[str]]:
    """For each function (imports first, in index order), the names of the functions it calls
    directly, read from binaryen's text form of the module (wasm-dis prints the name section)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp) / "in.wasm"
        src.write_bytes(module)
        text = subprocess.run(["wasm-dis", str(src)], check=True, capture_output=True, text=True).stdout
    out: list[set[str]] = []
    name = r'(\$"(?:[^"\\]|\\.)*"|\$[^\s()]+)'
    for line in text.split("\n"):
        if line.startswith(" (import ") and " (func " in line:
            out.append(set())
        elif line.startswith(" (func "):
            out.append(set())
        elif out and line.startswith("  "):
            for m in re.finditer(r"\((?:call|return_call) " + name, line):
                out[-1].add(m.group(1).strip("$").strip('"'))
    return out


def drop_dead_table_entries(module: bytes, markers: tuple[str, ...]) -> tuple[bytes, int]:
    """Points the function-table entries that only serve `markers`' code (their name, or the
    name of a function they call directly, holds a marker) at a function that traps, so
    wasm-opt can drop them. Such entries are reached only through values of those types, which
    nothing creates once their exports are gone (checked by the caller after optimising)."""
    parts = sections(module)
    names = function_names(parts)
    if not names:
        fail("the module has no name section (trunk's wasm-opt must keep names: -g)")
    element = section(parts, 9)
    count, i = read_leb(element, 0)
    flags, i = read_leb(element, i)
    if count != 1 or flags != 0 or element[i] != 0x41:
        fail("the function table is not one active segment at a constant offset")
    offset, i = read_leb(element, i + 1)
    if element[i] != 0x0B:
        fail("the function table's offset is not a plain constant")
    length, i = read_leb(element, i + 1)
    entries = []
    for _ in range(length):
        f, i = read_leb(element, i)
        entries.append(f)
    calls = direct_calls(module)
    imported = sum(1 for _, _, d in parse_imports(section(parts, 2)) if d[0] == 0)
    functions = section(parts, 3)
    defined, j = read_leb(functions, 0)
    if len(calls) != imported + defined:
        fail(f"wasm-dis listed {len(calls)} functions, the module has {imported + defined}")

    def dead(f: int) -> bool:
        return any(m in names.get(f, "") or any(m in callee for callee in calls[f]) for m in markers)

    stub = imported + defined
    doomed = {f for f in entries if dead(f)}
    if not doomed:
        return module, 0
    # The trap: a new function of type () -> (), whose body is `unreachable`.
    types = section(parts, 1)
    type_count, k = read_leb(types, 0)
    unit = None
    for t in range(type_count):
        if types[k] != 0x60:
            fail("a type that is not a function type")
        params, k = read_leb(types, k + 1)
        k += params
        results, k = read_leb(types, k)
        k += results
        if params == 0 and results == 0 and unit is None:
            unit = t
    if unit is None:
        unit = type_count
        parts = replace_section(parts, 1, leb(type_count + 1) + types[len(leb(type_count)) :] + b"\x60\x00\x00")
    parts = replace_section(parts, 3, leb(defined + 1) + functions[j:] + leb(unit))
    code = section(parts, 10)
    bodies, k = read_leb(code, 0)
    parts = replace_section(parts, 10, leb(bodies + 1) + code[k:] + b"\x03\x00\x00\x0b")
    table = [stub if f in doomed else f for f in entries]
    body = leb(1) + leb(0) + b"\x41" + leb(offset) + b"\x0b" + leb(len(table)) + b"".join(leb(f) for f in table)
    parts = replace_section(parts, 9, body)
    return assemble(parts), len(doomed)


def wasm_opt(module: bytes, *flags: str) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = pathlib.Path(tmp) / "in.wasm", pathlib.Path(tmp) / "out.wasm"
        src.write_bytes(module)
        subprocess.run(["wasm-opt", *WASM_OPT, *flags, str(src), "-o", str(dst)], check=True)
        return dst.read_bytes()


def main() -> None:
    dist = pathlib.Path(sys.argv[1])
    wasms, scripts = list(dist.glob("*_bg.wasm")), [p for p in dist.glob("*.js")]
    if len(wasms) != 1 or len(scripts) != 1:
        fail(f"expected one .wasm and one .js in {dist}")
    wasm_path, js_path = wasms[0], scripts[0]
    module, js = wasm_path.read_bytes(), js_path.read_text(encoding="utf-8")
    before = len(module) + len(js.encode())

    # 1. The unused stream classes: their exports, their glue, then the code only they reached.
    parts = sections(module)
    exports = parse_exports(section(parts, 7))
    doomed = 0
    unused = [n for n, _ in exports if re.fullmatch(r"(__wbg_)?intounderlying[a-z]*(_[A-Za-z]+)?", n)]
    if unused:
        kept = [(n, d) for n, d in exports if n not in unused]
        body = leb(len(kept)) + b"".join(name_bytes(n) + d for n, d in kept)
        module = assemble(replace_section(parts, 7, body))
        js = remove_unused_classes(js)
        module, doomed = drop_dead_table_entries(module, STREAM_CODE)
        # -g keeps the names for the check; the custom sections go at the end.
        module = wasm_opt(module, "-g")
        left = sorted(n for n in function_names(sections(module)).values() if any(m in n for m in STREAM_CODE))
        if left:
            fail(f"code of the stream classes is still reachable: {left[:3]}")

    # 2. Short names for every import and export, in the module and the glue alike.
    parts = sections(module)
    imports = parse_imports(section(parts, 2))
    exports = parse_exports(section(parts, 7))
    modules = {m for m, _, _ in imports}
    if len(modules) != 1:
        fail(f"expected the imports to come from one module, found {sorted(modules)}")
    (glue_module,) = modules
    imported = {f for _, f, _ in imports}
    js = drop_import_entries(js, imported)

    keep_as_is = {"memory", "main"}
    renames: dict[str, str] = {}
    names = short_names(keep_as_is | {"do", "if", "in"})
    for old in [f for _, f, _ in imports] + [n for n, _ in exports]:
        if old not in keep_as_is and old not in renames:
            renames[old] = next(names)
    for old, new in renames.items():
        pattern = re.compile(r"(?<![A-Za-z0-9_$])" + re.escape(old) + r"(?![A-Za-z0-9_$])")
        js, count = pattern.subn(new, js)
        if count == 0 and old in imported:
            fail(f"the module imports {old}, which the glue does not name")
    quoted = f'"{glue_module}"'
    if js.count(quoted) != 1:
        fail(f"the glue names the import module {quoted} {js.count(quoted)} times, not once")
    js = js.replace(quoted, '"a"')
    body = leb(len(imports)) + b"".join(name_bytes("a") + name_bytes(renames[f]) + d for _, f, d in imports)
    parts = replace_section(parts, 2, body)
    body = leb(len(exports)) + b"".join(name_bytes(renames.get(n, n)) + d for n, d in exports)
    parts = replace_section(parts, 7, body)

    # 3. The page starts the module asynchronously (index.html's loader): initSync goes.
    exports_line = "export { initSync, __wbg_init as default };"
    if js.count(exports_line) != 1:
        fail("the glue's exports are not shaped as expected")
    js = js.replace(exports_line, "export { __wbg_init as default };")

    # 4. No custom sections: the browser reads none of them.
    parts = [(s, b) for s, b in parts if s != 0]

    # 5. Trunk's loader also hands the bindings to `window.wasmBindings` and announces
    # "TrunkApplicationStarted", which nothing here listens to: it only starts the module.
    index = dist / "index.html"
    html = index.read_text(encoding="utf-8")
    loader = re.compile(
        r"<script type=\"?module\"?>import init, \* as bindings from '(\./[^']+\.js)';\s*"
        r"const wasm = await init\(\{ module_or_path: '(\./[^']+\.wasm)' \}\);\s*"
        r"window\.wasmBindings = bindings;\s*"
        r"dispatchEvent\(new CustomEvent\(\"TrunkApplicationStarted\", \{detail: \{wasm\}\}\)\);</script>"
    )
    html, n = loader.subn(lambda m: f"<script type=module>import init from '{m.group(1)}';init({{module_or_path:'{m.group(2)}'}})</script>", html)
    if n != 1:
        fail("index.html has no loader script of the expected shape")
    index.write_text(html, encoding="utf-8")

    module = assemble(parts)
    wasm_path.write_bytes(module)
    js_path.write_text(js, encoding="utf-8")
    after = len(module) + len(js.encode())
    print(
        f"slim_glue: {len(renames)} names shortened, {len(unused)} unused exports and {doomed} table entries"
        f" removed, {before - after} bytes less"
    )


if __name__ == "__main__":
    main()
