// The experiment page's multi-objective cards, shown only when the spec
// lists several objectives: the trials on two objectives with the Pareto
// front (status.paretoFront), two selects choosing the objectives when
// there are three or more, and the hypervolume over trials (GET
// .../pareto, asked again only when the trials or their values changed).
import { api } from '../api.js';
import { draw } from '../chart_host.js';
import { isMultiObjective } from '../data.js';
import { html } from '../html.js';
import {
  hypervolumeNote, hypervolumeOption, objectiveChoices, paretoOption, scoredTrials,
} from '../pareto.js';

export const PARETO_HTML = html`
  <div class="cards" id="pareto-cards" hidden>
    <section class="card" id="pareto-card">
      <h2>Pareto front <span class="muted small">(Succeeded trials; the front in red)</span></h2>
      <div class="table-controls" id="pareto-axes" hidden>
        <label>x <select id="pareto-x"></select></label>
        <label>y <select id="pareto-y"></select></label>
      </div>
      <div class="chart" id="chart-pareto"></div>
    </section>
    <section class="card" id="hypervolume-card">
      <h2>Hypervolume over trials</h2>
      <div class="chart" id="chart-hypervolume"></div>
      <p class="muted small" id="hypervolume-note"></p>
    </section>
  </div>`;

export class ParetoCards {
  // `root`: the page element holding PARETO_HTML; `ctx`: the page context.
  constructor(root, ctx, experiment) {
    this.root = root;
    this.ctx = ctx;
    this.experiment = experiment;
    this.exp = null;
    this.trials = [];
    this.pair = [0, 1];
    this.key = '';
    this.doc = null;
    const onPick = () => {
      this.pair = [Number(this.$('#pareto-x').value), Number(this.$('#pareto-y').value)];
      this.drawFront();
    };
    this.$('#pareto-x').onchange = onPick;
    this.$('#pareto-y').onchange = onPick;
  }

  $(sel) {
    return this.root.querySelector(sel);
  }

  update(exp, trials) {
    const multi = isMultiObjective(exp.spec);
    this.$('#pareto-cards').hidden = !multi;
    if (!multi) return;
    this.exp = exp;
    this.trials = trials;
    const choices = objectiveChoices(exp.spec);
    this.$('#pareto-axes').hidden = choices.length < 3;
    for (const id of ['#pareto-x', '#pareto-y']) {
      const select = this.$(id);
      if (select.options.length !== choices.length) {
        select.replaceChildren(...choices.map((c) => new Option(c.label, c.value)));
      }
    }
    this.drawFront();
    // The curve has a point per trial; the front and its volume change with
    // the Succeeded trials' values.
    const key = JSON.stringify([trials.length, scoredTrials(trials, exp.spec).map((t) => [t.name, t.values])]);
    if (key !== this.key || !this.doc) {
      this.key = key;
      this.fetchPareto(key);
    }
  }

  drawFront() {
    if (!this.exp) return;
    const [x, y] = this.pair;
    this.$('#pareto-x').value = String(x);
    this.$('#pareto-y').value = String(y);
    const front = (this.exp.status.paretoFront || []).map((f) => f.name);
    const el = this.$('#chart-pareto');
    const plot = paretoOption(this.trials, this.exp.spec, front, x, y);
    draw(el, plot);
    el.dataset.front = String(plot.front);
    el.dataset.axes = `${x},${y}`;
  }

  async fetchPareto(key) {
    let doc;
    let note;
    try {
      doc = await api.pareto(this.experiment);
      note = hypervolumeNote(doc);
    } catch (e) {
      doc = null;
      note = `hypervolume unavailable: ${e.message}`;
    }
    if (!this.ctx.alive || key !== this.key) return;
    this.doc = doc;
    const el = this.$('#chart-hypervolume');
    draw(el, hypervolumeOption(doc, this.trials));
    this.$('#hypervolume-note').textContent = note;
    el.dataset.hypervolume = doc && doc.hypervolume !== null ? String(doc.hypervolume) : '';
    el.dataset.loaded = '1';
  }
}
