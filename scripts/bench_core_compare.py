"""Runs two versions' core benchmarks in turn and prints each row side by side.

Called by scripts/bench-core-compare.sh, which builds them into one folder: `A-one-key` and
`B-one-key` (benches/one_key.rs), `A-one-key.wasm` and `B-one-key.wasm` (the same file built for
WebAssembly), `A-native` and `B-native` (`cargo bench --bench simulate`), `A-wasm.wasm` and
`B-wasm.wasm` (tests/wasm_bench.rs, run in headless Chromium by wasm-bindgen-test-runner).

Instructions: valgrind's cachegrind counts what one row's program executes deciding 2N requests
and N requests (N = 100,000); the difference over N is the instructions per decision, without
the program's start and the trace's making. In WebAssembly, wasmtime's fuel counts the same way
what the module's `decide_one_key` executes, in operators: one unit each, none for `nop`, `drop`,
`block`, `loop` and `end`. Both counts are the same from run to run. The WebAssembly count needs
wasmtime's Python package (the shell script runs this one in a virtual environment with it).

Times: both benchmarks print one line per row, a label then figures in ns or ms. A row is
compared when both versions print it; the rules (`--rules`), which earlier versions lack, are
not run. For each row: the median of each version's rounds with their range, and B's median over
A's. A version's rounds alternate with the other's (A first in odd rounds, B first in even
ones), so a change in the machine's speed over the run weighs on both alike.
"""

import argparse
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

# The lines of both benchmarks, natively and as wasm-bindgen-test-runner prints the browser's
# console (which may indent them): a table's heading, then its rows.
ONE_KEY_HEADING = re.compile(r"^\s*one key, ")
MILLION_HEADING = re.compile(r"^\s*\d+ requests over \d+ keys")
# "  Token bucket      6.1 ns     38.8 ns": a row of the one-key table (verdict, full decision).
ONE_KEY_ROW = re.compile(r"^\s+(\S.*?)\s+([\d.]+) ns\s+([\d.]+) ns")
# "  Token bucket      47.6 ms  (...)": a row of the million requests over 10,000 keys.
MILLION_ROW = re.compile(r"^\s+(\S.*?)\s+([\d.]+) ms")
# The browser's million requests, on its heading's line.
MILLION_WASM = re.compile(
    r"requests over \d+ keys: the six algorithms ([\d.]+) ms, "
    r"the Durable Object emulation ([\d.]+) ms"
)


def parse(output):
    """Figures by (table, row, column) from one run's output."""
    figures = {}
    table = None
    for line in output.splitlines():
        if ONE_KEY_HEADING.match(line):
            table = "one key"
        elif MILLION_HEADING.match(line):
            table = "10,000 keys"
            wasm = MILLION_WASM.search(line)
            if wasm:
                figures[(table, "all six algorithms", "time")] = float(wasm.group(1))
                figures[(table, "Durable Object emulation", "time")] = float(wasm.group(2))
        elif table == "one key" and (row := ONE_KEY_ROW.match(line)):
            figures[(table, row.group(1), "verdict")] = float(row.group(2))
            figures[(table, row.group(1), "full decision")] = float(row.group(3))
        elif table == "10,000 keys" and (row := MILLION_ROW.match(line)):
            if row.group(1).startswith("all six,"):
                continue  # a rule: only the newer versions measure them
            figures[(table, row.group(1), "time")] = float(row.group(2))
    return figures


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")
    figures = parse(result.stdout)
    if not figures:
        sys.exit(f"{' '.join(command)} printed no figures:\n{result.stdout}")
    return figures


# valgrind's summary line, "I refs: 1,234,567" (with more spaces in some versions).
INSTRUCTIONS = re.compile(r"I\s+refs:\s+([\d,]+)")
PER_DECISION = 100_000


def instructions(program, row, mode, requests):
    """The instructions `program` executes deciding `requests` requests of `row`."""
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        program,
        row,
        mode,
        str(requests),
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    found = INSTRUCTIONS.search(result.stderr)
    if result.returncode != 0 or not found:
        sys.exit(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")
    return int(found.group(1).replace(",", ""))


class WasmOperators:
    """Counts the WebAssembly operators one version's `decide_one_key` executes."""

    FUEL = 10**15

    def __init__(self, path):
        import wasmtime  # only this count needs it

        self.wasmtime = wasmtime
        config = wasmtime.Config()
        config.consume_fuel = True
        self.engine = wasmtime.Engine(config)
        self.module = wasmtime.Module.from_file(self.engine, str(path))

    def run(self, row_index, mode, requests):
        """The operators executed deciding `requests` requests of row `row_index`, and how many
        passed, in an instance of its own."""
        store = self.wasmtime.Store(self.engine)
        store.set_fuel(self.FUEL)

        def stand_in(*_):
            raise RuntimeError("the decisions called one of wasm-bindgen's imports")

        imports = [self.wasmtime.Func(store, i.type, stand_in) for i in self.module.imports]
        instance = self.wasmtime.Instance(store, self.module, imports)
        passed = instance.exports(store)["decide_one_key"](
            store, row_index, int(mode == "full"), requests
        )
        if passed == 2**64 - 1:
            sys.exit(f"decide_one_key could not decide row {row_index}")
        return self.FUEL - store.get_fuel(), passed


def markdown_row(cells):
    return "| " + " | ".join(cells) + " |"


def count_table(title, rows, count):
    """Prints, as Markdown, each row's count per decision in both versions, verdict and full:
    `count(version, row, mode, requests)` counts what deciding `requests` requests executes."""
    table = [
        f"\n{title}\n",
        markdown_row(
            ["row"] + [f"{c}: {v}" for c in ("verdict", "full decision") for v in ("A", "B", "B/A")]
        ),
        "|" + "---|" * 7,
    ]
    for row in rows:
        print(f"[compare] {title.split(',')[0]}: {row}", file=sys.stderr)
        cells = [row]
        for mode in ("verdict", "full"):
            n = PER_DECISION
            per = {v: (count(v, row, mode, 2 * n) - count(v, row, mode, n)) / n for v in "AB"}
            cells += [f"{per['A']:.1f}", f"{per['B']:.1f}", f"{per['B'] / per['A']:.2f}"]
        table.append(markdown_row(cells))
    print("\n".join(table))


def instruction_counts(folder, label_a, label_b):
    """Prints the instructions per decision of every row both versions have, natively and in
    WebAssembly."""
    programs = {v: str(folder / f"{v}-one-key") for v in "AB"}
    rows = {
        v: subprocess.run([p, "rows"], capture_output=True, text=True, check=True)
        .stdout.splitlines()
        for v, p in programs.items()
    }
    both = [r for r in rows["A"] if r in rows["B"]]
    versions = f"A = {label_a}, B = {label_b}"
    count_table(
        f"instructions per decision, natively (valgrind), {versions}",
        both,
        lambda v, row, mode, requests: instructions(programs[v], row, mode, requests),
    )
    modules = {v: WasmOperators(folder / f"{v}-one-key.wasm") for v in "AB"}
    # The module numbers the rows as the program lists them, and both must decide alike: over
    # 3 s of the trace, the windows let 50 through and the buckets more.
    requests = 3 * PER_DECISION
    for v in "AB":
        for row in both:
            for mode in ("verdict", "full"):
                command = [programs[v], row, mode, str(requests)]
                native = subprocess.run(command, capture_output=True, text=True, check=True)
                _, passed = modules[v].run(rows[v].index(row), mode, requests)
                if native.stdout.strip() != str(passed):
                    sys.exit(
                        f"{v}: {row} ({mode}) passes {native.stdout.strip()} natively, "
                        f"{passed} in wasmtime"
                    )
    count_table(
        f"WebAssembly operators per decision (wasmtime's fuel), {versions}",
        both,
        lambda v, row, mode, requests: modules[v].run(rows[v].index(row), mode, requests)[0],
    )


def commands(folder, parts):
    found = {}
    if "native" in parts:
        found["natively"] = lambda v: [str(folder / f"{v}-native"), "--bench", "--no-rules"]
    if "wasm" in parts:
        found["in WebAssembly"] = lambda v: [
            "wasm-bindgen-test-runner",
            str(folder / f"{v}-wasm.wasm"),
            "--nocapture",
        ]
    return found


def spread(values):
    low, high = min(values), max(values)
    median = statistics.median(values)
    if len(values) == 1 or low == high:
        return f"{median:g}"
    return f"{median:g} ({low:g}-{high:g})"


def report(where, unit_of, runs, label_a, label_b):
    """Prints one table per benchmark table, as Markdown."""
    keys = [k for k in runs["A"][0] if all(k in r for v in "AB" for r in runs[v])]
    tables = defaultdict(lambda: defaultdict(dict))
    for table, row, column in keys:
        tables[table][row][column] = {
            v: [r[(table, row, column)] for r in runs[v]] for v in "AB"
        }
    rounds = len(runs["A"])
    for table, rows in tables.items():
        print(f"\n{where}, {table}: median of {rounds} rounds (range), A = {label_a}, B = {label_b}\n")
        columns = list(next(iter(rows.values())))
        head = ["row"]
        for column in columns:
            unit = unit_of[column]
            head += [f"{column}: A ({unit})", f"{column}: B ({unit})", f"{column}: B/A"]
        print(markdown_row(head))
        print("|" + "---|" * len(head))
        for row, by_column in rows.items():
            cells = [row]
            for column in columns:
                a, b = by_column[column]["A"], by_column[column]["B"]
                ratio = statistics.median(b) / statistics.median(a)
                cells += [spread(a), spread(b), f"{ratio:.2f}"]
            print(markdown_row(cells))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--parts", nargs="+", choices=["instructions", "native", "wasm"], required=True
    )
    parser.add_argument("--label-a", default="A")
    parser.add_argument("--label-b", default="B")
    args = parser.parse_args()
    unit_of = {"verdict": "ns", "full decision": "ns", "time": "ms"}
    if "instructions" in args.parts:
        instruction_counts(args.folder, args.label_a, args.label_b)
    for where, command in commands(args.folder, args.parts).items():
        runs = {"A": [], "B": []}
        for round_ in range(args.rounds):
            order = "AB" if round_ % 2 == 0 else "BA"
            for version in order:
                print(f"[compare] {where}: round {round_ + 1}, {version}", file=sys.stderr)
                runs[version].append(run(command(version)))
        report(where, unit_of, runs, args.label_a, args.label_b)


if __name__ == "__main__":
    main()
