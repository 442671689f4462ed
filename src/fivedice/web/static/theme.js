// The colour scheme, set before the first paint (a classic script in the head): the player's remembered
// choice (the header's toggle), else the system's prefers-color-scheme, followed while it changes.
(function () {
  var key = "fivedice:theme";
  var media = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

  function chosen() {
    try {
      return localStorage.getItem(key);
    } catch (e) {
      return null;
    }
  }

  function apply() {
    var choice = chosen();
    var dark = choice ? choice === "dark" : Boolean(media && media.matches);
    document.documentElement.setAttribute("data-theme", dark ? "dark" : "light");
    var meta = document.querySelector('meta[name="theme-color"]');
    if (meta) meta.setAttribute("content", dark ? "#1b2738" : "#1a5fb4");
    var button = document.getElementById("theme");
    if (button) button.setAttribute("aria-pressed", dark ? "true" : "false");
  }

  apply();
  if (media && media.addEventListener) media.addEventListener("change", apply);
  document.addEventListener("DOMContentLoaded", function () {
    apply();
    var button = document.getElementById("theme");
    if (!button) return;
    button.addEventListener("click", function () {
      var dark = document.documentElement.getAttribute("data-theme") === "dark";
      try {
        localStorage.setItem(key, dark ? "light" : "dark");
      } catch (e) {
        /* a private window without storage: the choice lasts for this page */
      }
      document.documentElement.setAttribute("data-theme", dark ? "light" : "dark");
      apply();
      if (!chosen()) button.setAttribute("aria-pressed", dark ? "false" : "true");
    });
  });
})();
