// The service worker of the installable app: the page's static files come from a cache (refreshed in the
// background), so the app opens at once; the game itself (the API, the WebSocket) always goes to the server.
const CACHE = "fivedice-static-v1";
const FILES = [
  "/static/app.js",
  "/static/dice.js",
  "/static/end.js",
  "/static/i18n.js",
  "/static/lobby.js",
  "/static/render.js",
  "/static/replay.js",
  "/static/style.css",
  "/static/index.html",
  "/static/replay.html",
  "/static/manifest.webmanifest",
  "/static/icons/icon.svg",
  "/static/icons/icon-192.png",
  "/static/icons/icon-512.png",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

// Static files: the cached copy at once, a fresh one fetched for next time. Pages: the network first,
// the cached page when offline. Anything else (the API, the catalogs, the WebSocket): the network only.
self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/static/")) {
    event.respondWith(
      caches.open(CACHE).then(async (cache) => {
        const cached = await cache.match(request);
        const fresh = fetch(request)
          .then((response) => {
            if (response.ok) cache.put(request, response.clone());
            return response;
          })
          .catch(() => cached);
        return cached || fresh;
      }),
    );
  } else if (request.mode === "navigate") {
    const page = url.pathname.startsWith("/replay/") ? "/static/replay.html" : "/static/index.html";
    event.respondWith(fetch(request).catch(() => caches.match(page)));
  }
});
