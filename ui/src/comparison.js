// Side-by-side comparison of a few trials (#/experiments/NAME/compare?
// trials=a,b,c): the route's trial list, the table's rows, and the
// overlaid learning curves. Pure (no DOM).
import { UNEXPLAINED_PHASES, assignment, objectiveOf, whyOf } from './data.js';
import { href } from './format.js';
import { html } from './html.js';

export const MIN_COMPARE = 2;
export const MAX_COMPARE = 5;
const tip = (strings, ...values) => String(html(strings, ...values));
// Colours told apart in light and dark mode.
export const COMPARE_COLORS = ['#1f6feb', '#d1242f', '#1a7f37', '#bf8700', '#8250df'];

// Trial names are encoded one by one, so a comma in a name survives.
export function compareHref(experiment, trials) {
  return `${href('experiments', experiment, 'compare')}?trials=${trials.map(encodeURIComponent).join(',')}`;
}

// The trial names of a compare route's query ("trials=a,b%2Cc"), without
// duplicates, at most MAX_COMPARE.
export function compareTrials(query) {
  const m = /(?:^|&)trials=([^&]*)/.exec(query || '');
  if (!m) return [];
  const names = m[1].split(',').filter(Boolean).map((n) => {
    try {
      return decodeURIComponent(n);
    } catch {
      return n;
    }
  });
  return [...new Set(names)].slice(0, MAX_COMPARE);
}

// Rows of the comparison table: [label, kind, value per trial]. Kinds:
// 'phase', 'param', 'objective', 'metric', 'why' (reason and message's
// last line, for trials that did not succeed).
export function compareRows(spec, trials) {
  const objective = spec.objective.objectiveMetricName;
  const metrics = [];
  for (const t of trials) {
    for (const m of t.metrics || []) if (m.name !== objective && !metrics.includes(m.name)) metrics.push(m.name);
  }
  const latest = (t, name) => (t.metrics || []).find((m) => m.name === name)?.latest;
  return [
    ['phase', 'phase', trials.map((t) => t.phase)],
    ...spec.parameters.map((p) => [p.name, 'param', trials.map((t) => assignment(t, p.name))]),
    [objective, 'objective', trials.map((t) => objectiveOf(t))],
    ...metrics.map((m) => [m, 'metric', trials.map((t) => latest(t, m))]),
    ['why', 'why', trials.map((t) => (UNEXPLAINED_PHASES.has(t.phase) ? '' : whyOf(t)?.short ?? ''))],
  ];
}

// One line per trial of `metric` against the step, in the trial's colour.
export function compareCurvesOption(curves, names, metric, { logY = false } = {}) {
  let points = 0;
  const series = names.map((name, i) => {
    const data = (curves.get(name) || [])
      .filter((o) => o.metrics && typeof o.metrics[metric] === 'number' && (!logY || o.metrics[metric] > 0))
      .map((o) => [o.step, o.metrics[metric]]);
    points += data.length;
    return {
      type: 'line', name, data, showSymbol: data.length < 40, symbolSize: 5,
      lineStyle: { width: 2, color: COMPARE_COLORS[i % COMPARE_COLORS.length] },
      itemStyle: { color: COMPARE_COLORS[i % COMPARE_COLORS.length] },
      tooltip: { formatter: (q) => tip`${name}<br>step ${q.value[0]}: ${metric} = ${q.value[1]}` },
    };
  });
  return {
    points,
    empty: 'No observations of this metric',
    option: {
      animation: false,
      textStyle: { fontFamily: 'inherit' },
      grid: { left: 60, right: 24, top: 36, bottom: 40 },
      legend: { top: 0, type: 'scroll' },
      tooltip: { trigger: 'item' },
      xAxis: { type: 'value', name: 'step', nameLocation: 'middle', nameGap: 26, minInterval: 1, min: 'dataMin' },
      yAxis: { type: logY ? 'log' : 'value', name: metric, scale: true },
      series,
    },
  };
}
