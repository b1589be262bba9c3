// The one way the dashboard puts text into HTML. `html` is a tagged
// template that escapes every interpolated value, so markup can only come
// from the template literals in the source, never from data: names,
// values, messages and logs that reach the page through the API are
// always text. `setHtml` is the only writer of innerHTML and takes nothing
// but `html` output; ECharts tooltip formatters return String(html`...`).
// (tests/ui/unit/html.test.mjs checks that no other module writes
// innerHTML.) Text that needs no markup goes in with textContent.

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

function escapeText(value) {
  return String(value).replace(/[&<>"'`]/g, (c) => ESCAPES[c]);
}

// Markup built by `html`. Only this module makes one: its constructor
// takes a private key, so no other code can wrap a string of its own.
const KEY = Symbol('SafeHtml');

export class SafeHtml {
  constructor(key, markup) {
    if (key !== KEY) throw new TypeError('SafeHtml is made only by html`...`');
    this.markup = markup;
    Object.freeze(this);
  }

  toString() {
    return this.markup;
  }
}

// An interpolated value: html output as it is, a list item by item,
// nothing for null, undefined and false (so `${cond && html`...`}` works),
// anything else as escaped text.
function part(value) {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(part).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeText(value);
}

export function html(strings, ...values) {
  let out = strings[0];
  for (let i = 0; i < values.length; ++i) out += part(values[i]) + strings[i + 1];
  return new SafeHtml(KEY, out);
}

// Replaces the children of `el` with `markup`, which must come from html.
export function setHtml(el, markup) {
  if (!(markup instanceof SafeHtml)) throw new TypeError('setHtml takes html`...` output only');
  el.innerHTML = markup.markup;
}
