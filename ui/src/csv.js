// The experiment page's CSV export, built in the browser from the trials
// the page already has (pure; the page makes the download).
//
// RFC 4180: fields with a comma, quote, CR or LF are quoted, quotes
// doubled, records end in CRLF. Spreadsheets run a cell that starts with
// = + - @ (or tab, CR) as a formula, and names, values and reasons come
// from whoever can call the API; such cells get a leading ' (OWASP's CSV
// injection advice). A cell that is a plain number ("-0.5", "1e-3") cannot
// be a formula and keeps its sign, so negative values stay numbers.
import { objectiveOf } from './data.js';

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function csvCell(value) {
  if (value === undefined || value === null) return '';
  let s = String(value);
  if (FORMULA_START.test(s) && !PLAIN_NUMBER.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(rows) {
  return rows.map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

// Header and one row per trial: name, phase, the parameters, the objective
// value (metricStrategies applied, as the server ranks it), the latest
// value of every other metric any trial reported, reason and message.
export function trialsCsv(spec, trials) {
  const objective = spec.objective.objectiveMetricName;
  const metrics = [...(spec.objective.additionalMetricNames || [])];
  for (const t of trials) {
    for (const m of t.metrics || []) if (m.name !== objective && !metrics.includes(m.name)) metrics.push(m.name);
  }
  const params = spec.parameters.map((p) => p.name);
  const header = ['name', 'phase', ...params, objective, ...metrics, 'reason', 'message'];
  const rows = trials.map((t) => {
    const values = new Map((t.parameterAssignments || []).map((a) => [a.name, a.value]));
    const latest = new Map((t.metrics || []).map((m) => [m.name, m.latest]));
    return [t.name, t.phase, ...params.map((p) => values.get(p)), objectiveOf(t),
      ...metrics.map((m) => latest.get(m)), t.reason, t.message];
  });
  return toCsv([header, ...rows]);
}

// A file name for the download: the experiment's name with anything but
// letters, digits, dot, dash and underscore made a dash.
export function csvFileName(experiment) {
  return `${String(experiment).replace(/[^\w.-]+/g, '-').slice(0, 80) || 'experiment'}-trials.csv`;
}
