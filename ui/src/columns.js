// The experiment page of a large experiment (more than LARGE_TRIALS
// trials) asks the server for what it draws rather than for every trial:
// GET .../trials:columns (a downsampled sample that keeps the best and the
// failed trials) for the plots, GET .../trials?limit=&offset=&sort=... for
// the table's page. Pure functions (no DOM), tested in node
// (tests/ui/unit/columns.test.mjs).
import { objectivesOf } from './data.js';

// Past this many trials the page draws from the server's sample and pages
// the table on the server. A test may lower it with window.hptLargeTrials.
export const LARGE_TRIALS = 2000;
// Rows of the sample the plots are drawn from.
export const SAMPLE_POINTS = 2000;

// LARGE_TRIALS and SAMPLE_POINTS, unless a test (or the bench's old-path
// run) set window.hptLargeTrials / window.hptSamplePoints first.
function setting(name, fallback) {
  const v = typeof window !== 'undefined' && window[name] !== undefined ? Number(window[name]) : NaN;
  return Number.isNaN(v) ? fallback : v;
}
export const largeThreshold = () => setting('hptLargeTrials', LARGE_TRIALS);
export const samplePoints = () => setting('hptSamplePoints', SAMPLE_POINTS);

// The rows of a trials:columns answer as trials shaped like the REST API's
// (name, index, phase, objectiveValue, parameterAssignments, metrics), so
// the chart builders take them as they are. A metric's sampled value is its
// latest; min and max are set to it.
export function columnsToTrials(res) {
  const cols = res.columns || {};
  const n = res.rows ?? (cols.name || []).length;
  const params = Object.keys(cols).filter((k) => k.startsWith('p:'));
  const metrics = Object.keys(cols).filter((k) => k.startsWith('m:'));
  const out = [];
  for (let i = 0; i < n; i += 1) {
    const t = {
      name: cols.name[i],
      index: cols.index ? cols.index[i] : i + 1,
      phase: cols.phase ? cols.phase[i] : 'Succeeded',
      objectiveValue: cols.objective ? cols.objective[i] : null,
      parameterAssignments: [],
      metrics: [],
    };
    if (cols.feasible && cols.feasible[i] === false) t.feasible = false;
    for (const k of params) {
      const v = cols[k][i];
      if (v !== null && v !== undefined) t.parameterAssignments.push({ name: k.slice(2), value: String(v) });
    }
    for (const k of metrics) {
      const v = cols[k][i];
      if (typeof v === 'number') t.metrics.push({ name: k.slice(2), min: v, max: v, latest: v });
    }
    out.push(t);
  }
  return out;
}

// The server's sort key for a table column's key, or undefined when the
// server cannot sort by it (duration, why). 'o:<i>' is the i-th
// objective's latest value.
export function serverSortKey(key, spec) {
  if (['name', 'phase', 'objective', 'start'].includes(key)) return key;
  if (key.startsWith('p:') || key.startsWith('m:')) return key;
  if (key.startsWith('o:')) {
    const o = objectivesOf(spec)[Number(key.slice(2))];
    return o ? `m:${o.name}` : undefined;
  }
  return undefined;
}

// The query of GET .../trials for the table's state: { sort: {key, dir},
// text, phase, ranges: [{key, min, max}], page, pageSize }.
export function pageQuery(state, spec) {
  const q = new URLSearchParams();
  q.set('limit', String(state.pageSize));
  q.set('offset', String(state.page * state.pageSize));
  const sort = serverSortKey(state.sort.key, spec);
  if (sort) {
    q.set('sort', sort);
    q.set('order', state.sort.dir === 'desc' ? 'desc' : 'asc');
  }
  if (state.phase) q.set('phase', state.phase);
  if (state.text && state.text.trim()) q.set('filter', state.text.trim());
  for (const r of state.ranges || []) {
    const key = serverSortKey(r.key, spec);
    if (!key) continue;
    if (r.min !== undefined) q.set(`min.${key}`, String(r.min));
    if (r.max !== undefined) q.set(`max.${key}`, String(r.max));
  }
  return q;
}
