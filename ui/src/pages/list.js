// The experiments list of the chosen namespace: its quota use, one row per
// experiment, filtered by phase, polled. "New experiment" only for those
// who may create there.
import { ApiError, api } from '../api.js';
import { badge, href, num, time } from '../format.js';
import { html, setHtml } from '../html.js';
import { currentNamespace } from '../namespace.js';
import { quotaHtml } from '../tenancy.js';

export const id = 'list';

const PHASES = ['Created', 'Running', 'Succeeded', 'Failed', 'Stopped'];
const FILTER_KEY = 'hpt.listPhase';

function done(counts) {
  return (counts.succeeded || 0) + (counts.failed || 0) + (counts.earlyStopped || 0) +
    (counts.metricsUnavailable || 0) + (counts.killed || 0);
}

function row(x) {
  const s = x.status;
  const c = s.trials || {};
  const max = x.spec.maxTrialCount;
  const finished = done(c) - (c.imported || 0);  // imported trials use no budget
  const pct = max ? Math.min(100, (100 * finished) / max) : 0;
  const best = s.currentOptimalTrial;
  const objective = x.spec.objective;
  return html`<tr data-name="${x.name}" data-phase="${s.phase}">
    <td><a href="${href('experiments', x.name)}">${x.name}</a></td>
    <td>${badge(s.phase)}${s.reason && html` <span class="muted small">${s.reason}</span>`}</td>
    <td>${x.spec.algorithm.algorithmName}</td>
    <td class="num"><span class="trials-done">${finished} / ${max}</span>
      <div class="bar"><span style="width:${pct.toFixed(1)}%"></span></div></td>
    <td class="num">${c.running || 0}</td>
    <td class="num">${c.pending || 0}</td>
    <td class="num">${best ? html`${num(best.objectiveValue)} <span class="muted small">${objective.type === 'maximize' ? '↑' : '↓'} ${objective.objectiveMetricName}</span>` : '—'}</td>
    <td>${time(s.startTime || s.creationTime)}</td>
  </tr>`;
}

// One line per card: utilisation and memory, as nvidia-smi last said.
function paintGpus(el, gpus) {
  el.hidden = !gpus.length;
  const gib = (b) => (b / 2 ** 30).toFixed(1);
  setHtml(el, html`${gpus.map((g) => html`<span class="gpu" data-gpu="${g.index}">GPU ${g.index}:
    ${Math.round(g.utilization)}% · ${gib(g.memoryUsed)} / ${gib(g.memoryTotal)} GiB</span> `)}`);
}

export async function render(root, ctx) {
  let phase = sessionStorage.getItem(FILTER_KEY) || '';
  const ns = currentNamespace();
  setHtml(root, html`
    <div class="page-head">
      <h1>Experiments</h1>
      <label>Phase <select id="phase-filter">
        <option value="">all</option>${PHASES.map((p) => html`<option>${p}</option>`)}
      </select></label>
      <span class="spacer"></span>
      ${ctx.writable && html`<a class="button" href="${href('new')}" id="new-experiment">New experiment</a>`}
    </div>
    <div class="quota" id="quota" data-namespace="${ns}"></div>
    <table class="grid" id="experiments">
      <thead><tr><th>Name</th><th>Phase</th><th>Algorithm</th><th class="num">Trials done / max</th>
        <th class="num">Running</th><th class="num">Pending</th><th class="num">Best objective</th><th>Started</th></tr></thead>
      <tbody></tbody>
    </table>
    <p class="muted small" id="list-count"></p>
    <p class="muted small" id="gpus" hidden></p>`);
  const select = root.querySelector('#phase-filter');
  select.value = phase;
  let experiments = [];
  const paint = () => {
    const shown = experiments
      .filter((x) => !phase || x.status.phase === phase)
      .sort((a, b) => String(b.status.creationTime).localeCompare(String(a.status.creationTime)));
    setHtml(root.querySelector('tbody'), shown.length ? html`${shown.map(row)}`
      : html`<tr><td colspan="8" class="empty">${experiments.length ? 'No experiment in this phase.'
        : ctx.writable ? html`No experiments yet. <a href="${href('new')}">Create one</a> or submit one with <code>hpt run</code>.`
          : 'No experiments in this namespace yet.'}</td></tr>`);
    root.querySelector('#list-count').textContent =
      `${shown.length} of ${experiments.length} experiments · updated ${new Date().toLocaleTimeString()}`;
    root.dataset.loaded = '1';
  };
  select.onchange = () => {
    phase = select.value;
    sessionStorage.setItem(FILTER_KEY, phase);
    paint();
  };
  await ctx.every(2000, async () => {
    let list;
    let gpus;
    let namespace;
    try {
      [list, gpus, namespace] = await Promise.all([
        api.experiments(), api.gpus().catch(() => []), api.namespace(ns)]);
    } catch (e) {
      // Absent and not the caller's read the same (the server says 404 to both).
      if (e instanceof ApiError && e.status === 404 && ctx.alive) {
        setHtml(root, html`<div class="error-box" id="no-namespace">No namespace <b>${ns}</b> that you may see.
          <a href="#/namespaces">Your namespaces</a>.</div>`);
        root.dataset.loaded = '1';
        return 0;
      }
      throw e;
    }
    if (!ctx.alive) return 0;
    experiments = list;
    paint();
    paintGpus(root.querySelector('#gpus'), gpus);
    setHtml(root.querySelector('#quota'), html`<span>Namespace <b>${ns}</b></span>${quotaHtml(namespace)}`);
  });
}
