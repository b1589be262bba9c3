// The experiment page's trial table: sortable by any column, filtered by
// text (name or param=value), phase and numeric ranges (min/max of any
// parameter or metric), shown a page of PAGE_SIZE rows at a time (sorting
// and filtering cover every trial; only the page is in the DOM, so the
// table's layout stays cheap with thousands of trials). A Why column
// (reason and the message's last line) appears once any trial has ended
// otherwise than Succeeded; checkboxes pick trials to compare.
//
// A large experiment's table pages on the server instead (useServer): each
// paint asks GET .../trials for the page with the table's sort, filters and
// ranges (columns.js pageQuery); only PAGE_SIZE trials ever reach the page.
import { pageQuery, serverSortKey } from './columns.js';
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
    let typing;
    $('#trial-filter').oninput = (e) => {
      this.text = e.target.value;
      // Paged on the server: one request once typing pauses.
      clearTimeout(typing);
      if (this.fetchPage) typing = setTimeout(refilter, 250);
      else refilter();
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
      const names = this.fetchPage ? [...this.selected]
        : this.trials.filter((t) => this.selected.has(t.name)).map((t) => t.name);
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
      if (this.fetchPage && !serverSortKey(key, this.spec)) return;
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

  // Pages on the server from now on: `fetchPage(query)` answers GET
  // .../trials?query ({trials, total, count}).
  useServer(fetchPage) {
    this.fetchPage = fetchPage;
    this.seq = 0;
  }

  // Server mode: `trials` is ignored; the experiment's status counts say
  // whether a Why column is needed.
  update(experiment, trials) {
    this.name = experiment.name;
    if (this.fetchPage) {
      this.spec = experiment.spec;
      const c = (experiment.status || {}).trials || {};
      this.explained = ['failed', 'earlyStopped', 'metricsUnavailable', 'killed'].some((k) => c[k] > 0);
      this.paintRangeKeys();
      return this.paint();
    }
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
      ...((this.fetchPage ? this.explained : this.trials.some((t) => !UNEXPLAINED_PHASES.has(t.phase)))
        ? [{ key: 'why', label: 'Why' }] : []),
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
    if (!this.spec) return undefined;
    if (this.fetchPage) return this.paintServerPage();
    const filtered = filterRanges(filterTrials(this.trials, this.text, this.phase), [...this.ranges.values()], this.spec);
    const shown = sortTrials(filtered, this.sort.key, this.sort.dir, this.spec);
    const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
    this.page = Math.min(Math.max(0, this.page), pages - 1);
    const first = this.page * PAGE_SIZE;
    this.paintRows(shown.slice(first, first + PAGE_SIZE), shown.length, this.trials.length);
    return undefined;
  }

  // One page from the server; an answer that a later paint overtook is
  // dropped. A page past the end (the list shrank) goes to the last one.
  async paintServerPage() {
    const seq = ++this.seq;
    const state = {
      sort: this.sort, text: this.text, phase: this.phase, ranges: [...this.ranges.values()], page: this.page, pageSize: PAGE_SIZE,
    };
    this.el.dataset.loading = '1';
    let res;
    try {
      res = await this.fetchPage(pageQuery(state, this.spec));
    } catch (e) {
      if (seq !== this.seq) return;
      setHtml(this.el.querySelector('tbody'), html`<tr><td colspan="99" class="empty">Could not load trials: ${e.message}</td></tr>`);
      this.el.dataset.loading = '0';
      return;
    }
    if (seq !== this.seq) return;
    const pages = Math.max(1, Math.ceil(res.total / PAGE_SIZE));
    if (this.page > pages - 1) {
      this.page = pages - 1;
      this.paintServerPage();
      return;
    }
    this.paintRows(res.trials, res.total, res.count);
    this.el.dataset.loading = '0';
  }

  // `rows`: the page's trials; `matched`: how many pass the filters; `all`:
  // how many the experiment has.
  paintRows(page, matched, all) {
    const spec = this.spec;
    const cols = this.columns();
    const why = cols[cols.length - 1].key === 'why';
    const arrow = (k) => (this.sort.key === k ? (this.sort.dir === 'asc' ? ' ▲' : ' ▼') : '');
    const sortable = (k) => !this.fetchPage || serverSortKey(k, spec) !== undefined;
    setHtml(this.el.querySelector('thead'), html`<tr><th class="pick"></th>${cols.map((c) =>
      html`<th data-key="${c.key}" class="${c.num ? 'num' : ''} ${sortable(c.key) ? 'sortable' : ''}">${c.label}${arrow(c.key)}</th>`)}<th></th></tr>`);
    const objectives = this.objectives();
    const others = this.otherMetrics();
    const pages = Math.max(1, Math.ceil(matched / PAGE_SIZE));
    const first = this.page * PAGE_SIZE;
    const rows = page.map((t) => {
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
      : html`<tr><td colspan="${cols.length + 2}" class="empty">${all ? 'No trial matches.' : 'No trials yet.'}</td></tr>`);
    this.el.querySelector('#trial-count').textContent = `${matched} of ${all} trials`;
    this.el.querySelector('#page-range').textContent = matched
      ? `${first + 1}–${Math.min(matched, first + PAGE_SIZE)} of ${matched}` : '';
    this.el.querySelector('.pager').hidden = pages === 1;
    this.el.querySelector('#page-prev').disabled = this.page === 0;
    this.el.querySelector('#page-next').disabled = this.page === pages - 1;
    this.el.dataset.shown = String(matched);
    this.paintRanges();
    this.paintSelection();
  }
}
