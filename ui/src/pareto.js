// The multi-objective plots of the experiment page, pure (no DOM): the
// Succeeded trials on two objectives with the Pareto front highlighted
// (and, with exactly two objectives, joined by the step line that bounds
// what it dominates), and the hypervolume after each trial from
// GET .../pareto. Tooltips are built with html`...` (names, parameter
// values and metric names are text), as in charts.js.
import { inCreationOrder, objectiveValues, objectivesOf } from './data.js';
import { num } from './format.js';
import { html } from './html.js';

const tip = (strings, ...values) => String(html(strings, ...values));
const BASE = { animation: false, textStyle: { fontFamily: 'inherit' } };
const FRONT_COLOR = '#d1242f';

const arrow = (type) => (type === 'maximize' ? '↑' : '↓');

// The axes offered for the scatter: one choice per objective.
export function objectiveChoices(spec) {
  return objectivesOf(spec).map((o, i) => ({ value: String(i), label: `${o.name} ${arrow(o.type)}` }));
}

// The Succeeded trials that reported every objective, in creation order:
// [{ name, values, params }].
export function scoredTrials(trials, spec) {
  const out = [];
  for (const t of inCreationOrder(trials)) {
    if (t.phase !== 'Succeeded') continue;
    const values = objectiveValues(t, spec);
    if (values) out.push({ name: t.name, values, params: t.parameterAssignments || [] });
  }
  return out;
}

// The front's points sorted along x, and the step line through them that
// bounds the region they dominate: ECharts' step 'end' keeps a point's y
// up to the next x (right for x minimised), 'start' jumps to the next y
// first (x maximised).
export function frontLine(points, xType) {
  const sorted = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return { data: sorted, step: xType === 'maximize' ? 'start' : 'end' };
}

// The scatter of objectives `xi` and `yi` (indices into objectivesOf);
// `front`: the names on the Pareto front (status.paretoFront).
export function paretoOption(trials, spec, front, xi = 0, yi = 1) {
  const objectives = objectivesOf(spec);
  const ox = objectives[xi];
  const oy = objectives[yi];
  const onFront = new Set(front);
  const scored = scoredTrials(trials, spec);
  const groups = { rest: [], front: [] };
  for (const t of scored) (onFront.has(t.name) ? groups.front : groups.rest).push(t);
  const point = (t) => [t.values[xi], t.values[yi]];
  const describe = (t, label) => tip`${t.name}${label}${objectives.map((o, i) =>
    html`<br>${o.name} = ${num(t.values[i])}`)}${t.params.map((a) => html`<br>${a.name} = ${a.value}`)}`;
  const series = [
    {
      type: 'scatter', name: 'trials', data: groups.rest.map(point), symbolSize: scored.length > 300 ? 5 : 8,
      itemStyle: { color: '#1f6feb', opacity: 0.55 }, large: true, largeThreshold: 500,
      tooltip: { formatter: (q) => describe(groups.rest[q.dataIndex], '') },
    },
    {
      type: 'scatter', name: 'Pareto front', data: groups.front.map(point), symbolSize: 11, z: 4,
      itemStyle: { color: FRONT_COLOR },
      tooltip: { formatter: (q) => describe(groups.front[q.dataIndex], ' (Pareto front)') },
    },
  ];
  if (objectives.length === 2 && groups.front.length) {
    const line = frontLine(groups.front.map(point), ox.type);
    series.push({
      type: 'line', name: 'front', data: line.data, step: line.step, showSymbol: false, z: 3,
      lineStyle: { color: FRONT_COLOR, width: 1.5 }, itemStyle: { color: FRONT_COLOR }, silent: true,
      tooltip: { show: false },
    });
  }
  const axis = (o) => ({
    type: 'value', name: `${o.name} ${arrow(o.type)}`, nameLocation: 'middle', scale: true,
    axisLine: { onZero: false },
  });
  return {
    points: scored.length,
    front: groups.front.length,
    empty: 'No trial has reported every objective yet',
    option: {
      ...BASE,
      grid: { left: 64, right: 24, top: 36, bottom: 48 },
      legend: { top: 0, data: ['trials', 'Pareto front'] },
      tooltip: { trigger: 'item' },
      xAxis: { ...axis(ox), nameGap: 28 },
      yAxis: { ...axis(oy), nameGap: 44 },
      series,
    },
  };
}

// The hypervolume after each trial (GET .../pareto's hypervolumeCurve, one
// entry per trial in creation order), x the trial's index.
export function hypervolumeOption(doc, trials) {
  const curve = (doc && doc.hypervolumeCurve) || [];
  const index = new Map(trials.map((t) => [t.name, t.index]));
  const names = curve.map((p) => p.trial);
  const data = curve.map((p, k) => [index.get(p.trial) ?? k + 1, p.hypervolume]);
  return {
    points: data.length,
    empty: 'No trial has reported every objective yet',
    option: {
      ...BASE,
      grid: { left: 64, right: 24, top: 24, bottom: 40 },
      tooltip: { trigger: 'item' },
      xAxis: { type: 'value', name: 'trial', nameLocation: 'middle', nameGap: 26, minInterval: 1, min: 'dataMin' },
      yAxis: { type: 'value', name: 'hypervolume', scale: true },
      series: [{
        type: 'line', name: 'hypervolume', step: 'end', data, showSymbol: data.length <= 60, symbolSize: 5,
        lineStyle: { color: '#8250df', width: 2 }, itemStyle: { color: '#8250df' }, areaStyle: { opacity: 0.08 },
        tooltip: { formatter: (q) => tip`after ${names[q.dataIndex]} (trial ${q.value[0]})<br>hypervolume = ${num(q.value[1])}` },
      }],
    },
  };
}

// The note under the hypervolume chart: the value and its reference point.
export function hypervolumeNote(doc) {
  if (!doc || doc.hypervolume === null || doc.hypervolume === undefined) return '';
  const ref = (doc.reference || []).map(num).join(', ');
  return `hypervolume ${num(doc.hypervolume)}, dominated from the reference point (${ref}); ` +
    `${doc.front.length} trial${doc.front.length === 1 ? '' : 's'} on the front`;
}
