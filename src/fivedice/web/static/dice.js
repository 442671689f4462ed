// Dice that look like dice: SVG faces with pips, a short tumble when they land (none under
// prefers-reduced-motion, which the style sheet honours) and an optional clatter (off by default).
const SVG = "http://www.w3.org/2000/svg";
// pip positions on a 100x100 face
const PIPS = {
  1: [[50, 50]],
  2: [[28, 28], [72, 72]],
  3: [[28, 28], [50, 50], [72, 72]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]],
  5: [[28, 28], [72, 28], [50, 50], [28, 72], [72, 72]],
  6: [[28, 26], [72, 26], [28, 50], [72, 50], [28, 74], [72, 74]],
};

// An SVG die face (decorative: the die's button carries the accessible name). `value` null: not rolled.
export function dieFace(value) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.classList.add("face");
  const body = document.createElementNS(SVG, "rect");
  for (const [k, v] of Object.entries({ x: 4, y: 4, width: 92, height: 92, rx: 18, class: "body" })) body.setAttribute(k, v);
  svg.append(body);
  drawPips(svg, value);
  return svg;
}

// The pips of `value` on a face drawn by dieFace (the face itself stays, so its tumble goes on).
function drawPips(svg, value) {
  for (const old of [...svg.querySelectorAll(".pip, .blank")]) old.remove();
  for (const [cx, cy] of PIPS[value] || []) {
    const pip = document.createElementNS(SVG, "circle");
    for (const [k, v] of Object.entries({ cx, cy, r: 9.5, class: "pip" })) pip.setAttribute(k, v);
    svg.append(pip);
  }
  if (!PIPS[value]) {
    const mark = document.createElementNS(SVG, "text");
    for (const [k, v] of Object.entries({ x: 50, y: 62, "text-anchor": "middle", class: "blank" })) mark.setAttribute(k, v);
    mark.textContent = "?";
    svg.append(mark);
  }
}

const stillness = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

// Let the dice at `positions` of `row` tumble once: thrown in, each a little after the other, showing a
// few random faces on the way before the one the server rolled (nothing of it with reduced motion).
export function tumble(row, positions) {
  const calm = stillness();
  positions.forEach((i, n) => {
    const die = row.children[i];
    if (!die) return;
    die.classList.remove("rolling");
    void die.offsetWidth; // restart the animation
    die.style.setProperty("--delay", `${n * 35}ms`);
    die.classList.add("rolling");
    if (calm) return;
    clearInterval(die.spin);
    let turns = 0;
    die.spin = setInterval(() => {
      const face = die.querySelector(".face");
      const landed = ++turns > 4;
      if (face) drawPips(face, landed ? Number(die.dataset.value) || null : 1 + Math.floor(Math.random() * 6));
      if (landed) clearInterval(die.spin);
    }, 90);
  });
}

// -- sound: a short synthesized clatter, no audio files; off until the player turns it on --------
const soundKey = "fivedice:sound";
let context = null;

export const soundOn = () => localStorage.getItem(soundKey) === "on";

export function setSound(on) {
  localStorage.setItem(soundKey, on ? "on" : "off");
}

function clack(at, pitch) {
  const osc = context.createOscillator();
  const gain = context.createGain();
  osc.type = "triangle";
  osc.frequency.setValueAtTime(pitch, at);
  osc.frequency.exponentialRampToValueAtTime(pitch / 3, at + 0.05);
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(0.25, at + 0.005);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.07);
  osc.connect(gain).connect(context.destination);
  osc.start(at);
  osc.stop(at + 0.08);
}

// The sound of `n` dice landing (nothing when sound is off or the browser has no Web Audio).
export function playRoll(n) {
  if (!soundOn() || n <= 0) return;
  const Audio = window.AudioContext || window.webkitAudioContext;
  if (!Audio) return;
  context = context || new Audio();
  const now = context.currentTime + 0.01;
  for (let i = 0; i < Math.min(n, 5) * 2; i++) clack(now + i * 0.045 + Math.random() * 0.02, 700 + Math.random() * 900);
}

function tone(at, pitch, length, level = 0.18, type = "sine") {
  const osc = context.createOscillator();
  const gain = context.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(pitch, at);
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(level, at + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(gain).connect(context.destination);
  osc.start(at);
  osc.stop(at + length + 0.02);
}

function audio() {
  const Audio = window.AudioContext || window.webkitAudioContext;
  if (!Audio) return false;
  context = context || new Audio();
  return true;
}

// A short fanfare for a moment worth it: a Yahtzee, the upper bonus, a new best, a win (sound on only).
const FANFARES = { yahtzee: [523, 659, 784, 1047, 1319], bonus: [587, 740, 880], best: [523, 659, 784, 1047], win: [392, 523, 659, 784, 1047, 1319] };

export function playFanfare(kind) {
  if (!soundOn() || !audio()) return;
  const now = context.currentTime + 0.02;
  (FANFARES[kind] || FANFARES.bonus).forEach((pitch, i) => tone(now + i * 0.11, pitch, 0.35, 0.16, "triangle"));
}

// The "your turn" chime: two soft notes (its own option, apart from the dice's sound).
const chimeKey = "fivedice:chime";
export const chimeOn = () => localStorage.getItem(chimeKey) === "on";
export const setChime = (on) => localStorage.setItem(chimeKey, on ? "on" : "off");

export function playChime() {
  if (!chimeOn() || !audio()) return;
  const now = context.currentTime + 0.02;
  tone(now, 880, 0.5, 0.12);
  tone(now + 0.16, 1318.5, 0.7, 0.1);
}

// A soft tick for a box filled.
export function playScore() {
  if (!soundOn()) return;
  const Audio = window.AudioContext || window.webkitAudioContext;
  if (!Audio) return;
  context = context || new Audio();
  clack(context.currentTime + 0.01, 1400);
}
