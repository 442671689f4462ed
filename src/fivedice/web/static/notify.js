// Telling a player it is their turn: the tab's title and the installed app's badge ("(1) your turn"),
// and a system notification while the page is open in the background (the Notification API). When the
// page is closed, the server's Web Push reaches the service worker instead (sw.js).
import { t } from "./i18n.js";

let pageTitle = "fivedice";
let turns = 0;

function draw() {
  const waiting = turns ? t("({n}) your turn", { n: turns }) : "";
  document.title = waiting ? waiting + " — " + pageTitle : pageTitle;
  if (navigator.setAppBadge) (turns ? navigator.setAppBadge(turns) : navigator.clearAppBadge()).catch(() => {});
}

// The page's own title (the lobby, a room); the count of turns waiting is put in front of it.
export function setTitle(title) {
  pageTitle = title;
  draw();
}

// How many games wait for the player's move (the room on screen, or "my games" in the lobby).
export function setTurns(n) {
  turns = Math.max(0, Number(n) || 0);
  draw();
}

export const canNotify = () => "Notification" in window;

// Ask the browser's permission (after a click: browsers refuse it otherwise); true when granted.
export async function askPermission() {
  if (!canNotify()) return false;
  if (Notification.permission === "granted") return true;
  if (Notification.permission === "denied") return false;
  return (await Notification.requestPermission()) === "granted";
}

// A system notification while the page is hidden (in another tab, minimised); a click brings it back.
export function notifyTurn(body, url) {
  if (!canNotify() || Notification.permission !== "granted" || !document.hidden) return null;
  const note = new Notification(t("Your turn"), { body, tag: `turn:${url}`, icon: "/static/icons/icon-192.png" });
  note.addEventListener("click", () => {
    window.focus();
    if (location.pathname !== url) location.assign(url);
    note.close();
  });
  return note;
}
