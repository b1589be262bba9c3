// Pure functions over the REST API v1 shapes (no DOM): parameter axes,
// sorting and filtering trials, choosing which learning curves to fetch.
// A trial's objective value and creation index come from the server
// (objectiveValue, index). Tested in node (tests/ui/unit/).
import { bytes } from './format.js';

export const TERMINAL_TRIAL = new Set(['Succeeded', 'Failed', 'EarlyStopped', 'MetricsUnavailable', 'Killed']);
export const FINISHED_EXPERIMENT = new Set(['Succeeded', 'Failed', 'Stopped']);

// The objective value the server ranks a trial by (its objectiveValue,
// metricStrategies applied); undefined until the trial has reported it.
export function objectiveOf(trial) {
  return trial.objectiveValue ?? undefined;
}

// Every objective as { name, type }, the first one first: objective.objectives
// for a multi-objective experiment, else the single objective.
export function objectivesOf(spec) {
  const o = spec.objective || {};
  if (Array.isArray(o.objectives) && o.objectives.length) {
    return o.objectives.map((x) => ({ name: x.objectiveMetricName, type: x.type }));
  }
  return [{ name: o.objectiveMetricName, type: o.type }];
}

export function isMultiObjective(spec) {
  return objectivesOf(spec).length > 1;
}

// A metric's value as the server ranks it: under the spec's
// metricStrategies entry, else (as Katib) its objective's best, min to
// minimize and max to maximize (an additional metric follows the first
// objective); undefined until reported.
export function metricValue(trial, name, spec) {
  const m = (trial.metrics || []).find((x) => x.name === name);
  if (!m) return undefined;
  const s = ((spec.objective || {}).metricStrategies || []).find((x) => x.name === name);
  const objectives = objectivesOf(spec);
  const own = objectives.find((o) => o.name === name) || objectives[0];
  const strategy = s ? s.value : own.type === 'maximize' ? 'max' : 'min';
  const v = m[strategy === 'min' || strategy === 'max' ? strategy : 'latest'];
  return typeof v === 'number' ? v : undefined;
}

// One value per objective (objectivesOf order); undefined until the trial
// has reported every one.
export function objectiveValues(trial, spec) {
  const out = objectivesOf(spec).map((o) => metricValue(trial, o.name, spec));
  return out.every((v) => v !== undefined) ? out : undefined;
}

export function isBetter(a, b, type) {
  return type === 'maximize' ? a > b : a < b;
}

// Trials in creation order: by the index the server gives each trial.
export function inCreationOrder(trials) {
  return [...trials].sort((a, b) => a.index - b.index);
}

// The phases whose objective the server ranks (api/experiment_status.cc
// BestTrialIndex): a running trial's value is not final, a failed or
// killed one's is not trusted.
export const RANKED_TRIAL = new Set(['Succeeded', 'EarlyStopped']);

export function ranked(trials) {
  return trials.filter((t) => RANKED_TRIAL.has(t.phase));
}

// Optimization history: one point per trial that has an objective value
// (x = its creation index), the best ranked value up to each ranked trial
// (infeasible ones left out, as the server's best trial: docs/constraints.md),
// and the finished trials that have no value (`missing`: failed before
// reporting, killed, metrics unavailable), which the chart marks apart.
export function history(trials, spec) {
  const type = spec.objective.type;
  const points = [];
  const best = [];
  const missing = [];
  let bestValue;
  for (const t of inCreationOrder(trials)) {
    const v = objectiveOf(t);
    if (v === undefined) {
      if (TERMINAL_TRIAL.has(t.phase)) missing.push({ x: t.index, name: t.name, phase: t.phase });
      continue;
    }
    const x = t.index;
    points.push({ x, y: v, name: t.name, phase: t.phase });
    if (!RANKED_TRIAL.has(t.phase) || t.feasible === false) continue;
    if (bestValue === undefined || isBetter(v, bestValue, type)) bestValue = v;
    best.push([x, bestValue]);
  }
  return { points, best, missing };
}

export function assignment(trial, name) {
  const p = (trial.parameterAssignments || []).find((a) => a.name === name);
  return p ? p.value : undefined;
}

// A listed choice as text: the spec lists categorical choices as any JSON
// scalar (null, true, 0.5, "adam"); a trial's value is its text.
export function choiceText(choice) {
  return choice === null ? 'null' : String(choice);
}

// How a parameter is drawn on an axis: log for logUniform, categories for
// categorical (in the spec's order) and discrete (sorted numerically, as
// their values are numbers but few), plain values otherwise.
export function paramAxis(param) {
  const fs = param.feasibleSpace || {};
  const list = (fs.list || []).map(choiceText);
  if (param.parameterType === 'categorical') return { kind: 'category', categories: list };
  if (param.parameterType === 'discrete') {
    return { kind: 'category', categories: list.sort((a, b) => Number(a) - Number(b)) };
  }
  if (fs.distribution === 'logUniform' || fs.distribution === 'logNormal') return { kind: 'log' };
  return { kind: 'value' };
}

// A parameter's value for plotting on its axis: on a category axis the
// category it is (a number's text may be spelt otherwise there: the
// server's "1e-04" is the listed 0.0001), a number otherwise.
export function axisValue(axis, raw) {
  if (raw === undefined) return undefined;
  if (axis.kind === 'category') {
    const text = String(raw);
    if (axis.categories.includes(text)) return text;
    const n = Number(text);
    const same = text.trim() !== '' && Number.isFinite(n)
      ? axis.categories.find((c) => c.trim() !== '' && Number(c) === n) : undefined;
    return same ?? text;
  }
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

// Sorting the trial table. `key` is 'name' (creation order), 'phase',
// 'objective', 'start', 'duration', 'p:<param>', 'm:<metric>' or, with the
// spec, 'o:<i>' (the i-th objective's value); values that are missing sort
// last in either direction.
export function sortKey(trial, key, spec) {
  if (key === 'name') return trial.index;
  if (key.startsWith('o:') && spec) {
    const o = objectivesOf(spec)[Number(key.slice(2))];
    return o ? metricValue(trial, o.name, spec) : undefined;
  }
  if (key === 'phase') return trial.phase;
  if (key === 'objective') return objectiveOf(trial);
  if (key === 'start') return trial.startTime ? Date.parse(trial.startTime) : undefined;
  if (key === 'duration') return duration(trial);
  if (key.startsWith('p:')) {
    const raw = assignment(trial, key.slice(2));
    const n = Number(raw);
    return raw !== undefined && raw !== '' && Number.isFinite(n) ? n : raw;
  }
  if (key.startsWith('m:')) {
    const m = (trial.metrics || []).find((x) => x.name === key.slice(2));
    return m ? m.latest : undefined;
  }
  if (key === 'why') return whyOf(trial)?.full;
  return undefined;
}

export function sortTrials(trials, key, dir, spec) {
  const sign = dir === 'desc' ? -1 : 1;
  const keyed = trials.map((t) => [sortKey(t, key, spec), t]);
  keyed.sort(([a], [b]) => {
    const am = a === undefined || a === null || Number.isNaN(a);
    const bm = b === undefined || b === null || Number.isNaN(b);
    if (am || bm) return am === bm ? 0 : am ? 1 : -1;
    if (typeof a === 'number' && typeof b === 'number') return sign * (a - b);
    return sign * String(a).localeCompare(String(b));
  });
  return keyed.map(([, t]) => t);
}

// Seconds from start to completion (or to `now` while running).
export function duration(trial, now = Date.now()) {
  if (!trial.startTime) return undefined;
  const end = trial.completionTime ? Date.parse(trial.completionTime) : now;
  return (end - Date.parse(trial.startTime)) / 1000;
}

// Filter text matches a trial's name or any `param=value`; several words
// must all match. `phase` '' keeps every phase.
export function filterTrials(trials, text, phase) {
  const words = text.trim().toLowerCase().split(/\s+/).filter(Boolean);
  return trials.filter((t) => {
    if (phase && t.phase !== phase) return false;
    if (!words.length) return true;
    const hay = [t.name, ...(t.parameterAssignments || []).map((a) => `${a.name}=${a.value}`)]
      .join(' ')
      .toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

// A bound typed into a range filter: a number, or undefined when the box
// is empty or holds no number.
export function parseBound(text) {
  const t = String(text ?? '').trim();
  if (!t) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

// Numeric range filters: `ranges` is a list of { key, min, max } (keys as
// sortKey's: 'p:<param>', 'm:<metric>', 'objective', 'o:<i>'; min and max inclusive,
// either undefined for no bound). A trial passes when every range with a
// bound holds its value; a trial without a numeric value for a bounded key
// does not pass.
export function filterRanges(trials, ranges, spec) {
  const active = (ranges || []).filter((r) => r.min !== undefined || r.max !== undefined);
  if (!active.length) return trials;
  return trials.filter((t) => active.every(({ key, min, max }) => {
    const raw = sortKey(t, key, spec);
    const v = typeof raw === 'number' ? raw : Number.NaN;
    if (!Number.isFinite(v)) return false;
    return (min === undefined || v >= min) && (max === undefined || v <= max);
  }));
}

// The phases that need no explanation in the trial table's Why column.
export const UNEXPLAINED_PHASES = new Set(['Succeeded', 'Running', 'Pending']);

// Why a trial ended as it did: its reason and the last non-empty line of
// its message ("ExitCode: python3: can't open file '/opt/x.py'"), cut to
// `max` characters (`short`), and all of reason and message (`full`).
// undefined when the trial has neither.
export function whyOf(trial, max = 80) {
  const reason = trial.reason || '';
  const message = trial.message || '';
  if (!reason && !message) return undefined;
  const last = message.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).pop() || '';
  const line = reason && last ? `${reason}: ${last}` : reason || last;
  const short = line.length > max ? `${line.slice(0, max - 1)}…` : line;
  return { short, full: reason && message ? `${reason}: ${message}` : reason || message };
}

// Which trials' learning curves to fetch when there are more than `limit`:
// every running trial (they move), then the best by objective, then the most
// recent. Returns trial names in creation order.
export function pickCurveTrials(trials, spec, limit) {
  if (trials.length <= limit) return inCreationOrder(trials).map((t) => t.name);
  const chosen = new Set();
  const add = (t) => chosen.size < limit && chosen.add(t.name);
  trials.filter((t) => t.phase === 'Running').forEach(add);
  const scored = trials.filter((t) => objectiveOf(t) !== undefined);
  sortTrials(scored, 'objective', spec.objective.type === 'maximize' ? 'desc' : 'asc').forEach(add);
  [...inCreationOrder(trials)].reverse().forEach(add);
  return inCreationOrder(trials.filter((t) => chosen.has(t.name))).map((t) => t.name);
}

// The metric names an experiment's trials report, objective first.
export function metricNames(spec, trials) {
  const names = [spec.objective.objectiveMetricName, ...(spec.objective.additionalMetricNames || [])];
  for (const t of trials) for (const m of t.metrics || []) if (!names.includes(m.name)) names.push(m.name);
  return names;
}

// Runs `fn` over `items` with at most `limit` calls in flight; resolves to
// the results in order (a rejected call's slot holds its error).
export async function pool(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  async function worker() {
    while (next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i], i);
      } catch (e) {
        results[i] = e instanceof Error ? e : new Error(String(e));
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

// What the log view shows of a tail from api.logTail: a cut tail starts
// at its first whole line, and the note says how much of how much.
export function logView({ text, bytes: shown, size }) {
  if (shown >= size) return { text: text || '(empty)', note: '' };
  const nl = text.indexOf('\n');
  return {
    text: nl >= 0 && nl < text.length - 1 ? text.slice(nl + 1) : text,
    note: `showing the last ${bytes(shown)} of ${bytes(size)}`,
  };
}
