"""The checks of scripts/check-snippets.sh that run in Python, one per kind of snippet:

  limits FILE...      imports each limits_example.py with the `limits` package (run in the venv
                      that has it): `limit` must be the item `limits.parse` reads from the file's
                      rate string, and the file's limiter must let `amount` hits of a fresh key
                      through and refuse the next.
  envoy FILE...       no Envoy binary installs from the package registries: each envoy.yaml must
                      parse as YAML (PyYAML, in the same venv), hold the local rate limit filter
                      before the router with its typed config's @type, a token_bucket whose
                      max_tokens and tokens_per_fill are whole numbers above 0 and whose
                      fill_interval is a protobuf Duration ("2.5s") of at least 50 ms.
  redis-cell FILE...  no redis-cell module installs from the registries: the call must be
                      `CL.THROTTLE key max_burst count period 1` with whole numbers, count and
                      period at least 1 (redis-cell's own argument checks).
  dotnet FILE...      no .NET SDK installs from the registries here: the program must use one of
                      the three limiters with its own options class, set only that class's
                      documented properties, write periods as TimeSpan.FromTicks(whole number),
                      and have balanced braces and parentheses.
Usage: python3 check_snippets.py KIND FILE...
"""
import importlib.util
import re
import sys


def fail(path: str, why: str) -> None:
    sys.exit(f"{path}: {why}")


def check_limits(path: str) -> None:
    import limits
    from limits.storage import MemoryStorage

    spec = importlib.util.spec_from_file_location("limits_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = open(path, encoding="utf-8").read()
    rate = re.search(r'parse\("([^"]+)"\)', text)
    if not rate:
        fail(path, "no parse(...) of a rate string")
    item = limits.parse(rate.group(1))
    if module.limit != item or not isinstance(module.limit, limits.RateLimitItem):
        fail(path, f"limit is {module.limit!r}, not {item!r}")
    limiter = type(module.limiter)(MemoryStorage())
    passed = [limiter.hit(item, "check") for _ in range(item.amount + 1)]
    if passed != [True] * item.amount + [False]:
        fail(path, f"{item!r} let {passed.count(True)} hits through, not {item.amount}")


def check_envoy(path: str) -> None:
    import yaml

    config = yaml.safe_load(open(path, encoding="utf-8"))
    manager = config["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0]
    filters = manager["typed_config"]["http_filters"]
    names = [f["name"] for f in filters]
    if names != ["envoy.filters.http.local_ratelimit", "envoy.filters.http.router"]:
        fail(path, f"http_filters are {names}")
    typed = filters[0]["typed_config"]
    want = "type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit"
    if typed.get("@type") != want or not typed.get("stat_prefix"):
        fail(path, "the local rate limit filter's typed_config lacks its @type or stat_prefix")
    bucket = typed["token_bucket"]
    for field in ("max_tokens", "tokens_per_fill"):
        if not isinstance(bucket.get(field), int) or bucket[field] < 1:
            fail(path, f"token_bucket.{field} is {bucket.get(field)!r}")
    interval = re.fullmatch(r"(\d+)(?:\.(\d{1,9}))?s", str(bucket.get("fill_interval")))
    if not interval:
        fail(path, f"fill_interval {bucket.get('fill_interval')!r} is no Duration")
    ms = int(interval.group(1)) * 1000 + int((interval.group(2) or "0").ljust(9, "0")) // 10**6
    if ms < 50:
        fail(path, f"fill_interval is {ms} ms; Envoy refuses less than 50 ms")
    for key in ("filter_enabled", "filter_enforced"):
        if typed[key]["default_value"] != {"numerator": 100, "denominator": "HUNDRED"}:
            fail(path, f"{key} is not 100 %")


def check_redis_cell(path: str) -> None:
    calls = [l for l in open(path, encoding="utf-8").read().splitlines() if l and not l.startswith("#")]
    if len(calls) != 1:
        fail(path, f"{len(calls)} calls, not one")
    call = re.fullmatch(r"CL\.THROTTLE (\S+) (\d+) (\d+) (\d+) 1", calls[0])
    if not call:
        fail(path, f"not CL.THROTTLE key max_burst count period 1: {calls[0]}")
    if int(call.group(3)) < 1 or int(call.group(4)) < 1:
        fail(path, "count and period must be at least 1")


DOTNET = {
    "FixedWindowRateLimiter": {"PermitLimit", "Window", "QueueLimit", "QueueProcessingOrder", "AutoReplenishment"},
    "SlidingWindowRateLimiter": {"PermitLimit", "Window", "SegmentsPerWindow", "QueueLimit", "QueueProcessingOrder", "AutoReplenishment"},
    "TokenBucketRateLimiter": {"TokenLimit", "ReplenishmentPeriod", "TokensPerPeriod", "QueueLimit", "QueueProcessingOrder", "AutoReplenishment"},
}


def check_dotnet(path: str) -> None:
    text = open(path, encoding="utf-8").read()
    made = re.search(r"new (\w+)\(new (\w+)\n\{\n(.*?)\n\}\);", text, re.S)
    if not made or made.group(1) not in DOTNET or made.group(2) != made.group(1) + "Options":
        fail(path, "no new XRateLimiter(new XRateLimiterOptions { ... })")
    for line in made.group(3).splitlines():
        setting = re.fullmatch(r"    (\w+) = (.+),(?: // .*)?", line)
        if not setting or setting.group(1) not in DOTNET[made.group(1)]:
            fail(path, f"not a property of {made.group(2)}: {line}")
        value = setting.group(2)
        ok = (
            re.fullmatch(r"\d+", value)
            or re.fullmatch(r"TimeSpan\.FromTicks\(\d+\)", value)
            or value in ("true", "false", "QueueProcessingOrder.OldestFirst", "QueueProcessingOrder.NewestFirst")
        )
        if not ok:
            fail(path, f"unexpected value: {line}")
    for open_, close in ("{}", "()"):
        if text.count(open_) != text.count(close):
            fail(path, f"unbalanced {open_}{close}")
    if "using System.Threading.RateLimiting;" not in text:
        fail(path, "no using System.Threading.RateLimiting;")


CHECKS = {"limits": check_limits, "envoy": check_envoy, "redis-cell": check_redis_cell, "dotnet": check_dotnet}

if __name__ == "__main__":
    kind, files = sys.argv[1], sys.argv[2:]
    if kind not in CHECKS or not files:
        sys.exit(__doc__)
    for file in files:
        CHECKS[kind](file)
    print(f"{kind}: {len(files)} checked")
