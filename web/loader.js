// Starts the lab: picks the module this view needs, asks for it at once, then runs it. Placed
// inline in index.html by scripts/two_modules.py, before the stylesheet, so nothing waits for it.
// The first view's module has the six algorithms and everything else but the product profiles
// and the controls of copies, a second limit and the counting rules; a view whose `algos=` names
// any other row, or whose link sets one of those rules or splits the rows by key (`lanes=key`),
// gets the complete module, as does a page the first module reloaded to open those controls
// (sessionStorage "ratelab-complete").
// (docs/architecture.md, "Two modules".) FIRST_VIEW_ROWS is `Algorithm::CORE` and RULE_FIELDS
// the URL table's fields of the rules (a test checks that they agree).
(function () {
  var FIRST_VIEW_ROWS = ["fixed", "sliding-log", "sliding-counter", "token-bucket", "gcra", "leaky-bucket"];
  var RULE_FIELDS = ["fixed-align", "count-refused", "instances", "spread", "also", "also-key", "spend"];
  var query = new URLSearchParams(location.search);
  var rows = (query.get("algos") || "").split(",");
  var asked = false;
  try {
    asked = sessionStorage.getItem("ratelab-complete") != null;
  } catch (e) {
    // No storage (a sandboxed frame): only the address decides.
  }
  var complete = asked || query.get("lanes") == "key" || RULE_FIELDS.some(function (field) {
    return query.has(field);
  }) || rows.some(function (row) {
    row = row.trim();
    return row != "" && FIRST_VIEW_ROWS.indexOf(row) < 0;
  });
  var js = complete ? "./__COMPLETE_JS__" : "./__FIRST_JS__";
  var wasm = complete ? "./__COMPLETE_WASM__" : "./__FIRST_WASM__";
  var preload = document.createElement("link");
  preload.rel = "preload";
  preload.as = "fetch";
  preload.type = "application/wasm";
  preload.crossOrigin = "";
  preload.href = wasm;
  document.head.append(preload);
  import(js).then(function (bindings) {
    return bindings.default({ module_or_path: wasm }).then(function () {
      window.wasmBindings = bindings;
    });
  }, ratelabCouldNotLoad);
})();
