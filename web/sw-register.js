// Registers the service worker that lets a page once opened work offline (sw.js). It waits until
// the lab has built its whole page (`data-complete` on <body>): installing, the worker copies every
// module of the site, and on a slow connection that copy would compete with the module the first
// view is still receiving. An embed (the root marked `data-embed` by web/loader.js) does not
// register it: a reader of a page that embeds the lab would otherwise copy every module (about
// 1.2 MB) for a lab they only glanced at; the lab on its own page keeps them. A sandboxed frame
// has no storage of its own and could not register one anyway.
function ratelabRegisterWorker() {
  if (document.documentElement.hasAttribute('data-embed')) return;
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
