// The experiment page's trial table: sortable by any column, filtered by
// text (name or param=value), phase and numeric ranges (min/max of any
// parameter or metric), shown a page of PAGE_SIZE rows at a time (sorting
// and filtering cover every trial; only the page is in the DOM, so the
// table's layout stays cheap with thousands of trials). A Why column
// (reason and the message's last line) appears once any trial has ended
// otherwise than Succeeded; checkboxes pick trials to compare.
import { MAX_COMPARE, MIN_COMPARE, compareHref } from './comparison.js';
import {
  UNEXPLAINED_PHASES, duration, filterRanges, filterTrials, metricValue, objectiveOf, objectivesOf, parseBound,
  sortTrials, whyOf,
} from './data.js';
import { badge, href, num, seconds, time } from './format.js';
import { html, setHtml } from './html.js';

export const PAGE_SIZE = 100;
const TRIAL_PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'EarlyStopped', 'MetricsUnavailable', 'Killed'];

export class TrialTable {
  // `el` holds the controls and the table; `onStop(trialName)` is called by
  // a row's Stop button (none without onStop: a viewer's table).
  constructor(el, onStop) {
    this.el = el;
    this.onStop = onStop;
    this.sort = { key: 'name', dir: 'asc' };
    this.text = '';
    this.phase = '';
    this.ranges = new Map();  // key -> { key, min, max }
    this.selected = new Set();
    this.page = 0;
    this.trials = [];
    this.spec = null;
    setHtml(el, html`
      <div class="table-controls">
        <input type="search" id="trial-filter" placeholder="Filter: name or param=value">
        <select id="trial-phase"><option value="">all phases</option>
          ${TRIAL_PHASES.map((p) => html`<option>${p}</option>`)}</select>
        <span class="range-filter"><select id="range-key" aria-label="range of"></select>
          <input type="number" step="any" id="range-min" placeholder="min" aria-label="min">
          <input type="number" step="any" id="range-max" placeholder="max" aria-label="max"></span>
        <span id="range-chips"></span>
        <span class="muted small" id="trial-count"></span>
        <span class="spacer"></span>
        <button class="small secondary" id="compare-trials" disabled>Compare</button>
        <span class="pager"><button class="small secondary" id="page-prev">‹ Prev</button>
          <span class="small" id="page-range"></span>
          <button class="small secondary" id="page-next">Next ›</button></span>
      </div>
      <div class="table-scroll"><table class="grid" id="trials"><thead></thead><tbody></tbody></table></div>`);
    const $ = (sel) => el.querySelector(sel);
    const refilter = () => {
      this.page = 0;
      this.paint();
    };
    $('#trial-filter').oninput = (e) => {
      this.text = e.target.value;
      refilter();
    };
    $('#trial-phase').onchange = (e) => {
      this.phase = e.target.value;
      refilter();
    };
    $('#range-key').onchange = () => {
      const r = this.ranges.get($('#range-key').value);
      $('#range-min').value = r && r.min !== undefined ? String(r.min) : '';
      $('#range-max').value = r && r.max !== undefined ? String(r.max) : '';
    };
    const onBound = () => {
      const key = $('#range-key').value;
      const min = parseBound($('#range-min').value);
      const max = parseBound($('#range-max').value);
      if (min === undefined && max === undefined) this.ranges.delete(key);
      else this.ranges.set(key, { key, min, max });
      refilter();
    };
    $('#range-min').oninput = onBound;
    $('#range-max').oninput = onBound;
    $('#range-chips').onclick = (e) => {
      const b = e.target.closest('button[data-range]');
      if (!b) return;
      this.ranges.delete(b.dataset.range);
      if ($('#range-key').value === b.dataset.range) $('#range-key').onchange();
      refilter();
    };
    $('#compare-trials').onclick = () => {
      const names = this.trials.filter((t) => this.selected.has(t.name)).map((t) => t.name);
      location.hash = compareHref(this.name, names);
    };
    $('#page-prev').onclick = () => {
      this.page -= 1;
      this.paint();
    };
    $('#page-next').onclick = () => {
      this.page += 1;
      this.paint();
    };
    $('thead').onclick = (e) => {
      const th = e.target.closest('th[data-key]');
      if (!th) return;
      const key = th.dataset.key;
      this.sort = { key, dir: this.sort.key === key && this.sort.dir === 'asc' ? 'desc' : 'asc' };
      this.page = 0;
      this.paint();
    };
    $('tbody').onclick = (e) => {
      const b = e.target.closest('button[data-stop]');
      if (b) this.onStop(b.dataset.stop);
    };
    $('tbody').onchange = (e) => {
      const box = e.target.closest('input[data-pick]');
      if (!box) return;
      if (box.checked) this.selected.add(box.dataset.pick);
      else this.selected.delete(box.dataset.pick);
      this.paintSelection();
    };
  }

  update(experiment, trials) {
    this.name = experiment.name;
    this.spec = experiment.spec;
    this.trials = trials;
    const names = new Set(trials.map((t) => t.name));
    for (const n of this.selected) if (!names.has(n)) this.selected.delete(n);
    this.paintRangeKeys();
    this.paint();
  }

  // The range filter's choices: numeric parameters, the objectives and the
  // other metrics.
  rangeKeys() {
    const spec = this.spec;
    return [
      ...spec.parameters.filter((p) => p.parameterType !== 'categorical').map((p) => [`p:${p.name}`, p.name]),
      ...this.objectives().map((o) => [o.key, o.name]),
      ...this.otherMetrics().map((m) => [`m:${m}`, m]),
    ];
  }

  // Every objective with its table key: 'objective' (the first, as the
  // server ranks it) and 'o:<i>' for the others of a multi-objective spec.
  objectives() {
    return objectivesOf(this.spec).map((o, i) => ({ ...o, key: i ? `o:${i}` : 'objective' }));
  }

  otherMetrics() {
    const names = new Set(objectivesOf(this.spec).map((o) => o.name));
    return (this.spec.objective.additionalMetricNames || []).filter((m) => !names.has(m));
  }

  paintRangeKeys() {
    const select = this.el.querySelector('#range-key');
    const keys = this.rangeKeys();
    if (select.options.length === keys.length) return;
    const value = select.value;
    select.replaceChildren(...keys.map(([k, label]) => new Option(label, k)));
    if (keys.some(([k]) => k === value)) select.value = value;
  }

  columns() {
    const spec = this.spec;
    const others = this.otherMetrics();
    return [
      { key: 'name', label: 'Trial' },
      { key: 'phase', label: 'Phase' },
      ...spec.parameters.map((p) => ({ key: `p:${p.name}`, label: p.name, num: p.parameterType !== 'categorical' })),
      ...this.objectives().map((o) => ({ key: o.key, label: `${o.name} ${o.type === 'maximize' ? '↑' : '↓'}`, num: true })),
      ...others.map((m) => ({ key: `m:${m}`, label: m, num: true })),
      { key: 'start', label: 'Started' },
      { key: 'duration', label: 'Duration', num: true },
      ...(this.trials.some((t) => !UNEXPLAINED_PHASES.has(t.phase)) ? [{ key: 'why', label: 'Why' }] : []),
    ];
  }

  paintSelection() {
    const n = this.selected.size;
    const b = this.el.querySelector('#compare-trials');
    b.disabled = n < MIN_COMPARE || n > MAX_COMPARE;
    b.textContent = n ? `Compare ${n}` : 'Compare';
    b.title = `Tick ${MIN_COMPARE} to ${MAX_COMPARE} trials to compare them side by side`;
  }

  paintRanges() {
    const label = new Map(this.rangeKeys());
    const chips = [...this.ranges.values()].map((r) => html`<span class="chip" data-range-key="${r.key}">${label.get(r.key) ?? r.key}
      ${r.min !== undefined ? `≥ ${r.min}` : ''}${r.min !== undefined && r.max !== undefined ? ', ' : ''}${r.max !== undefined ? `≤ ${r.max}` : ''}
      <button class="link" data-range="${r.key}" title="Remove this range" aria-label="Remove this range">×</button></span>`);
    setHtml(this.el.querySelector('#range-chips'), html`${chips}`);
  }

  paint() {
    if (!this.spec) return;
    const spec = this.spec;
    const cols = this.columns();
    const why = cols[cols.length - 1].key === 'why';
    const arrow = (k) => (this.sort.key === k ? (this.sort.dir === 'asc' ? ' ▲' : ' ▼') : '');
    setHtml(this.el.querySelector('thead'), html`<tr><th class="pick"></th>${cols.map((c) =>
      html`<th data-key="${c.key}" class="${c.num ? 'num' : ''} sortable">${c.label}${arrow(c.key)}</th>`)}<th></th></tr>`);
    const filtered = filterRanges(filterTrials(this.trials, this.text, this.phase), [...this.ranges.values()], spec);
    const shown = sortTrials(filtered, this.sort.key, this.sort.dir, spec);
    const objectives = this.objectives();
    const others = this.otherMetrics();
    const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
    this.page = Math.min(Math.max(0, this.page), pages - 1);
    const first = this.page * PAGE_SIZE;
    const rows = shown.slice(first, first + PAGE_SIZE).map((t) => {
      const params = new Map((t.parameterAssignments || []).map((a) => [a.name, a.value]));
      const metrics = new Map((t.metrics || []).map((m) => [m.name, m.latest]));
      const w = why && !UNEXPLAINED_PHASES.has(t.phase) ? whyOf(t) : undefined;
      return html`<tr data-trial="${t.name}" data-phase="${t.phase}">
        <td class="pick"><input type="checkbox" data-pick="${t.name}" aria-label="compare" ${this.selected.has(t.name) ? html`checked` : ''}></td>
        <td><a href="${href('experiments', this.name, 'trials', t.name)}">${t.name}</a></td>
        <td>${badge(t.phase)}${t.reason === 'Imported' && html` <span class="muted small imported" title="${t.message || 'Imported'}">imported</span>`}</td>
        ${spec.parameters.map((p) => {
          const v = params.get(p.name);
          return html`<td class="${p.parameterType !== 'categorical' ? 'num' : ''}">${p.parameterType === 'categorical' ? (v ?? '—') : num(v)}</td>`;
        })}
        ${objectives.map((o, i) => html`<td class="num">${num(i ? metricValue(t, o.name, spec) : objectiveOf(t))}</td>`)}
        ${others.map((m) => html`<td class="num">${num(metrics.get(m))}</td>`)}
        <td>${time(t.startTime)}</td>
        <td class="num">${seconds(duration(t))}</td>
        ${why && html`<td class="why" title="${w ? w.full : ''}">${w ? w.short : ''}</td>`}
        <td>${this.onStop && t.phase === 'Running' && html`<button class="small danger" data-stop="${t.name}">Stop</button>`}</td>
      </tr>`;
    });
    setHtml(this.el.querySelector('tbody'), rows.length ? html`${rows}`
      : html`<tr><td colspan="${cols.length + 2}" class="empty">${this.trials.length ? 'No trial matches.' : 'No trials yet.'}</td></tr>`);
    this.el.querySelector('#trial-count').textContent = `${shown.length} of ${this.trials.length} trials`;
    this.el.querySelector('#page-range').textContent = shown.length
      ? `${first + 1}–${Math.min(shown.length, first + PAGE_SIZE)} of ${shown.length}` : '';
    this.el.querySelector('.pager').hidden = pages === 1;
    this.el.querySelector('#page-prev').disabled = this.page === 0;
    this.el.querySelector('#page-next').disabled = this.page === pages - 1;
    this.el.dataset.shown = String(shown.length);
    this.paintRanges();
    this.paintSelection();
  }
}
