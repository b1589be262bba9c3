// The experiment page: summary, best trial, plots and the trial table,
// polled every 2 s while the experiment runs (10 s once it has finished).
// Stop, Delete and the trials' Stop buttons only for those who may change
// the namespace (ctx.writable).
//
// A large experiment (more than LARGE_TRIALS trials, columns.js) never
// downloads its whole trial list: the plots are drawn from the server's
// downsampled columns (GET .../trials:columns, which keeps every new best,
// the best trials and the failed ones), the table pages on the server, and
// learning curves are fetched only for trials of the sample.
import { ApiError, api } from '../api.js';
import { draw } from '../chart_host.js';
import { curvesOption, historyOption, parallelOption, sliceOption } from '../charts.js';
import { columnsToTrials, largeThreshold, samplePoints } from '../columns.js';
import { csvFileName, trialsCsv } from '../csv.js';
import { CurveStore } from '../curves.js';
import { FINISHED_EXPERIMENT, metricNames } from '../data.js';
import { href } from '../format.js';
import { html, setHtml } from '../html.js';
import { TrialTable } from '../trial_table.js';
import { confirmDialog, notice } from '../ui.js';
import { ANALYSIS_HTML, Analysis } from './experiment_analysis.js';
import { PARETO_HTML, ParetoCards } from './experiment_pareto.js';
import { bestHtml, headHtml, paramsHtml, summaryHtml, warningsHtml } from './experiment_summary.js';

export const id = 'experiment';

const SKELETON = html`
  <div id="exp-head"></div>
  <div id="exp-warnings"></div>
  <div class="cards three">
    <section class="card"><h2>Summary</h2><div id="exp-summary"></div></section>
    <section class="card"><h2>Search space</h2><div id="exp-spec"></div></section>
    <section class="card"><h2>Best trial</h2><div id="exp-best"></div></section>
  </div>
  ${PARETO_HTML}
  <div class="cards">
    <section class="card"><h2>Optimization history <span class="muted small" id="sample-note"></span></h2><div class="chart" id="chart-history"></div></section>
    <section class="card"><h2>Parallel coordinates</h2><div class="chart" id="chart-parallel"></div></section>
  </div>
  <section class="card">
    <h2>Learning curves</h2>
    <div class="table-controls">
      <label>Metric <select id="curve-metric"></select></label>
      <label><input type="checkbox" id="curve-log"> log scale</label>
      <span class="muted small" id="curve-status"></span>
      <button class="small secondary" id="curve-all" hidden>Load all curves</button>
    </div>
    <div class="chart" id="chart-curves"></div>
  </section>
  <section class="card"><h2>Objective by parameter <span class="muted small">(finished trials; the best in red)</span></h2><div class="chart" id="chart-slices"></div></section>
  ${ANALYSIS_HTML}
  <section class="card">
    <div class="card-head"><h2>Trials</h2><span class="spacer"></span>
      <button class="small secondary" id="export-csv" title="Every trial: name, phase, parameters, metrics' latest values, reason">Download CSV</button></div>
    <div id="trial-table"></div>
  </section>`;

export async function render(root, ctx, name) {
  setHtml(root, SKELETON);
  const $ = (sel) => root.querySelector(sel);
  let exp = null;
  let trials = [];
  let lastSignature = '';
  let metric = '';
  let large = null;  // decided by the first poll: page on the server?
  let sampleInfo = null;  // large: the sample's { rows, total, sampled, kept }

  const table = new TrialTable($('#trial-table'), ctx.writable && (async (trial) => {
    const ok = await confirmDialog({
      title: 'Stop trial', body: html`Stop <b>${trial}</b>? Its process is killed and it ends as Killed.`, confirm: 'Stop trial', danger: true,
    });
    if (!ok) return;
    try {
      await api.stopTrial(name, trial);
      notice(`Stopped ${trial}`, 'info');
      await poll();
    } catch (e) {
      notice(e.message);
    }
  }));

  const analysis = new Analysis(root, ctx, name);
  const pareto = new ParetoCards(root, ctx, name);
  $('#export-csv').onclick = async () => {
    if (!exp) return;
    // Built here from the trials (a large experiment's fetched now); a blob
    // URL, so nothing leaves the browser. The BOM makes spreadsheets read
    // it as UTF-8.
    const all = large ? await api.trials(name) : trials;  // every trial, only when asked
    const blob = new Blob(['\ufeff', trialsCsv(exp.spec, all)], { type: 'text/csv;charset=utf-8' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = csvFileName(name);
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  };

  const drawCurves = () => {
    if (!exp || !ctx.alive) return;
    const t0 = performance.now();
    const byName = new Map(trials.map((t) => [t.name, t]));
    const plot = curvesOption(store.curves(), byName, metric, { logY: $('#curve-log').checked });
    draw($('#chart-curves'), plot);
    $('#chart-curves').dataset.curves = String(store.curves().size);
    $('#chart-curves').dataset.curvesMs = (performance.now() - t0).toFixed(1);
    const limited = store.chosen.length < store.total;
    $('#curve-status').textContent = `${store.curves().size} of ${store.total} trials` +
      (limited ? ' (running, best and latest)' : '') + (store.loading ? ' · loading…' : '');
    $('#curve-all').hidden = !limited;
    $('#chart-curves').dataset.loading = store.loading ? '1' : '0';
  };
  const store = new CurveStore(name, drawCurves);
  const close = ctx.close.bind(ctx);
  ctx.close = () => {
    store.close();
    close();
  };

  $('#curve-metric').onchange = (e) => {
    metric = e.target.value;
    drawCurves();
  };
  $('#curve-log').onchange = drawCurves;
  $('#curve-all').onclick = () => {
    store.limit = Infinity;
    store.refresh(trials, exp.spec);
    drawCurves();
  };

  // `arrived`: when the data came in (performance.now()); the time from
  // then to the next frame is recorded in data-render-ms.
  function paint(arrived) {
    const spec = exp.spec;
    setHtml($('#exp-head'), headHtml(exp, ctx.writable));
    setHtml($('#exp-summary'), summaryHtml(exp));
    setHtml($('#exp-best'), bestHtml(exp));
    setHtml($('#exp-warnings'), warningsHtml(exp));
    if (!$('#exp-spec').firstChild) setHtml($('#exp-spec'), paramsHtml(spec));
    const names = metricNames(spec, trials);
    if (!metric) metric = names[0];
    const select = $('#curve-metric');
    if (select.options.length !== names.length) {
      select.replaceChildren(...names.map((m) => new Option(m, m)));
      select.value = metric;
    }
    const steps = {};
    let mark = arrived;
    const step = (label, fn) => {
      fn();
      const now = performance.now();
      steps[label] = Math.round(now - mark);
      mark = now;
    };
    step('summary', () => {});  // since the data arrived: the text parts
    step('pareto', () => pareto.update(exp, trials));
    step('history', () => draw($('#chart-history'), historyOption(trials, spec)));
    paintSampleNote();
    if (!root.dataset.firstChartMs) {
      // Since navigation started: what bench/ui_first_chart.mjs reads.
      requestAnimationFrame(() => { root.dataset.firstChartMs = performance.now().toFixed(1); });
    }
    step('parallel', () => draw($('#chart-parallel'), parallelOption(trials, spec)));
    step('slices', () => draw($('#chart-slices'), sliceOption(trials, spec)));
    step('curves', drawCurves);
    step('analysis', () => analysis.update(exp, trials));
    // The table last: the charts above measure their boxes, and doing that
    // before the rows go in keeps it to one cheap layout.
    step('table', () => table.update(exp, trials));
    root.dataset.steps = JSON.stringify(steps);
    wireActions();
    // Time to the next frame after the data arrived: script, layout and the
    // charts' first paint.
    requestAnimationFrame(() => setTimeout(() => {
      root.dataset.renderMs = (performance.now() - arrived).toFixed(1);
      root.dataset.trials = String(trials.length);
    }, 0));
  }

  function paintSampleNote() {
    const note = $('#sample-note');
    if (!sampleInfo || !sampleInfo.sampled) {
      note.textContent = '';
      delete root.dataset.sampled;
      return;
    }
    note.textContent = `(${sampleInfo.rows} of ${sampleInfo.total} trials drawn: every new best, ` +
      'the best and the failed ones, the rest evenly spaced)';
    root.dataset.sampled = `${sampleInfo.rows}/${sampleInfo.total}`;
  }

  // The experiment and what its page draws: every trial, or for a large
  // experiment the sample. The first poll asks for the sample beside the
  // experiment (its default fields are all the plots need), and for every
  // trial only when the sample's count says there are few.
  async function fetchData() {
    if (large === null) {
      const [x, res] = await Promise.all([api.experiment(name), api.trialColumns(name, samplePoints())]);
      large = res.count > largeThreshold();
      root.dataset.large = large ? '1' : '0';
      if (!large) return [x, await api.trials(name)];
      table.useServer((query) => api.trialPage(name, query));
      return [x, res];
    }
    if (!large) return Promise.all([api.experiment(name), api.trials(name)]);
    return Promise.all([api.experiment(name), api.trialColumns(name, samplePoints())]);
  }

  function wireActions() {
    const stop = $('#stop-experiment');
    if (stop) {
      stop.onclick = async () => {
        const ok = await confirmDialog({
          title: 'Stop experiment', body: html`Stop <b>${name}</b>? Its running trials are killed and no new ones start.`, confirm: 'Stop experiment', danger: true,
        });
        if (!ok) return;
        try {
          await api.stopExperiment(name);
          notice(`Stopped ${name}`, 'info');
          await poll();
        } catch (e) {
          notice(e.message);
        }
      };
    }
    const remove = $('#delete-experiment');
    if (!remove) return;
    remove.onclick = async () => {
      const ok = await confirmDialog({
        title: 'Delete experiment',
        body: html`Delete <b>${name}</b> with all its trials, observations and logs? This cannot be undone.`,
        confirm: 'Delete', danger: true,
      });
      if (!ok) return;
      try {
        await api.deleteExperiment(name);
        notice(`Deleted ${name}`, 'info');
        location.hash = href();
      } catch (e) {
        notice(e.message);
      }
    };
  }

  async function poll() {
    let x;
    let ts;
    try {
      [x, ts] = await fetchData();
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        setHtml(root, html`<div class="error-box">No experiment named <b>${name}</b>. <a href="${href()}">Back to the list</a>.</div>`);
        return 0;
      }
      throw e;
    }
    if (!ctx.alive) return 0;
    if (window.hptRenderGate) {
      // The browser test holds the first paint here, to time it apart from
      // the requests (tests/ui/run.mjs).
      root.dataset.dataArrived = '1';
      await window.hptRenderGate;
      window.hptRenderGate = null;
    }
    const arrived = performance.now();
    const finished = FINISHED_EXPERIMENT.has(x.status.phase);
    const signature = JSON.stringify([x.status, x.userAttrs, ts]);
    if (signature !== lastSignature) {
      lastSignature = signature;
      exp = x;
      if (large) {
        sampleInfo = { rows: ts.rows, total: ts.total, sampled: ts.sampled, kept: ts.kept };
        trials = columnsToTrials(ts);
      } else {
        trials = ts;
      }
      paint(arrived);
      store.refresh(trials, exp.spec);
    }
    root.dataset.loaded = '1';
    return finished ? 10000 : 2000;
  }

  await ctx.every(2000, poll);
}
