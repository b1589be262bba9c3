// Pure: what the signed-in caller may do in a namespace (from GET
// /api/v1/whoami) and a namespace's quota use (from GET
// /api/v1/namespaces/{ns}), as text and as html`...`. No DOM access.
import { bytes, num } from './format.js';
import { html } from './html.js';

// `me`: whoami's {"name", "admin", "roles": {ns: "member" | "viewer"}}.
// The caller's role in `ns`: "admin", "member", "viewer", or undefined.
export function roleIn(me, ns) {
  if (!me) return undefined;
  if (me.admin) return 'admin';
  const role = me.roles && Object.hasOwn(me.roles, ns) ? me.roles[ns] : undefined;
  return role === 'member' || role === 'viewer' ? role : undefined;
}

// Whether the caller may create, stop and delete in `ns` (the server
// answers 403 to a viewer anyway: this only hides what would fail).
export function canWrite(me, ns) {
  const role = roleIn(me, ns);
  return role === 'admin' || role === 'member';
}

// Quota and usage keys in the order they are shown; others follow sorted.
const LABELS = {
  experiments: 'experiments',
  runningTrials: 'running trials',
  gpu: 'GPUs',
  cpu: 'CPU cores',
  memory: 'memory',
};

const BYTE_UNITS = { '': 1, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12 };

// A memory amount as bytes: a number, or the server's "16Gi" / "512Mi".
function toBytes(v) {
  if (typeof v === 'number') return v;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([KMGTPE]i|[kKMGT])?\s*$/.exec(String(v));
  return m ? Number(m[1]) * BYTE_UNITS[m[2] || ''] : NaN;
}

function amount(key, v) {
  if (v === undefined || v === null) return '—';
  if (key === 'memory') {
    const b = toBytes(v);
    return Number.isFinite(b) ? bytes(b) : String(v);
  }
  return typeof v === 'number' ? num(v) : String(v);
}

function value(key, v) {
  if (v === undefined || v === null) return NaN;
  return key === 'memory' ? toBytes(v) : Number(v);
}

// One row per usage or quota key the namespace has: {key, label, used, cap,
// text ("used / cap"; "used" without a cap; "— / cap" when the server does
// not report that use), fraction (used / cap, for a bar; null when either
// is missing or not a number)}. `capped` is false for a namespace with no
// caps: it says "no quota".
export function quotaUse(ns) {
  const quota = (ns && ns.quota) || {};
  const usage = (ns && ns.usage) || {};
  const known = Object.keys(LABELS);
  const keys = [...new Set([...Object.keys(usage), ...Object.keys(quota)])]
    .sort((a, b) => {
      const ia = known.includes(a) ? known.indexOf(a) : known.length;
      const ib = known.includes(b) ? known.indexOf(b) : known.length;
      return ia - ib || a.localeCompare(b);
    });
  const rows = keys.map((key) => {
    const used = usage[key];
    const cap = quota[key];
    const hasCap = cap !== undefined && cap !== null;
    const text = hasCap ? `${amount(key, used)} / ${amount(key, cap)}` : amount(key, used);
    const u = value(key, used);
    const c = value(key, cap);
    const fraction = hasCap && Number.isFinite(u) && Number.isFinite(c) ? (c > 0 ? u / c : (u > 0 ? Infinity : 0)) : null;
    return { key, label: Object.hasOwn(LABELS, key) ? LABELS[key] : key, used, cap, text, fraction };
  });
  return { capped: Object.keys(quota).length > 0, rows };
}

// The quota line: each row as "label used / cap" with a bar where both are
// numbers, and "no quota" for a namespace without caps.
export function quotaHtml(ns) {
  const { capped, rows } = quotaUse(ns);
  return html`${!capped && html`<span class="muted" data-quota="none">no quota</span>`}${rows.map((r) => {
    const pct = r.fraction === null ? null : Math.min(100, 100 * r.fraction);
    return html`<span class="quota-item ${r.fraction >= 1 ? 'full' : ''}" data-quota="${r.key}">
      <span class="muted">${r.label}</span> <b class="quota-use">${r.text}</b>${pct !== null &&
        html`<div class="bar"><span style="width:${pct.toFixed(1)}%"></span></div>`}</span>`;
  })}`;
}
