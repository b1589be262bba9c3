// Puts ECharts options on the page: one chart instance per element, kept
// across polls (setOption replaces the option without re-creating the
// canvas) and disposed together when the page changes. With the system in
// dark mode (prefers-color-scheme) charts use ECharts' built-in dark
// theme on a transparent background, so the card's colour shows through;
// app.js re-renders the page when the setting changes.
import * as echarts from './vendor/echarts.esm.min.js';

const live = new Set();
const darkQuery = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;

export function isDark() {
  return Boolean(darkQuery && darkQuery.matches);
}

// Calls `fn` when the system switches between light and dark.
export function onSchemeChange(fn) {
  if (darkQuery) darkQuery.addEventListener('change', fn);
}

// Draws `plot` ({ option, points, height?, empty? }) into `el` and records
// the number of points drawn in el.dataset.points; with no points, the
// `empty` text says why.
export function draw(el, plot) {
  if (plot.height && el.style.height !== `${plot.height}px`) {
    el.style.height = `${plot.height}px`;
    const old = echarts.getInstanceByDom(el);
    if (old) old.resize();
  }
  let chart = echarts.getInstanceByDom(el);
  if (!chart) {
    chart = echarts.init(el, isDark() ? 'dark' : null, { renderer: 'canvas' });
    live.add(chart);
    el.dataset.chart = 'echarts';
  }
  let option = plot.option;
  if (!plot.points) {
    const note = {
      text: plot.empty || 'Nothing to show yet', left: 'center', top: 'middle',
      textStyle: { color: isDark() ? '#8b949e' : '#8c959f', fontSize: 14, fontWeight: 'normal' },
    };
    option = { ...option, title: [...[option.title || []].flat(), note] };
  }
  if (isDark()) option = { backgroundColor: 'transparent', ...option };
  chart.setOption(option, { notMerge: true });
  el.dataset.points = String(plot.points);
  return chart;
}

export function disposeAll() {
  for (const c of live) c.dispose();
  live.clear();
}

// For tests and for debugging in the console: the instance behind an element.
export function chartOf(el) {
  return echarts.getInstanceByDom(el);
}

let resizeTimer;
window.addEventListener('resize', () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => live.forEach((c) => c.resize()), 100);
});
