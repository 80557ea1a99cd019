// Registers the service worker that lets a page once opened work offline (sw.js). It waits until
// the lab has built its whole page (`data-complete` on <body>): installing, the worker copies every
// module of the site, and on a slow connection that copy would compete with the module the first
// view is still receiving. A sandboxed frame (an embed) has no storage of its own and cannot
// register one: it simply goes without.
function ratelabRegisterWorker() {
  try {
    navigator.serviceWorker?.register('./sw.js').catch(() => {});
  } catch {
    // No service workers here (an opaque origin, or a browser without them).
  }
}
if (document.body.dataset.complete === 'true') {
  ratelabRegisterWorker();
} else {
  const untilComplete = new MutationObserver(() => {
    if (document.body.dataset.complete === 'true') {
      untilComplete.disconnect();
      ratelabRegisterWorker();
    }
  });
  untilComplete.observe(document.body, { attributes: true, attributeFilter: ['data-complete'] });
}
