// The room's controls around the game: the invite (the share sheet, the QR code, the copied link), the
// room's own "How to play", the sound of the dice and the "your turn" chime (both remembered).
import { chimeOn, playChime, setChime, setSound, soundOn } from "./dice.js";
import { showHowToPlay } from "./how.js";
import { t } from "./i18n.js";
import { loadCatalogue } from "./lobby.js";
import { $ } from "./render.js";

// `room()` and `code()` give the room on screen; `api`, `toast` and `announce` are the page's own.
export function initChrome({ room, code, api, toast, announce }) {
  $("#share-invite").addEventListener("click", async () => {
    try {
      await navigator.share({ title: "fivedice", text: t("Play {rules} with me: room {code}", { rules: room() ? room().rules.title : "fivedice", code: code() }), url: $("#invite-link").href });
    } catch (err) {
      if (err.name !== "AbortError") toast(t("Copy the link shown next to the button."));
    }
  });
  $("#qr-box").addEventListener("toggle", () => {
    if ($("#qr-box").open && !$("#qr").getAttribute("src")) $("#qr").src = `/api/rooms/${code()}/qr.svg`;
  });
  $("#copy-link").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText($("#invite-link").href);
      toast(t("Invite link copied."));
    } catch {
      toast(t("Copy the link shown next to the button."));
    }
  });
  // the room's own rules, with the options of its rule set's spec ("yahtzee joker=free")
  $("#room-how").addEventListener("click", async () => {
    if (!room()) return;
    try {
      const catalogue = await loadCatalogue(api);
      const [name, ...options] = room().rules.spec.split(" ");
      const rule = catalogue.rules.find((r) => r.name === name);
      if (rule) showHowToPlay(rule, new Map(options.map((o) => o.split("="))));
    } catch (err) {
      toast(err.message);
    }
  });
  const sound = $("#sound");
  sound.setAttribute("aria-pressed", soundOn() ? "true" : "false");
  sound.addEventListener("click", () => {
    setSound(!soundOn());
    sound.setAttribute("aria-pressed", soundOn() ? "true" : "false");
    announce(soundOn() ? t("Sound on.") : t("Sound off."));
  });
  const chime = $("#chime");
  chime.checked = chimeOn();
  chime.addEventListener("change", () => {
    setChime(chime.checked);
    if (chime.checked) playChime(); // a sample, and the browser's leave to play sound later
  });
}
