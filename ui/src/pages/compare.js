// The comparison page (#/experiments/NAME/compare?trials=a,b,c): the
// chosen trials side by side, one column each (phase, parameters,
// objective, other metrics' latest values, reason), and their learning
// curves overlaid, fetched through the experiment page's CurveStore.
import { ApiError, api } from '../api.js';
import { draw } from '../chart_host.js';
import {
  COMPARE_COLORS, MAX_COMPARE, MIN_COMPARE, compareCurvesOption, compareRows, compareTrials,
} from '../comparison.js';
import { CurveStore } from '../curves.js';
import { metricNames } from '../data.js';
import { badge, href, num } from '../format.js';
import { html, setHtml } from '../html.js';

export const id = 'compare';

function cell(kind, v) {
  if (kind === 'phase') return badge(v);
  if (kind === 'objective' || kind === 'metric') return num(v);
  // Numbers as the trial table shows them; other values as they are.
  if (kind === 'param') return v !== undefined && v !== '' && Number.isFinite(Number(v)) ? num(v) : v ?? '—';
  return v;
}

function tableHtml(spec, trials, experiment) {
  const rows = compareRows(spec, trials);
  return html`<table class="grid compact" id="compare-table">
    <thead><tr><th></th>${trials.map((t, i) => html`<th data-trial="${t.name}">
      <span class="tip-dot" style="background:${COMPARE_COLORS[i % COMPARE_COLORS.length]}"></span>
      <a href="${href('experiments', experiment, 'trials', t.name)}">${t.name}</a></th>`)}</tr></thead>
    <tbody>${rows.map(([label, kind, values]) => html`<tr data-row="${kind}">
      <th>${label}${kind === 'objective' ? html` <span class="muted small">(objective)</span>` : ''}</th>
      ${values.map((v) => html`<td class="${kind === 'objective' || kind === 'metric' ? 'num' : ''}">${cell(kind, v)}</td>`)}</tr>`)}
    </tbody></table>`;
}

export async function render(root, ctx, experiment) {
  const wanted = compareTrials(location.hash.split('?')[1]);
  setHtml(root, html`
    <div class="page-head"><h1><a href="${href()}" class="muted">Experiments</a> /
      <a href="${href('experiments', experiment)}" class="muted">${experiment}</a> / compare</h1></div>
    <section class="card"><h2>Trials side by side</h2><div class="table-scroll" id="compare-body"></div></section>
    <section class="card">
      <h2>Learning curves</h2>
      <div class="table-controls">
        <label>Metric <select id="compare-metric"></select></label>
        <label><input type="checkbox" id="compare-log"> log scale</label>
      </div>
      <div class="chart" id="chart-compare"></div>
    </section>`);
  const $ = (sel) => root.querySelector(sel);
  if (wanted.length < MIN_COMPARE) {
    setHtml($('#compare-body'), html`<p class="muted">Pick ${MIN_COMPARE} to ${MAX_COMPARE} trials in the
      <a href="${href('experiments', experiment)}">experiment's trial table</a> and press Compare.</p>`);
  }
  let exp;
  let trials = [];
  let metric = '';
  let lastSignature = '';
  const drawCurves = () => {
    if (!ctx.alive || !exp) return;
    const plot = compareCurvesOption(store.curves(), trials.map((t) => t.name), metric, { logY: $('#compare-log').checked });
    draw($('#chart-compare'), plot);
    $('#chart-compare').dataset.loading = store.loading ? '1' : '0';
  };
  const store = new CurveStore(experiment, drawCurves);
  const close = ctx.close.bind(ctx);
  ctx.close = () => {
    store.close();
    close();
  };
  $('#compare-metric').onchange = (e) => {
    metric = e.target.value;
    drawCurves();
  };
  $('#compare-log').onchange = drawCurves;

  async function poll() {
    let x;
    let all;
    try {
      [x, all] = await Promise.all([api.experiment(experiment), api.trials(experiment)]);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        setHtml(root, html`<div class="error-box">No experiment named <b>${experiment}</b>. <a href="${href()}">Back to the list</a>.</div>`);
        return 0;
      }
      throw e;
    }
    if (!ctx.alive) return 0;
    const byName = new Map(all.map((t) => [t.name, t]));
    const missing = wanted.filter((n) => !byName.has(n));
    trials = wanted.filter((n) => byName.has(n)).map((n) => byName.get(n));
    const signature = JSON.stringify(trials);
    if (signature !== lastSignature && wanted.length >= MIN_COMPARE) {
      lastSignature = signature;
      exp = x;
      setHtml($('#compare-body'), html`${tableHtml(x.spec, trials, experiment)}${missing.length
        ? html`<p class="muted small">Not in this experiment: ${missing.join(', ')}</p>` : ''}`);
      const names = metricNames(x.spec, trials);
      if (!metric) metric = names[0];
      const select = $('#compare-metric');
      if (select.options.length !== names.length) {
        select.replaceChildren(...names.map((m) => new Option(m, m)));
        select.value = metric;
      }
      store.refresh(trials, x.spec);
      drawCurves();
    }
    root.dataset.loaded = '1';
    return trials.some((t) => t.phase === 'Running' || t.phase === 'Pending') ? 2000 : 0;
  }

  await ctx.every(2000, poll);
}
