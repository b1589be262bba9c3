// The experiment page's trial table: sortable by any column, filtered by
// text (name or param=value) and phase, shown a page of PAGE_SIZE rows at a
// time (sorting and filtering cover every trial; only the page is in the
// DOM, so the table's layout stays cheap with thousands of trials).
import { filterTrials, objectiveOf, sortTrials, duration } from './data.js';
import { badge, href, num, seconds, time } from './format.js';
import { html, setHtml } from './html.js';

export const PAGE_SIZE = 100;
const TRIAL_PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'EarlyStopped', 'MetricsUnavailable', 'Killed'];

export class TrialTable {
  // `el` holds the controls and the table; `onStop(trialName)` is called by
  // a row's Stop button.
  constructor(el, onStop) {
    this.el = el;
    this.onStop = onStop;
    this.sort = { key: 'name', dir: 'asc' };
    this.text = '';
    this.phase = '';
    this.page = 0;
    this.trials = [];
    this.spec = null;
    setHtml(el, html`
      <div class="table-controls">
        <input type="search" id="trial-filter" placeholder="Filter: name or param=value">
        <select id="trial-phase"><option value="">all phases</option>
          ${TRIAL_PHASES.map((p) => html`<option>${p}</option>`)}</select>
        <span class="muted small" id="trial-count"></span>
        <span class="spacer"></span>
        <span class="pager"><button class="small secondary" id="page-prev">‹ Prev</button>
          <span class="small" id="page-range"></span>
          <button class="small secondary" id="page-next">Next ›</button></span>
      </div>
      <div class="table-scroll"><table class="grid" id="trials"><thead></thead><tbody></tbody></table></div>`);
    el.querySelector('#trial-filter').oninput = (e) => {
      this.text = e.target.value;
      this.page = 0;
      this.paint();
    };
    el.querySelector('#trial-phase').onchange = (e) => {
      this.phase = e.target.value;
      this.page = 0;
      this.paint();
    };
    el.querySelector('#page-prev').onclick = () => {
      this.page -= 1;
      this.paint();
    };
    el.querySelector('#page-next').onclick = () => {
      this.page += 1;
      this.paint();
    };
    el.querySelector('thead').onclick = (e) => {
      const th = e.target.closest('th[data-key]');
      if (!th) return;
      const key = th.dataset.key;
      this.sort = { key, dir: this.sort.key === key && this.sort.dir === 'asc' ? 'desc' : 'asc' };
      this.page = 0;
      this.paint();
    };
    el.querySelector('tbody').onclick = (e) => {
      const b = e.target.closest('button[data-stop]');
      if (b) this.onStop(b.dataset.stop);
    };
  }

  update(experiment, trials) {
    this.name = experiment.name;
    this.spec = experiment.spec;
    this.trials = trials;
    this.paint();
  }

  columns() {
    const spec = this.spec;
    const objective = spec.objective.objectiveMetricName;
    const others = [...(spec.objective.additionalMetricNames || [])];
    return [
      { key: 'name', label: 'Trial' },
      { key: 'phase', label: 'Phase' },
      ...spec.parameters.map((p) => ({ key: `p:${p.name}`, label: p.name, num: p.parameterType !== 'categorical' })),
      { key: 'objective', label: `${objective} ${spec.objective.type === 'maximize' ? '↑' : '↓'}`, num: true },
      ...others.map((m) => ({ key: `m:${m}`, label: m, num: true })),
      { key: 'start', label: 'Started' },
      { key: 'duration', label: 'Duration', num: true },
    ];
  }

  paint() {
    if (!this.spec) return;
    const spec = this.spec;
    const cols = this.columns();
    const arrow = (k) => (this.sort.key === k ? (this.sort.dir === 'asc' ? ' ▲' : ' ▼') : '');
    setHtml(this.el.querySelector('thead'), html`<tr>${cols.map((c) =>
      html`<th data-key="${c.key}" class="${c.num ? 'num' : ''} sortable">${c.label}${arrow(c.key)}</th>`)}<th></th></tr>`);
    const shown = sortTrials(filterTrials(this.trials, this.text, this.phase), this.sort.key, this.sort.dir);
    const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
    this.page = Math.min(Math.max(0, this.page), pages - 1);
    const first = this.page * PAGE_SIZE;
    const rows = shown.slice(first, first + PAGE_SIZE).map((t) => {
      const params = new Map((t.parameterAssignments || []).map((a) => [a.name, a.value]));
      const metrics = new Map((t.metrics || []).map((m) => [m.name, m.latest]));
      return html`<tr data-trial="${t.name}" data-phase="${t.phase}">
        <td><a href="${href('experiments', this.name, 'trials', t.name)}">${t.name}</a></td>
        <td>${badge(t.phase)}</td>
        ${spec.parameters.map((p) => {
          const v = params.get(p.name);
          return html`<td class="${p.parameterType !== 'categorical' ? 'num' : ''}">${p.parameterType === 'categorical' ? (v ?? '—') : num(v)}</td>`;
        })}
        <td class="num">${num(objectiveOf(t))}</td>
        ${(spec.objective.additionalMetricNames || []).map((m) => html`<td class="num">${num(metrics.get(m))}</td>`)}
        <td>${time(t.startTime)}</td>
        <td class="num">${seconds(duration(t))}</td>
        <td>${t.phase === 'Running' && html`<button class="small danger" data-stop="${t.name}">Stop</button>`}</td>
      </tr>`;
    });
    setHtml(this.el.querySelector('tbody'), rows.length ? html`${rows}`
      : html`<tr><td colspan="${cols.length + 1}" class="empty">${this.trials.length ? 'No trial matches.' : 'No trials yet.'}</td></tr>`);
    this.el.querySelector('#trial-count').textContent = `${shown.length} of ${this.trials.length} trials`;
    this.el.querySelector('#page-range').textContent = shown.length
      ? `${first + 1}–${Math.min(shown.length, first + PAGE_SIZE)} of ${shown.length}` : '';
    this.el.querySelector('.pager').hidden = pages === 1;
    this.el.querySelector('#page-prev').disabled = this.page === 0;
    this.el.querySelector('#page-next').disabled = this.page === pages - 1;
    this.el.dataset.shown = String(shown.length);
  }
}
