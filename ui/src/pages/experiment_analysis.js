// The experiment page's analysis cards: parameter importance (from the
// server, GET .../importance, asked again only when the set of finished
// trials changed) and the two-parameter contour plot with its selects.
import { api } from '../api.js';
import { draw } from '../chart_host.js';
import { contourOption, defaultPair } from '../contour.js';
import { ranked } from '../data.js';
import { html } from '../html.js';
import { importanceNote, importanceOption, importanceTitle } from '../importance.js';

export const ANALYSIS_HTML = html`
  <div class="cards">
    <section class="card" id="importance-card">
      <h2 id="importance-title">Parameter importance</h2>
      <div class="chart" id="chart-importance"></div>
      <p class="muted small" id="importance-note"></p>
    </section>
    <section class="card" id="contour-card">
      <h2>Two parameters <span class="muted small">(finished trials, coloured by the objective; the best ringed)</span></h2>
      <div class="table-controls">
        <label>x <select id="contour-x"></select></label>
        <label>y <select id="contour-y"></select></label>
      </div>
      <div class="chart" id="chart-contour"></div>
    </section>
  </div>`;

export class Analysis {
  // `root`: the page element holding ANALYSIS_HTML; `ctx`: the page context.
  constructor(root, ctx, experiment) {
    this.root = root;
    this.ctx = ctx;
    this.experiment = experiment;
    this.importance = null;
    this.importanceKey = '';
    this.pair = null;  // [x, y] once chosen
    this.exp = null;
    this.trials = [];
    const $ = (sel) => root.querySelector(sel);
    const onPick = () => {
      this.pair = [$('#contour-x').value, $('#contour-y').value];
      this.drawContour();
    };
    $('#contour-x').onchange = onPick;
    $('#contour-y').onchange = onPick;
  }

  update(exp, trials) {
    this.exp = exp;
    this.trials = trials;
    const $ = (sel) => this.root.querySelector(sel);
    const names = exp.spec.parameters.map((p) => p.name);
    for (const id of ['#contour-x', '#contour-y']) {
      const select = $(id);
      if (select.options.length !== names.length) select.replaceChildren(...names.map((n) => new Option(n, n)));
    }
    this.drawContour();
    // The finished trials and their values decide the importance.
    const key = JSON.stringify(ranked(trials).map((t) => [t.name, t.objectiveValue]));
    if (key !== this.importanceKey) {
      this.importanceKey = key;
      this.fetchImportance(key);
    }
  }

  async fetchImportance(key) {
    const $ = (sel) => this.root.querySelector(sel);
    let result;
    try {
      result = await api.importance(this.experiment);
    } catch (e) {
      // Being computed (503) or the server's queue is full (429): ask again
      // when it says, while this history is still the one shown.
      if (e.retryAfter && (e.status === 503 || e.status === 429)) {
        if (!this.ctx.alive || key !== this.importanceKey) return;
        $('#importance-note').textContent = 'computing importance…';
        setTimeout(() => {
          if (this.ctx.alive && key === this.importanceKey) this.fetchImportance(key);
        }, e.retryAfter * 1000);
        return;
      }
      result = { method: '', trials: 0, parameters: [], note: `importance unavailable: ${e.message}` };
    }
    if (!this.ctx.alive || key !== this.importanceKey) return;
    this.importance = result;
    $('#importance-title').textContent = importanceTitle(result);
    $('#importance-note').textContent = importanceNote(result);
    const el = $('#chart-importance');
    draw(el, importanceOption(result));
    el.dataset.method = result.method;
    el.dataset.order = JSON.stringify(result.parameters.map((p) => p.name));
    el.dataset.loaded = '1';
    if (!this.pair) this.drawContour();
  }

  drawContour() {
    if (!this.exp) return;
    const $ = (sel) => this.root.querySelector(sel);
    const spec = this.exp.spec;
    const [x, y] = this.pair || defaultPair(spec, this.importance);
    $('#contour-x').value = x;
    $('#contour-y').value = y;
    draw($('#chart-contour'), contourOption(this.trials, spec, x, y));
  }
}
