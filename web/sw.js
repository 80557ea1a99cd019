// Rate Limit Lab's service worker: keeps the site's own files, so a page once opened works
// offline (for talks and trains). Network first: online, every request goes to the server as if
// this worker were not here, so a new deploy is seen at once; offline, the copy kept at install
// answers. It never asks another origin for anything.
//
// scripts/offline.py writes the two lists below when the site is built.
const VERSION = '__VERSION__';
const FILES = __FILES__;
const CACHE = `ratelab-${VERSION}`;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(FILES.map((file) => new URL(file, self.registration.scope).href)))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('ratelab-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) {
    return;
  }
  // A page's address carries its whole state in the query; offline, any query opens the kept page.
  const kept = () =>
    caches
      .open(CACHE)
      .then((cache) => cache.match(request, { ignoreSearch: request.mode === 'navigate' }))
      .then((hit) => hit || Response.error());
  event.respondWith(fetch(request).catch(kept));
});
