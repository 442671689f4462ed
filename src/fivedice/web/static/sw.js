// The service worker of the installable app: the page's static files come from a cache (refreshed in the
// background), so the app opens at once; the game itself (the API, the WebSocket) always goes to the server.
// It also shows the server's Web Push messages (your turn, an invitation) when no page is open.
const CACHE = "fivedice-static-v5";
const FILES = [
  "/static/account.js",
  "/static/app.js",
  "/static/chrome.js",
  "/static/celebrate.js",
  "/static/delta.js",
  "/static/dice.js",
  "/static/end.js",
  "/static/hints.js",
  "/static/how.js",
  "/static/i18n.js",
  "/static/language.js",
  "/static/lobby.js",
  "/static/local.js",
  "/static/moves.js",
  "/static/notify.js",
  "/static/people.js",
  "/static/render.js",
  "/static/replay.js",
  "/static/style.css",
  "/static/theme.js",
  "/static/timers.js",
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

// A push message from the server (already decrypted by the browser): {type, title, body, url, code}.
self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : "" };
  }
  const show = self.registration.showNotification(data.title || "fivedice", {
    body: data.body || "",
    tag: data.code ? `turn:${data.code}` : "fivedice",
    renotify: true,
    icon: "/static/icons/icon-192.png",
    badge: "/static/icons/icon-192.png",
    data: { url: data.url || "/" },
  });
  const badge = data.type === "turn" && self.navigator.setAppBadge ? self.navigator.setAppBadge(1).catch(() => {}) : null;
  event.waitUntil(Promise.all([show, badge]));
});

// A click on the notification: the game's page, in an open window of the app if there is one.
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL((event.notification.data && event.notification.data.url) || "/", self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const open = windows.find((w) => w.url === url) || windows[0];
      if (open) return open.navigate(url).then((w) => (w || open).focus());
      return self.clients.openWindow(url);
    }),
  );
});
