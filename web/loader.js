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
// names it instead; only the complete module keeps and reads traces), and a page the first
// module reloaded to open those controls (sessionStorage "ratelab-complete").
// A view showing the Durable Object (`do=1`) gets the Durable Object's module: the first one's
// with the Durable Object lab. An embed (`embed=1`) gets the module its view needs, as any view,
// and leaves out the full page's sections when it runs; its header takes the embed's sizes here.
// (docs/architecture.md, "Three modules".) FIRST_VIEW_ROWS is `Algorithm::CORE`, RULE_FIELDS the
// URL table's fields of the rules, QUESTION_FIELDS its question's, DURABLE_FIELD the one that
// shows the Durable Object and EMBED_FIELD the one that makes the page an embed (a test,
// tests/site_modules.rs, checks that they agree, and runs this script on a corpus of links
// against the same rule in Rust, src/site.rs).
(function () {
  var FIRST_VIEW_ROWS = ["fixed", "sliding-log", "sliding-counter", "token-bucket", "gcra", "leaky-bucket"];
  var RULE_FIELDS = ["fixed-align", "count-refused", "instances", "spread", "also", "also-key", "spend", "clients", "retries"];
  var QUESTION_FIELDS = ["q"];
  var DURABLE_FIELD = "do";
  var EMBED_FIELD = "embed";
  var query = new URLSearchParams(location.search);
  var KEPT_TRACE = "stored";
  var QUERY_CHARS = 1800;
  var rows = (query.get("algos") || "").split(",");
  var trace = (query.get("trace") || "").trim();
  var asked = null;
  try {
    asked = sessionStorage.getItem("ratelab-complete");
  } catch (e) {
    // No storage (a sandboxed frame): only the address decides.
  }
  var complete = asked != null || query.get("lanes") == "key"
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
  var embed = (query.get(EMBED_FIELD) || "").trim() == "1";
  // An embed's header is smaller (style/main.css): the one index.html shows while the module
  // arrives takes the embed's sizes when the root says so.
  if (embed) document.documentElement.setAttribute("data-embed", "");
  // A file dropped on a page whose module cannot read files (every module but the complete one)
  // is kept in IndexedDB over a reload into the complete module, which takes it as if it had
  // been dropped there (`window.ratelabDropped`, src/ui/view_file.rs). An embed only keeps the
  // browser from leaving the page for the file.
  var DROPPED = "dropped-file";
  if (!complete) {
    addEventListener("dragover", function (e) { e.preventDefault(); });
    addEventListener("drop", function (e) {
      e.preventDefault();
      var file = e.dataTransfer && e.dataTransfer.files[0];
      if (!file || embed) return;
      droppedFiles("readwrite", function (store) { store.put(file, DROPPED); }).then(function () {
        sessionStorage.setItem("ratelab-complete", DROPPED);
        location.reload();
      }).catch(function () {
        // No IndexedDB or no storage here (a sandboxed frame): the page stays as it was.
      });
    });
  } else if (asked == DROPPED) {
    sessionStorage.removeItem("ratelab-complete");
    window.ratelabDropped = droppedFiles("readwrite", function (store) {
      var read = store.get(DROPPED);
      store.delete(DROPPED);
      return read;
    }).then(function (read) { return read.result || null; });
  }
  // Runs `use` on the kept files' store in one transaction; resolves with what it returned once
  // the transaction is done.
  function droppedFiles(mode, use) {
    return new Promise(function (resolve, reject) {
      var open = indexedDB.open("ratelab-dropped", 1);
      open.onupgradeneeded = function () { open.result.createObjectStore("files"); };
      open.onerror = reject;
      open.onsuccess = function () {
        var db = open.result;
        var tx = db.transaction("files", mode);
        var request = use(tx.objectStore("files"));
        tx.oncomplete = function () { db.close(); resolve(request); };
        tx.onerror = tx.onabort = reject;
      };
    });
  }
  var js = complete ? "./__COMPLETE_JS__" : durable ? "./__DURABLE_JS__" : "./__FIRST_JS__";
  var wasm = complete ? "./__COMPLETE_WASM__" : durable ? "./__DURABLE_WASM__" : "./__FIRST_WASM__";
  // Asked for here rather than by wasm-bindgen's glue once that has arrived: the module is most
  // of what the page waits for, and its request leaves now, in parallel with the glue's.
  var moduleResponse = fetch(wasm).then(function (response) {
    if (!response.ok) throw new Error(wasm + ": " + response.status);
    return response;
  });
  moduleResponse.catch(couldNotLoad);
  import(js).then(function (bindings) {
    return bindings.default({ module_or_path: moduleResponse }).then(function () {
      window.wasmBindings = bindings;
    });
  }, couldNotLoad);

  // Says why the page stays blank when the lab's own files do not load (README, "Share and
  // embed"): a sandboxed frame without allow-same-origin, on a host that allows no other origin,
  // cannot fetch them.
  function couldNotLoad() {
    if (!document.body) {
      addEventListener("DOMContentLoaded", couldNotLoad);
      return;
    }
    if (window.wasmBindings || document.getElementById("load-failed")) return;
    var p = document.createElement("p");
    p.id = "load-failed";
    p.setAttribute("role", "alert");
    p.textContent = "Rate Limit Lab could not load its files" + (origin == "null"
      ? ": this frame is sandboxed without allow-same-origin, and this host sends no Access-Control-Allow-Origin header. Add allow-same-origin to the frame's sandbox (the lab's own snippet has it), or open the lab on its own page."
      : ". Check the connection, then reload.");
    document.body.append(p);
  }
})();
