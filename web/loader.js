// Starts the lab: picks the module this view needs, asks for it at once, then runs it, or says
// why it could not. Placed inline in index.html by scripts/site_modules.py, as the page's first
// script and before the page's style, so nothing waits for it.
// The first view's module has the six algorithms and everything else but the product profiles
// and the controls of copies, a second limit, the counting rules and obeying clients; a view
// whose `algos=` names any other row, or whose link sets one of those rules, opens a question
// (`q=`) or splits the rows by key (`lanes=key`), gets the complete module, as does a link
// naming a trace this browser keeps (`trace=stored:<id>`, or `stored` alone in earlier links),
// or longer than the links the page writes, counted in the link's characters (QUERY_CHARS,
// `MAX_QUERY_CHARS`, the query after its `?`: the page keeps the traffic that made it long and
// names it instead; only the complete module keeps and reads traces), and a module asked to
// open what only the complete one has (`ratelabSwitch` with a section: no reload).
// A view showing the Durable Object (`do=1`) gets the Durable Object's module: the first one's
// with the Durable Object lab. An embed (`embed=1`) gets the module its view needs, as any view,
// and leaves out the full page's sections when it runs; its header takes the embed's sizes here.
// (docs/architecture.md, "Three modules".) The rule is written once, in Rust (src/site.rs,
// `site::module_for`); this script has its shape and is given its names when the site is built.
// A test (tests/site_modules.rs) runs this script on a corpus of links against the Rust rule.
(function () {
  // The rule's names, written in from src/site.rs (`site::loader_tables`) when the site is
  // built: ROWS_FIELD, FIRST_VIEW_ROWS, RULE_FIELDS, QUESTION_FIELDS, LANES_FIELD, LANES_BY_KEY,
  // TRACE_FIELD, KEPT_TRACE, QUERY_CHARS, DURABLE_FIELD and EMBED_FIELD.
  /*__LOADER_TABLES__*/
  // The module running the page (a key of FILES), once one is asked for, and whether a running
  // module asked for another.
  var running = null;
  var switching = false;
  var query = new URLSearchParams(location.search);
  var embed = (query.get(EMBED_FIELD) || "").trim() == "1";
  // An embed's header is smaller (style/main.css): the one index.html shows while the module
  // arrives takes the embed's sizes when the root says so.
  if (embed) document.documentElement.setAttribute("data-embed", "");

  // The module the page's address needs; `asked` (a section of the complete module to open, or
  // a file dropped) asks for the complete one.
  function pick(asked) {
    var query = new URLSearchParams(location.search);
    var rows = (query.get(ROWS_FIELD) || "").split(",");
    var trace = (query.get(TRACE_FIELD) || "").trim();
    var complete = asked != null || query.get(LANES_FIELD) == LANES_BY_KEY
      || trace == KEPT_TRACE || trace.indexOf(KEPT_TRACE + ":") == 0
      || location.search.length - 1 > QUERY_CHARS || RULE_FIELDS.concat(QUESTION_FIELDS).some(function (field) {
      return query.has(field);
    }) || rows.some(function (row) {
      row = row.trim();
      return row != "" && FIRST_VIEW_ROWS.indexOf(row) < 0;
    });
    // The Durable Object lab is in the Durable Object's module (the first one's and the lab) and
    // in the complete one.
    var durable = !complete && query.has(DURABLE_FIELD) && query.get(DURABLE_FIELD).trim() != "0";
    return complete ? "COMPLETE" : durable ? "DURABLE" : "FIRST";
  }
  var FILES = {
    FIRST: ["./__FIRST_JS__", "./__FIRST_WASM__"],
    DURABLE: ["./__DURABLE_JS__", "./__DURABLE_WASM__"],
    COMPLETE: ["./__COMPLETE_JS__", "./__COMPLETE_WASM__"]
  };

  // Asks for a module's files and runs it: its start retires the module running the page, if
  // one is (src/ui/module_swap.rs), and mounts itself.
  function load(kind) {
    running = kind;
    var js = FILES[kind][0], wasm = FILES[kind][1];
    // Asked for here rather than by wasm-bindgen's glue once that has arrived: the module is
    // most of what the page waits for, and its request leaves now, in parallel with the glue's.
    var moduleResponse = fetch(wasm).then(function (response) {
      if (!response.ok) throw new Error(wasm + ": " + response.status);
      return response;
    });
    moduleResponse.catch(couldNotLoad);
    import(js).then(function (bindings) {
      return bindings.default({ module_or_path: moduleResponse }).then(function () {
        window.wasmBindings = bindings;
        // Named once the module's start has run: until then the module before still runs the
        // page, and what its page says (`body[data-complete]`) is not the new one's.
        document.documentElement.setAttribute("data-module", kind.toLowerCase());
      });
    }, couldNotLoad);
  }

  // Called by a running module whose view needs what it lacks, once the address holds that
  // view: brings the module the address needs in place of the running one, without a reload.
  // `asked` names a section to open there (`window.ratelabAsked`, src/ui/workbench.rs). False
  // when the running module is the one the address needs.
  window.ratelabSwitch = function (asked) {
    var kind = pick(asked);
    if (kind == running) return false;
    if (asked != null) window.ratelabAsked = asked;
    switching = true;
    load(kind);
    return true;
  };

  // A file dropped on a page whose module cannot read files (every module but the complete one)
  // brings the complete module, which takes it as if it had been dropped there
  // (`window.ratelabDropped`, src/ui/view_file.rs). An embed only keeps the browser from leaving
  // the page for the file.
  addEventListener("dragover", function (e) {
    if (running != "COMPLETE") e.preventDefault();
  });
  addEventListener("drop", function (e) {
    if (running == "COMPLETE") return;
    e.preventDefault();
    var file = e.dataTransfer && e.dataTransfer.files[0];
    if (!file || embed) return;
    window.ratelabDropped = Promise.resolve(file);
    window.ratelabSwitch("dropped-file");
  });

  load(pick(null));

  // Says why the page stays blank when the lab's own files do not load (README, "Share and
  // embed"): a sandboxed frame without allow-same-origin, on a host that allows no other origin,
  // cannot fetch them.
  function couldNotLoad() {
    if (!document.body) {
      addEventListener("DOMContentLoaded", couldNotLoad);
      return;
    }
    // A module that could not replace the running one leaves that page as it is, and says so.
    if ((window.wasmBindings && !switching) || document.getElementById("load-failed")) return;
    var p = document.createElement("p");
    p.id = "load-failed";
    p.setAttribute("role", "alert");
    p.textContent = "Rate Limit Lab could not load its files" + (origin == "null"
      ? ": this frame is sandboxed without allow-same-origin, and this host sends no Access-Control-Allow-Origin header. Add allow-same-origin to the frame's sandbox (the lab's own snippet has it), or open the lab on its own page."
      : ". Check the connection, then reload.");
    document.body.append(p);
  }
})();
