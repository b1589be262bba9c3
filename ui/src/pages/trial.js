// The trial page: parameters, metrics, its curves and its log, following
// the log (polled every second) while the trial runs. Stop trial only for
// those who may change the namespace.
import { api } from '../api.js';
import { draw } from '../chart_host.js';
import { trialCurveOption } from '../charts.js';
import {
  TERMINAL_TRIAL, UNEXPLAINED_PHASES, duration, logView, whyOf,
} from '../data.js';
import { badge, href, num, seconds, time } from '../format.js';
import { html, setHtml } from '../html.js';
import { confirmDialog, notice } from '../ui.js';

export const id = 'trial';

// The log view asks for the last 64 KiB only: a log can be far longer
// than a page should hold, and it is fetched again every second while the
// trial runs.
const LOG_TAIL_BYTES = 64 * 1024;

// A trial that ended otherwise than Succeeded, with a reason or message:
// both in a box at the top of the page, the message whole (its last line
// is usually the error). The Run card then leaves them out.
function explained(t) {
  return !UNEXPLAINED_PHASES.has(t.phase) && whyOf(t) !== undefined;
}

function failureHtml(t) {
  if (!explained(t)) return html``;
  return html`<div class="${t.phase === 'Failed' ? 'error-box' : 'warn-box'} failure" id="trial-failure">
    <div><b>${t.phase}</b>${t.reason ? html` · reason <code>${t.reason}</code>` : ''}${t.exitCode !== undefined ? html` · exit code ${t.exitCode}` : ''}</div>
    ${t.message ? html`<pre class="failure-message">${t.message}</pre>` : ''}</div>`;
}

function infoHtml(t) {
  const shown = explained(t);
  const rows = [
    ['Started', time(t.startTime)], ['Completed', time(t.completionTime)],
    ['Duration', seconds(duration(t))],
    ...(t.reason && !shown ? [['Reason', t.reason]] : []),
    ...(t.message && !shown ? [['Message', t.message]] : []),
    ...(t.exitCode !== undefined ? [['Exit code', t.exitCode]] : []),
    // Text a trial reported (a DARTS trial's Best-Genotype), escaped as any value.
    ...Object.entries(t.outputs || {}).map(([k, v]) => [k, html`<code class="output">${v}</code>`]),
  ];
  return html`<dl class="facts">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

// Optuna's user attributes (trial.set_user_attr): key and value, a string
// as it is and anything else as JSON; escaped as any value.
function userAttrsHtml(attrs) {
  const entries = Object.entries(attrs || {});
  if (!entries.length) return html``;
  return html`<table class="grid compact" id="user-attrs"><tbody>${entries.map(([k, v]) =>
    html`<tr><td>${k}</td><td><code class="output">${typeof v === 'string' ? v : JSON.stringify(v)}</code></td></tr>`)}</tbody></table>`;
}

export async function render(root, ctx, experiment, name) {
  setHtml(root, html`
    <div class="page-head" id="trial-head"></div>
    <div id="trial-failure-slot"></div>
    <div class="cards">
      <section class="card"><h2>Parameters</h2><div id="trial-params"></div></section>
      <section class="card"><h2>Metrics</h2><div id="trial-metrics"></div></section>
      <section class="card"><h2>Run</h2><div id="trial-info"></div></section>
      <section class="card" id="trial-attrs-card" hidden><h2>User attributes</h2><div id="trial-attrs"></div></section>
    </div>
    <section class="card"><h2>Curve</h2><div class="chart" id="chart-trial"></div></section>
    <section class="card">
      <h2>Log <span class="muted small" id="log-note"></span> <span class="muted small" id="log-state"></span></h2>
      <pre class="log" id="trial-log"></pre>
    </section>`);
  const $ = (sel) => root.querySelector(sel);
  let lastTrial = '';
  let lastObservations = -1;
  let lastLog = null;

  async function stop() {
    const ok = await confirmDialog({
      title: 'Stop trial', body: html`Stop <b>${name}</b>? Its process is killed and it ends as Killed.`, confirm: 'Stop trial', danger: true,
    });
    if (!ok) return;
    try {
      await api.stopTrial(experiment, name);
      notice(`Stopped ${name}`, 'info');
      await poll();
    } catch (e) {
      notice(e.message);
    }
  }

  async function poll() {
    const [t, observations, log] = await Promise.all([
      api.trial(experiment, name),
      api.observations(experiment, name),
      api.logTail(experiment, name, LOG_TAIL_BYTES).catch((e) => {
        const text = `(log unavailable: ${e.message})`;
        return { text, bytes: text.length, size: text.length };
      }),
    ]);
    if (!ctx.alive) return 0;
    const running = !TERMINAL_TRIAL.has(t.phase);
    const signature = JSON.stringify(t);
    if (signature !== lastTrial) {
      lastTrial = signature;
      setHtml($('#trial-head'), html`
        <h1><a href="${href()}" class="muted">Experiments</a> /
          <a href="${href('experiments', experiment)}" class="muted">${experiment}</a> / ${name}</h1>
        ${badge(t.phase)}<span class="spacer"></span>
        ${ctx.writable && t.phase === 'Running' && html`<button id="stop-trial" class="danger">Stop trial</button>`}`);
      const b = $('#stop-trial');
      if (b) b.onclick = stop;
      setHtml($('#trial-params'), html`<table class="grid compact"><tbody>${(t.parameterAssignments || []).map((a) =>
        html`<tr><td>${a.name}</td><td class="num">${a.value}</td></tr>`)}</tbody></table>`);
      setHtml($('#trial-metrics'), (t.metrics || []).length ? html`<table class="grid compact" id="metrics-table">
        <thead><tr><th>Metric</th><th class="num">min</th><th class="num">max</th><th class="num">latest</th></tr></thead>
        <tbody>${t.metrics.map((m) => html`<tr><td>${m.name}</td><td class="num">${num(m.min)}</td>
          <td class="num">${num(m.max)}</td><td class="num">${num(m.latest)}</td></tr>`)}</tbody></table>`
        : html`<p class="muted">No metrics reported yet.</p>`);
      setHtml($('#trial-failure-slot'), failureHtml(t));
      setHtml($('#trial-info'), infoHtml(t));
      setHtml($('#trial-attrs'), userAttrsHtml(t.userAttrs));
      $('#trial-attrs-card').hidden = !Object.keys(t.userAttrs || {}).length;
    }
    if (observations.length !== lastObservations) {
      lastObservations = observations.length;
      const names = [...new Set(observations.flatMap((o) => Object.keys(o.metrics || {})))];
      draw($('#chart-trial'), trialCurveOption(observations, names));
    }
    const view = logView(log);
    if (view.text !== lastLog) {
      lastLog = view.text;
      const pre = $('#trial-log');
      const atBottom = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 8;
      pre.textContent = view.text;
      if (atBottom || running) pre.scrollTop = pre.scrollHeight;
    }
    $('#log-note').textContent = view.note && `· ${view.note}`;
    $('#log-state').textContent = running ? '· following' : '';
    root.dataset.loaded = '1';
    root.dataset.phase = t.phase;
    return running ? 1000 : 0;
  }

  await ctx.every(1000, poll);
}
