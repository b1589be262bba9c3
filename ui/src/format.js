// Text for people: numbers, sizes, times, phase badges, route links (no
// DOM access). Everything but `badge` returns plain text, which html`...`
// escapes.
import { html } from './html.js';
import { currentNamespace, namespaceParts } from './namespace.js';

// Numbers with up to 4 significant digits after the point, or scientific
// notation when they are very small or large; '—' for missing.
export function num(v) {
  if (v === undefined || v === null || v === '') return '—';
  const n = Number(v);
  if (!Number.isFinite(n)) return String(v);
  if (n === 0) return '0';
  const a = Math.abs(n);
  if (a < 1e-3 || a >= 1e6) return n.toExponential(3);
  return String(Number(n.toPrecision(5)));
}

// The labels of a colour bar (an ECharts visualMap) over [lo, hi]: the
// fewest significant digits, from 3, at which lo and hi read differently,
// so that its two ends never read alike (ECharts' default rounds 0.8 and
// 1.2 both to "1"). Returns the visualMap's `formatter`.
export function rangeLabels(lo, hi) {
  let digits = 3;
  while (digits < 17 && significant(lo, digits) === significant(hi, digits)) digits += 1;
  return (v) => significant(v, digits);
}

function significant(v, digits) {
  const n = Number(v);
  if (!Number.isFinite(n)) return String(v);
  if (n === 0) return '0';
  const a = Math.abs(n);
  if (a < 1e-3 || a >= 1e6) return n.toExponential(digits - 1);
  return String(Number(n.toPrecision(digits)));
}

export function time(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  const pad = (x) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function seconds(s) {
  if (s === undefined || s === null || Number.isNaN(s)) return '—';
  if (s < 60) return `${s.toFixed(1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} m ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} m`;
}

export const PHASE_COLORS = {
  Created: '#8c8c8c',
  Pending: '#8c8c8c',
  Running: '#1f6feb',
  Succeeded: '#1a7f37',
  Failed: '#cf222e',
  EarlyStopped: '#bf8700',
  MetricsUnavailable: '#8250df',
  Killed: '#6e7781',
  Stopped: '#6e7781',
};

export function badge(phase) {
  return html`<span class="badge phase-${phase}">${phase}</span>`;
}

// A size in bytes for people: "512 B", "64 KiB", "3.2 MiB".
export function bytes(n) {
  if (!Number.isFinite(n) || n < 0) return '—';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${v >= 10 || Number.isInteger(v) ? Math.round(v) : v.toFixed(1)} ${units[u]}`;
}

// A route link in the namespace the dashboard shows (namespace.js): the
// dashboard routes on the URL's hash.
export function href(...parts) {
  return hrefIn(currentNamespace(), ...parts);
}

// A route link in namespace `ns`.
export function hrefIn(ns, ...parts) {
  return '#/' + [...namespaceParts(ns), ...parts].map((p) => encodeURIComponent(p)).join('/');
}
