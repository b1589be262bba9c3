// The experiment page's two-parameter plot: one point per ranked trial at
// (x parameter, y parameter), coloured by its objective value (green is
// better), with the best trial ringed. Log axes for logUniform, category
// axes for categorical and discrete parameters. Pure (no DOM).
import { assignment, axisValue, isBetter, objectiveOf, paramAxis, ranked } from './data.js';
import { num, rangeLabels } from './format.js';
import { html } from './html.js';

const tip = (strings, ...values) => String(html(strings, ...values));
const AXIS_TYPE = { value: 'value', log: 'log', category: 'category' };

function bound(param, key) {
  const v = Number((param.feasibleSpace || {})[key]);
  return Number.isFinite(v) ? v : undefined;
}

function axisFor(param, values) {
  const a = paramAxis(param);
  if (a.kind === 'category') {
    for (const v of values) if (v !== undefined && !a.categories.includes(v)) a.categories.push(v);
  }
  return a;
}

// The pair of parameters shown first: the two most important (when the
// importance is known), else the spec's first two.
export function defaultPair(spec, importance) {
  const names = spec.parameters.map((p) => p.name);
  const ranked = ((importance && importance.parameters) || []).map((p) => p.name).filter((n) => names.includes(n));
  const order = [...ranked, ...names.filter((n) => !ranked.includes(n))];
  return [order[0], order[1] ?? order[0]];
}

export function contourOption(allTrials, spec, xName, yName) {
  const params = new Map(spec.parameters.map((p) => [p.name, p]));
  const px = params.get(xName);
  const py = params.get(yName);
  const metric = spec.objective.objectiveMetricName;
  const minimize = spec.objective.type !== 'maximize';
  const trials = ranked(allTrials).filter((t) => objectiveOf(t) !== undefined);
  if (!px || !py) return { points: 0, empty: 'Choose two parameters', option: {} };
  const ax = axisFor(px, trials.map((t) => assignment(t, xName)));
  const ay = axisFor(py, trials.map((t) => assignment(t, yName)));
  const data = [];
  const names = [];
  let lo = Infinity;
  let hi = -Infinity;
  let best = -1;
  for (const t of trials) {
    const x = axisValue(ax, assignment(t, xName));
    const y = axisValue(ay, assignment(t, yName));
    const v = objectiveOf(t);
    if (x === undefined || y === undefined) continue;
    if (best < 0 || isBetter(v, data[best][2], spec.objective.type)) best = data.length;
    data.push([x, y, v]);
    names.push(t.name);
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  const axis = (a, p, name) => ({
    type: AXIS_TYPE[a.kind], name, nameLocation: 'middle', nameGap: 28, scale: true,
    data: a.kind === 'category' ? a.categories : undefined,
    min: a.kind === 'category' ? undefined : bound(p, 'min'),
    max: a.kind === 'category' ? undefined : bound(p, 'max'),
    splitLine: { show: a.kind !== 'category' },
    axisLine: { onZero: false },
  });
  const formatter = (q) => tip`${names[q.dataIndex]}<br>${xName} = ${q.value[0]}<br>${yName} = ${q.value[1]}<br>${metric} = ${num(q.value[2])}`;
  return {
    points: data.length,
    empty: 'No finished trial yet',
    option: {
      animation: false,
      textStyle: { fontFamily: 'inherit' },
      grid: { left: 64, right: 96, top: 20, bottom: 48 },
      tooltip: { trigger: 'item' },
      xAxis: axis(ax, px, xName),
      yAxis: { ...axis(ay, py, yName), nameGap: 44 },
      visualMap: data.length ? {
        type: 'continuous', dimension: 2, seriesIndex: 0, min: lo, max: hi === lo ? lo + 1 : hi, calculable: true,
        formatter: rangeLabels(lo, hi === lo ? lo + 1 : hi),
        right: 4, top: 'middle', itemHeight: 140, text: [minimize ? 'worse' : 'better', minimize ? 'better' : 'worse'],
        inRange: { color: minimize ? ['#1a7f37', '#e3b341', '#cf222e'] : ['#cf222e', '#e3b341', '#1a7f37'] },
      } : undefined,
      series: [
        {
          type: 'scatter', data, symbolSize: data.length > 300 ? 6 : 11,
          itemStyle: { opacity: 0.9 }, tooltip: { formatter },
        },
        {
          type: 'scatter', data: best < 0 ? [] : [data[best]], symbolSize: 18, z: 3, silent: false,
          itemStyle: { color: 'none', borderColor: '#d1242f', borderWidth: 2 },
          tooltip: { formatter: (q) => tip`best: ${names[best]}<br>${xName} = ${q.value[0]}<br>${yName} = ${q.value[1]}<br>${metric} = ${num(q.value[2])}` },
        },
      ],
    },
  };
}
