// Parameter importance (GET .../importance): the chart's title for the
// method the server used, and a horizontal bar chart of the parameters,
// the most important at the top, in the order the server ranked them.
// Pure (no DOM), like charts.js; the tooltip is built with html`...`.
import { html } from './html.js';

const tip = (strings, ...values) => String(html(strings, ...values));

export const METHOD_TITLES = {
  gp: "from the GP's fitted length-scales",
  fanova: 'fANOVA-style main effects',
};

// "Parameter importance — fANOVA-style main effects (24 trials)".
export function importanceTitle(result) {
  if (!result) return 'Parameter importance';
  const how = METHOD_TITLES[result.method] || String(result.method);
  return `Parameter importance — ${how} (${result.trials} trial${result.trials === 1 ? '' : 's'})`;
}

export function importanceOption(result) {
  const params = (result && result.parameters) || [];
  // ECharts draws a category y-axis from the bottom up: reversed, the
  // first (most important) parameter is the top bar.
  const rows = [...params].reverse();
  const gp = result && result.method === 'gp';
  const pct = (v) => `${(100 * v).toFixed(1)}%`;
  return {
    points: params.length,
    empty: (result && result.note) || 'Not enough finished trials yet',
    // As tall as the contour card beside it, taller for many parameters.
    height: Math.max(300, 40 + 30 * params.length),
    option: {
      animation: false,
      textStyle: { fontFamily: 'inherit' },
      grid: { left: 12, right: 56, top: 8, bottom: 24, containLabel: true },
      tooltip: {
        trigger: 'item',
        formatter: (q) => {
          const p = rows[q.dataIndex];
          return tip`${p.name}: ${pct(p.importance)}${gp && p.lengthScale !== undefined
            ? html`<br>length-scale ${p.lengthScale.toPrecision(3)} (unit cube)` : ''}`;
        },
      },
      xAxis: { type: 'value', min: 0, max: 1, axisLabel: { formatter: (v) => `${Math.round(100 * v)}%` } },
      yAxis: { type: 'category', data: rows.map((p) => p.name), axisTick: { show: false } },
      series: [{
        type: 'bar', data: rows.map((p) => p.importance), barMaxWidth: 22,
        itemStyle: { color: '#1f6feb', borderRadius: [0, 3, 3, 0] },
        label: { show: true, position: 'right', formatter: (q) => pct(q.value) },
      }],
    },
  };
}
