// The page's language: the selector switches at any moment; the game and the page state stay as they are
// (the server words its own sentences again: the analysis, the challenge result, a hint's note).
import { renderAnalysis } from "./end.js";
import { askAgain, applyHint } from "./hints.js";
import { loadLanguage, t } from "./i18n.js";
import { refreshLobby } from "./account.js";
import { relabelLobby } from "./lobby.js";
import { setTitle } from "./notify.js";
import { $, el, renderHint } from "./render.js";

const languageKey = "fivedice:language";

// page: the room page's {ui, send, render, setStatus, toast, api, offline}
async function switchLanguage(page, wanted) {
  const { ui, send } = page;
  const code = await loadLanguage(wanted);
  localStorage.setItem(languageKey, code);
  $("#language").value = code;
  page.setStatus(ui.status);
  if (ui.ws && ui.ws.readyState === WebSocket.OPEN) {
    send({ type: "language", lang: code }, { intent: false });
    // the analysis names its moves in words: ask again for them in the new language
    if (ui.analysis && typeof ui.analysis === "object") send({ type: "analysis" }, { intent: false });
    if (ui.challenge) send({ type: "challenge" }, { intent: false }); // its sentences are worded by the server
  }
  if (ui.room) {
    page.render();
    if (ui.hint) renderHint(ui.hint, ui.room, applyHint);
    if (ui.hint && ui.hint.note) askAgain(ui.hint); // its note is worded by the server
    if (ui.analysis !== undefined) renderAnalysis(ui.analysis, ui.room);
    setTitle("fivedice — " + t("room {code}", { code: ui.code }));
  }
  if (!$("#lobby").hidden && !page.offline()) {
    await relabelLobby(page.api);
    await refreshLobby(); // my games and friends, their lines in the new language
  }
}

// Fill the selector with the server's languages and load the one stored (else the browser's best).
export async function startLanguage(page) {
  // no ?lang= here: the server answers with the best language of the browser's Accept-Language
  const found = await fetch("/api/languages")
    .then((response) => response.json())
    .catch(() => ({ languages: { en: "English" }, current: "en" }));
  const select = $("#language");
  select.replaceChildren(...Object.entries(found.languages).map(([code, name]) => el("option", { value: code, text: name })));
  const stored = localStorage.getItem(languageKey);
  const wanted = stored && stored in found.languages ? stored : found.current;
  select.value = wanted;
  select.addEventListener("change", () => switchLanguage(page, select.value).catch((err) => page.toast(err.message)));
  if (wanted !== "en") await loadLanguage(wanted).catch((err) => page.toast(err.message));
}
