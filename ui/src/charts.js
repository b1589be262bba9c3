// ECharts options for the dashboard's plots, built from API data by pure
// functions (no DOM), each returning { option, points } where `points` is
// how many data points the plot draws (exposed to tests as data-points).
//
// ECharts puts a tooltip's text into the page as HTML, so every tooltip
// here has a formatter function that builds it with html`...` (`tip`):
// names, categorical values and metric names are text. No formatter is an
// ECharts string template ('{b}'), whose substitutions are not escaped.
// Labels, titles, legends and axis names are drawn on the canvas as text.
import {
  assignment, axisValue, history, inCreationOrder, isBetter, objectiveOf, paramAxis, ranked,
} from './data.js';
import { PHASE_COLORS, num, rangeLabels } from './format.js';
import { html } from './html.js';

// A tooltip's content for ECharts, which wants a string.
const tip = (strings, ...values) => String(html(strings, ...values));

const BASE = { animation: false, textStyle: { fontFamily: 'inherit' } };
const AXIS_TYPE = { value: 'value', log: 'log', category: 'category' };

function fsBound(param, key) {
  const v = Number((param.feasibleSpace || {})[key]);
  return Number.isFinite(v) ? v : undefined;
}

// How each phase is drawn in the optimisation history: failed and
// early-stopped trials stand out by shape as well as colour.
export const PHASE_SYMBOLS = {
  Succeeded: 'circle', Running: 'circle', Pending: 'circle', EarlyStopped: 'diamond',
  Failed: 'triangle', Killed: 'rect', MetricsUnavailable: 'rect',
};
const CROSS = 'path://M0,0L10,10M10,0L0,10';

// Objective per trial in creation order, one scatter series per phase (so
// the legend explains the colours and shapes), with the best-so-far step
// line. Finished trials without a value are crosses along the chart's
// bottom edge (a second, hidden y-axis from 0 to 1), one series per phase,
// so a run of failures shows. Data are plain [x, y] arrays, which ECharts
// draws much faster than objects.
export function historyOption(trials, spec) {
  const { points, best, missing } = history(trials, spec);
  const metric = spec.objective.objectiveMetricName;
  const phases = [...new Set(points.map((p) => p.phase))];
  const names = phases.map(() => []);
  const data = phases.map(() => []);
  for (const p of points) {
    const i = phases.indexOf(p.phase);
    data[i].push([p.x, p.y]);
    names[i].push(p.name);
  }
  const series = phases.map((phase, i) => ({
    type: 'scatter', name: phase, data: data[i], symbolSize: points.length > 300 ? 4 : 7, large: true, largeThreshold: 500,
    progressive: 2000, progressiveThreshold: 5000,
    symbol: PHASE_SYMBOLS[phase] || 'circle',
    itemStyle: { color: PHASE_COLORS[phase] || '#1f6feb' },
    tooltip: { formatter: (q) => tip`${names[i][q.dataIndex]} (${phase})<br>${metric} = ${num(q.value[1])}` },
  }));
  const missingPhases = [...new Set(missing.map((p) => p.phase))];
  for (const phase of missingPhases) {
    const these = missing.filter((p) => p.phase === phase);
    series.push({
      type: 'scatter', name: `${phase} (no value)`, yAxisIndex: 1, data: these.map((p) => [p.x, 0.03]),
      symbol: CROSS, symbolSize: 8, z: 4,
      itemStyle: { color: 'none', borderColor: PHASE_COLORS[phase] || '#8c959f', borderWidth: 2 },
      tooltip: { formatter: (q) => tip`${these[q.dataIndex].name} (${phase})<br>no ${metric} reported` },
    });
  }
  const line = {
    type: 'line', name: 'best so far', step: 'end', showSymbol: false, z: 3,
    lineStyle: { color: '#d1242f', width: 2 }, itemStyle: { color: '#d1242f' }, data: best,
    tooltip: { formatter: (q) => tip`best after trial ${q.value[0]}: ${num(q.value[1])}` },
  };
  if (spec.objective.goal !== undefined) {
    const goal = `goal ${num(spec.objective.goal)}`;
    line.markLine = {
      silent: true, symbol: 'none', lineStyle: { type: 'dashed', color: '#999' },
      label: { formatter: () => goal, position: 'insideEndTop' }, data: [{ yAxis: spec.objective.goal }],
    };
  }
  series.push(line);
  return {
    points: points.length + missing.length,
    empty: 'No trial has reported the objective yet',
    option: {
      ...BASE,
      grid: { left: 60, right: 24, top: 36, bottom: 40 },
      legend: { top: 0, type: 'scroll' },
      tooltip: { trigger: 'item' },
      xAxis: { type: 'value', name: 'trial', nameLocation: 'middle', nameGap: 26, minInterval: 1, min: 'dataMin' },
      yAxis: [
        { type: 'value', name: metric, scale: true },
        { type: 'value', min: 0, max: 1, show: false },
      ],
      series,
    },
  };
}

// One line per ranked trial (Succeeded, EarlyStopped), across one axis per
// parameter (log for logUniform, categories for categorical/discrete) and
// the objective. A conditional parameter (one with a parent) that is
// inactive in a trial has no value there: the line skips its axis (ECharts
// leaves out null values) rather than the trial being dropped.
export function parallelOption(allTrials, spec) {
  const trials = ranked(allTrials);
  const params = spec.parameters;
  const axes = params.map((p) => paramAxis(p));
  for (const [i, a] of axes.entries()) {
    if (a.kind !== 'category') continue;
    for (const t of trials) {
      const v = assignment(t, params[i].name);
      if (v !== undefined && !a.categories.includes(v)) a.categories.push(v);
    }
  }
  const data = [];
  let lo = Infinity;
  let hi = -Infinity;
  for (const t of trials) {
    const y = objectiveOf(t);
    if (y === undefined) continue;
    const row = axes.map((a, i) => axisValue(a, assignment(t, params[i].name)));
    if (row.some((v, i) => v === undefined && !params[i].parent)) continue;
    data.push([...row.map((v) => v ?? null), y]);
    lo = Math.min(lo, y);
    hi = Math.max(hi, y);
  }
  const minimize = spec.objective.type !== 'maximize';
  const n = params.length;
  return {
    points: data.length,
    empty: 'No finished trial yet',
    option: {
      ...BASE,
      parallel: { left: 60, right: 110, top: 40, bottom: 30 },
      parallelAxis: [
        ...params.map((p, i) => ({
          dim: i, name: p.name, type: AXIS_TYPE[axes[i].kind],
          data: axes[i].kind === 'category' ? axes[i].categories : undefined,
          min: axes[i].kind === 'category' ? undefined : fsBound(p, 'min'),
          max: axes[i].kind === 'category' ? undefined : fsBound(p, 'max'),
          scale: true,
        })),
        { dim: n, name: spec.objective.objectiveMetricName, type: 'value', scale: true },
      ],
      visualMap: data.length ? {
        type: 'continuous', dimension: n, min: lo, max: hi === lo ? lo + 1 : hi, calculable: true,
        formatter: rangeLabels(lo, hi === lo ? lo + 1 : hi), right: 10, top: 'middle', itemHeight: 120, text: [minimize ? 'worse' : 'better', minimize ? 'better' : 'worse'],
        inRange: { color: minimize ? ['#1a7f37', '#e3b341', '#cf222e'] : ['#cf222e', '#e3b341', '#1a7f37'] },
      } : undefined,
      series: [{
        type: 'parallel', data, progressive: 500, progressiveThreshold: 1000, progressiveChunkMode: 'mod',
        lineStyle: { width: 1, opacity: 0.5 },
        emphasis: { lineStyle: { width: 3, opacity: 1 } },
      }],
    },
  };
}

// Learning curves of `metric` for the trials in `curves` (name ->
// observations). Lines are grouped by how the trial ended; early-stopped
// (and killed) trials are drawn dashed and end in a cross where they were cut.
export function curvesOption(curves, trialsByName, metric, { logY = false } = {}) {
  const groups = [
    { name: 'running', phases: ['Running', 'Pending'], color: PHASE_COLORS.Running },
    { name: 'completed', phases: ['Succeeded', 'MetricsUnavailable'], color: '#57606a' },
    { name: 'early-stopped', phases: ['EarlyStopped'], color: PHASE_COLORS.EarlyStopped, cut: true },
    { name: 'failed / killed', phases: ['Failed', 'Killed'], color: PHASE_COLORS.Failed, cut: true },
  ];
  const lines = groups.map(() => []);
  const cuts = groups.map(() => []);
  let points = 0;
  let lo = Infinity;
  let hi = -Infinity;
  let maxStep = 0;
  let minStep = Infinity;
  for (const [name, observations] of curves) {
    const trial = trialsByName.get(name);
    const g = groups.findIndex((x) => x.phases.includes(trial ? trial.phase : 'Running'));
    const coords = [];
    for (const o of observations || []) {
      const v = o.metrics ? o.metrics[metric] : undefined;
      if (typeof v !== 'number' || (logY && v <= 0)) continue;
      coords.push([o.step, v]);
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
      maxStep = Math.max(maxStep, o.step);
      minStep = Math.min(minStep, o.step);
    }
    if (!coords.length) continue;
    points += coords.length;
    if (coords.length === 1) coords.push(coords[0]);
    lines[g < 0 ? 1 : g].push({ name, coords });
    if (g >= 0 && groups[g].cut) cuts[g].push({ name, value: coords[coords.length - 1] });
  }
  const series = [];
  groups.forEach((g, i) => {
    series.push({
      type: 'lines', name: g.name, coordinateSystem: 'cartesian2d', polyline: true,
      large: lines[i].length > 300, largeThreshold: 300, data: lines[i],
      lineStyle: { color: g.color, width: 1.2, opacity: g.name === 'completed' ? 0.45 : 0.85, type: g.cut ? 'dashed' : 'solid' },
      emphasis: { lineStyle: { width: 3, opacity: 1 } },
    });
    if (g.cut) {
      series.push({
        type: 'scatter', name: g.name, data: cuts[i], symbol: 'path://M0,0L10,10M10,0L0,10',
        symbolSize: 9, itemStyle: { borderColor: g.color, borderWidth: 2, color: 'none' }, z: 5,
      });
    }
  });
  // ECharts does not size axes to a `lines` series: an invisible scatter
  // at the data's corners makes it pick the extent and round ticks itself.
  if (points) {
    series.push({
      type: 'scatter', name: 'extent', data: [[minStep, lo], [maxStep, hi]], symbolSize: 0,
      silent: true, tooltip: { show: false }, legendHoverLink: false,
    });
  }
  return {
    points,
    empty: 'No observations yet',
    option: {
      ...BASE,
      grid: { left: 60, right: 24, top: 36, bottom: 40 },
      legend: { top: 0, data: groups.map((g) => ({ name: g.name, itemStyle: { color: g.color } })) },
      tooltip: { trigger: 'item', formatter: (p) => (p.seriesType === 'scatter' ? tip`${p.name} cut at step ${p.value[0]}` : tip`${p.name}`) },
      xAxis: { type: 'value', name: 'step', nameLocation: 'middle', nameGap: 26, min: 'dataMin', max: 'dataMax', minInterval: 1 },
      yAxis: { type: logY ? 'log' : 'value', name: metric, scale: true },
      series,
    },
  };
}

// One small scatter per parameter: objective against the parameter's value,
// for the ranked trials; the best is red.
export function sliceOption(allTrials, spec, { columns = 3, rowHeight = 210 } = {}) {
  const trials = ranked(allTrials);
  const params = spec.parameters;
  const cols = Math.max(1, Math.min(columns, params.length));
  const type = spec.objective.type;
  const scored = inCreationOrder(trials)
    .map((t) => [t, objectiveOf(t)])
    .filter(([, y]) => y !== undefined);
  let best;
  for (const [t, y] of scored) if (!best || isBetter(y, best[1], type)) best = [t, y];
  const o = { ...BASE, title: [], grid: [], xAxis: [], yAxis: [], series: [], tooltip: { trigger: 'item' } };
  let points = 0;
  params.forEach((p, i) => {
    const axis = paramAxis(p);
    const r = Math.floor(i / cols);
    const c = i % cols;
    const left = (100 / cols) * c;
    o.title.push({ text: p.name, left: `${left + 100 / cols / 2}%`, textAlign: 'center', top: r * rowHeight + 4, textStyle: { fontSize: 13 } });
    o.grid.push({ left: `${left + 7}%`, width: `${100 / cols - 10}%`, top: r * rowHeight + 34, height: rowHeight - 80 });
    o.xAxis.push({
      gridIndex: i, type: AXIS_TYPE[axis.kind], data: axis.kind === 'category' ? axis.categories : undefined,
      min: axis.kind === 'category' ? undefined : fsBound(p, 'min'), max: axis.kind === 'category' ? undefined : fsBound(p, 'max'),
      scale: true, axisLabel: { hideOverlap: true },
    });
    o.yAxis.push({ gridIndex: i, type: 'value', scale: true });
    const data = [];
    const names = [];
    let bestIndex = -1;
    for (const [t, y] of scored) {
      const x = axisValue(axis, assignment(t, p.name));
      if (x === undefined) continue;
      if (axis.kind === 'category' && !axis.categories.includes(x)) axis.categories.push(x);
      if (best && t === best[0]) bestIndex = data.length;
      data.push([x, y]);
      names.push(t.name);
    }
    points += data.length;
    const tooltip = { formatter: (q) => tip`${names[q.dataIndex]}<br>${p.name} = ${q.value[0]}<br>${num(q.value[1])}` };
    o.series.push({
      type: 'scatter', xAxisIndex: i, yAxisIndex: i, data, symbolSize: data.length > 300 ? 4 : 6, large: true, largeThreshold: 500,
      progressive: 2000, progressiveThreshold: 5000,
      itemStyle: { color: '#1f6feb', opacity: 0.6 }, tooltip,
    });
    // The best trial on top, in red.
    o.series.push({
      type: 'scatter', xAxisIndex: i, yAxisIndex: i, data: bestIndex < 0 ? [] : [data[bestIndex]], symbolSize: 9,
      itemStyle: { color: '#d1242f' }, z: 3, tooltip: { formatter: (q) => tip`best: ${best[0].name}<br>${p.name} = ${q.value[0]}<br>${num(q.value[1])}` },
    });
  });
  return { points, empty: 'No finished trial yet', height: Math.ceil(params.length / cols) * rowHeight, option: o };
}

// A single trial's curves: one line per metric against the step.
export function trialCurveOption(observations, metrics) {
  let points = 0;
  const series = metrics.map((m) => {
    const data = observations
      .filter((o) => o.metrics && typeof o.metrics[m] === 'number')
      .map((o) => [o.step, o.metrics[m]]);
    points += data.length;
    return { type: 'line', name: m, data, showSymbol: data.length < 60, symbolSize: 5 };
  });
  return {
    points,
    empty: 'No observations yet',
    option: {
      ...BASE,
      grid: { left: 60, right: 24, top: 36, bottom: 40 },
      legend: { top: 0 },
      tooltip: {
        trigger: 'axis',
        formatter: (ps) => tip`step ${ps[0]?.value[0]}${ps.map((q) =>
          html`<br><span class="tip-dot" style="background:${q.color}"></span>${q.seriesName}: ${num(q.value[1])}`)}`,
      },
      xAxis: { type: 'value', name: 'step', nameLocation: 'middle', nameGap: 26, minInterval: 1, min: 'dataMin' },
      yAxis: { type: 'value', scale: true },
      series,
    },
  };
}
