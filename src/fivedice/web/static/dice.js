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
  return svg;
}

// Let the dice at `positions` of `row` tumble once (the CSS animation; none with reduced motion).
export function tumble(row, positions) {
  for (const i of positions) {
    const die = row.children[i];
    if (!die) continue;
    die.classList.remove("rolling");
    void die.offsetWidth; // restart the animation
    die.classList.add("rolling");
  }
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

// A soft tick for a box filled.
export function playScore() {
  if (!soundOn()) return;
  const Audio = window.AudioContext || window.webkitAudioContext;
  if (!Audio) return;
  context = context || new Audio();
  clack(context.currentTime + 0.01, 1400);
}
