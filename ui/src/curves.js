// Learning curves for the experiment page. Observations are one request per
// trial, so they are fetched lazily and bounded: at most `limit` trials
// (default 200: every running trial, then the best, then the latest; "load
// all" lifts it), six requests in flight (a browser's per-host connection
// limit), and a trial's curve is fetched again only while the trial was
// still running when it was last fetched: finished curves are kept.
import { api } from './api.js';
import { TERMINAL_TRIAL, pickCurveTrials, pool } from './data.js';

export const DEFAULT_CURVE_LIMIT = 200;
const CONCURRENCY = 6;
const REPAINT_MS = 300;

export class CurveStore {
  // `onChange()` is called while fetches land (at most every REPAINT_MS)
  // and once when a refresh is over.
  constructor(experiment, onChange) {
    this.experiment = experiment;
    this.onChange = onChange;
    this.limit = DEFAULT_CURVE_LIMIT;
    this.cache = new Map();  // trial name -> { observations, final }
    this.chosen = [];
    this.total = 0;
    this.running = null;
    this.again = null;
    this.closed = false;
    this.lastPaint = 0;
  }

  close() {
    this.closed = true;
  }

  // Fetches what the current trial list needs; a call made while a fetch
  // runs is folded into one more round after it.
  refresh(trials, spec) {
    if (this.running) {
      this.again = [trials, spec];
      return this.running;
    }
    this.running = this.fetch(trials, spec).finally(() => {
      this.running = null;
      const next = this.again;
      this.again = null;
      if (this.closed) return;
      if (next) this.refresh(...next);
      else this.onChange();
    });
    return this.running;
  }

  async fetch(trials, spec) {
    this.total = trials.length;
    this.chosen = pickCurveTrials(trials, spec, this.limit);
    const phases = new Map(trials.map((t) => [t.name, t.phase]));
    const todo = this.chosen.filter((n) => !(this.cache.get(n) || {}).final);
    await pool(todo, CONCURRENCY, async (name) => {
      if (this.closed) return;
      const final = TERMINAL_TRIAL.has(phases.get(name));
      const observations = await api.observations(this.experiment, name);
      this.cache.set(name, { observations, final });
      const now = performance.now();
      if (now - this.lastPaint > REPAINT_MS) {
        this.lastPaint = now;
        this.onChange();
      }
    });
  }

  // name -> observations of the chosen trials fetched so far.
  curves() {
    const out = new Map();
    for (const n of this.chosen) {
      const c = this.cache.get(n);
      if (c) out.set(n, c.observations);
    }
    return out;
  }

  get loading() {
    return Boolean(this.running);
  }
}
