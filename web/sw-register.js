// Registers the service worker that lets a page once opened work offline (sw.js), after the page
// has loaded so that it never competes with the first view. A sandboxed frame (an embed) has no
// storage of its own and cannot register one: it simply goes without.
addEventListener('load', () => {
  try {
    navigator.serviceWorker?.register('./sw.js').catch(() => {});
  } catch {
    // No service workers here (an opaque origin, or a browser without them).
  }
});
