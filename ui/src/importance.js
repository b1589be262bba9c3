// Parameter importance (GET .../importance): the chart's title for the
// method the server used, and a horizontal bar chart of the parameters,
// the most important at the top, in the order the server ranked them.
// fANOVA's bars carry "± x%", the spread over the forest's trees; a GP's
// tooltip shows fANOVA's number beside it (the server's check).
// Pure (no DOM), like charts.js; the tooltip is built with html`...`.
import { html } from './html.js';

const tip = (strings, ...values) => String(html(strings, ...values));

export const METHOD_TITLES = {
  gp: "from the GP's fitted length-scales",
  fanova: 'fANOVA (random forest)',
};

// A share as a percentage: "41.0%", "<0.1%" when tiny but not nothing
// (never a "0.0%" for a parameter that matters), "0%" only for 0.
export function formatShare(v) {
  if (!(v > 0)) return '0%';
  if (v < 0.0005) return '<0.1%';
  return `${(100 * v).toFixed(1)}%`;
}

// "41.0% ± 12.0%" when the parameter has a stddev, else "41.0%".
export function formatImportance(p) {
  const spread = typeof p.stddev === 'number' ? ` ± ${formatShare(p.stddev)}` : '';
  return `${formatShare(p.importance)}${spread}`;
}

// "Parameter importance — fANOVA (random forest) (24 trials)".
export function importanceTitle(result) {
  if (!result) return 'Parameter importance';
  const how = METHOD_TITLES[result.method] || String(result.method);
  return `Parameter importance — ${how} (${result.trials} trial${result.trials === 1 ? '' : 's'})`;
}

// The line under the chart: the server's note, then how much of the
// variance the main effects explain (fANOVA) or that fANOVA agrees (GP).
export function importanceNote(result) {
  if (!result) return '';
  const parts = [];
  if (result.note) parts.push(result.note);
  if (typeof result.mainEffects === 'number' && (result.parameters || []).length) {
    parts.push(`main effects explain ${formatShare(result.mainEffects)} of the variance (the rest: interactions); ± is the spread over the forest's trees`);
  }
  if (result.fanova && result.fanova.agrees) parts.push('fANOVA ranks these trials alike (hover a bar for its number)');
  return parts.join('. ');
}

export function importanceOption(result) {
  const params = (result && result.parameters) || [];
  // ECharts draws a category y-axis from the bottom up: reversed, the
  // first (most important) parameter is the top bar.
  const rows = [...params].reverse();
  const gp = result && result.method === 'gp';
  const check = new Map(((result && result.fanova && result.fanova.parameters) || []).map((p) => [p.name, p]));
  const spread = rows.some((p) => typeof p.stddev === 'number');
  return {
    points: params.length,
    empty: (result && result.note) || 'Not enough finished trials yet',
    // As tall as the contour card beside it, taller for many parameters.
    height: Math.max(300, 40 + 30 * params.length),
    option: {
      animation: false,
      textStyle: { fontFamily: 'inherit' },
      grid: { left: 12, right: spread ? 112 : 56, top: 8, bottom: 24, containLabel: true },
      tooltip: {
        trigger: 'item',
        formatter: (q) => {
          const p = rows[q.dataIndex];
          const f = check.get(p.name);
          return tip`${p.name}: ${formatImportance(p)}${gp && p.lengthScale !== undefined
            ? html`<br>length-scale ${p.lengthScale.toPrecision(3)} (unit cube)` : ''}${f
            ? html`<br>fANOVA: ${formatImportance(f)}` : ''}${typeof p.stddev === 'number'
            ? html`<br>± spread over the forest's trees` : ''}`;
        },
      },
      xAxis: { type: 'value', min: 0, max: 1, axisLabel: { formatter: (v) => `${Math.round(100 * v)}%` } },
      yAxis: { type: 'category', data: rows.map((p) => p.name), axisTick: { show: false } },
      series: [{
        type: 'bar', data: rows.map((p) => p.importance), barMaxWidth: 22,
        itemStyle: { color: '#1f6feb', borderRadius: [0, 3, 3, 0] },
        label: { show: true, position: 'right', formatter: (q) => formatImportance(rows[q.dataIndex]) },
      }],
    },
  };
}
