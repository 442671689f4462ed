// The browser's languages: the server's catalog for the chosen language (GET /i18n/{code}.json, English
// text -> translation) and t(), whose keys are the English texts. A text the catalog lacks shows in English.
// Static page texts carry data-i18n (the element's text, or the English text as its value) or
// data-i18n-attr="aria-label title" (attributes, the English kept in data-i18n-source-<attribute>);
// `python -m fivedice.i18n extract` collects both, and the text of every t() call in these scripts, into the catalogs.

let messages = {};
let code = "en";
let pluralIndex = (n) => (n === 1 ? 0 : 1);

// Fill {name} and {name!r} placeholders from args (as Python's str.format does for the same texts).
function fill(text, args) {
  return text.replace(/\{(\w+)(?:!([rs]))?\}/g, (whole, name, conv) => {
    if (!(name in args)) return whole;
    const value = String(args[name]);
    return conv === "r" ? `'${value}'` : value;
  });
}

const fields = (text) => (text.match(/\{\w+(?:![rs])?\}/g) || []).sort().join();

// The English text `text` in the current language, with `args` filled in.
export function t(text, args = null) {
  let found = messages[text];
  if (typeof found !== "string" || fields(found) !== fields(text)) found = text; // a broken translation: English
  return args ? fill(found, args) : found;
}

// The form of a text with a count: tn("{n} point", "{n} points", n, args) picks the current
// language's form for n (Croatian has three, Sundanese one) by the catalog's Plural-Forms rule.
export function tn(singular, plural, n, args = null) {
  const english = n === 1 ? singular : plural;
  const forms = messages[singular];
  let found = Array.isArray(forms) ? forms[pluralIndex(n)] : undefined;
  if (typeof found !== "string" || fields(found) !== fields(english)) found = english;
  return fill(found, { n, ...(args || {}) });
}

// Gettext's plural rule ("nplurals=3; plural=n%10==1 && n%100!=11 ? 0 : ...") as a function of n,
// read by a small parser (the page's Content-Security-Policy forbids eval, rightly).
export function pluralRule(header) {
  const found = /plural\s*=\s*([^;]+)/.exec(header || "");
  const tokens = (found ? found[1] : "n != 1").match(/n|\d+|&&|\|\||[=!<>]=|[-+*\/%<>!?:()]/g) || [];
  let at = 0;
  const peek = () => tokens[at];
  const take = () => tokens[at++];
  const binary = (next, ops) => () => {
    let left = next();
    while (ops[peek()]) {
      const op = ops[take()];
      const a = left;
      const b = next();
      left = (n) => op(a(n), b(n));
    }
    return left;
  };
  const primary = () => {
    const token = take();
    if (token === "(") {
      const inner = ternary();
      take(); // ")"
      return inner;
    }
    if (token === "!") {
      const inner = primary();
      return (n) => (inner(n) ? 0 : 1);
    }
    if (token === "n") return (n) => n;
    const value = Number(token);
    return () => value;
  };
  const b = (f) => (x, y) => (f(x, y) ? 1 : 0);
  const mul = binary(primary, { "*": (x, y) => x * y, "/": (x, y) => Math.trunc(x / y), "%": (x, y) => x % y });
  const add = binary(mul, { "+": (x, y) => x + y, "-": (x, y) => x - y });
  const rel = binary(add, { "<": b((x, y) => x < y), ">": b((x, y) => x > y), "<=": b((x, y) => x <= y), ">=": b((x, y) => x >= y) });
  const eq = binary(rel, { "==": b((x, y) => x === y), "!=": b((x, y) => x !== y) });
  const and = binary(eq, { "&&": b((x, y) => x && y) });
  const or = binary(and, { "||": b((x, y) => x || y) });
  function ternary() {
    const test = or();
    if (peek() !== "?") return test;
    take();
    const yes = ternary();
    take(); // ":"
    const no = ternary();
    return (n) => (test(n) ? yes(n) : no(n));
  }
  const rule = ternary();
  return (n) => Number(rule(Math.abs(Math.trunc(n))));
}

// Marks a text for the catalogs where it is kept and translated later (t(text) where shown).
export const N_ = (text) => text;

export const currentLanguage = () => code;

// Write every marked text of the page (or of `root`) again in the current language.
export function translatePage(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) {
    // the English text: the attribute's value, else the element's text as the page first had it
    if (!node.dataset.i18nSource) node.dataset.i18nSource = node.dataset.i18n || node.textContent.trim();
    node.textContent = t(node.dataset.i18nSource);
  }
  for (const node of root.querySelectorAll("[data-i18n-attr]")) {
    for (const attr of node.dataset.i18nAttr.split(" ")) {
      const key = `i18nSource${attr.replace(/(^|-)(\w)/g, (_m, _d, c) => c.toUpperCase())}`;
      if (!node.dataset[key]) node.dataset[key] = node.getAttribute(attr) || "";
      node.setAttribute(attr, t(node.dataset[key]));
    }
  }
}

// Fetch the catalog of `wanted` and make it current; the page's marked texts follow at once.
export async function loadLanguage(wanted) {
  const response = await fetch(`/i18n/${encodeURIComponent(wanted)}.json`);
  if (!response.ok) throw new Error(t("Language {code!r} is not available.", { code: wanted }));
  const data = await response.json();
  messages = data.messages || {};
  pluralIndex = pluralRule(data.plural);
  code = data.language;
  document.documentElement.lang = code;
  translatePage();
  return code;
}

// An event or notice sent as {msg, args, more}: its box label and its text in the current language.
export function eventText(event) {
  const args = { ...(event.args || {}) };
  if ("box" in args) args.box = t(String(args.box));
  const text = t(event.msg, args);
  return event.more ? `${text} ${t(event.more)}` : text;
}
