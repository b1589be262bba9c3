// Browser tests of the multi-objective views: the Pareto scatter (the
// front highlighted and, for two objectives, joined by a step line; a
// choice of axes for three), the hypervolume over trials, a column per
// objective in the trial table, imported trials and the queued count, and
// that names and values holding HTML stay text. The real `hpt serve` on
// port 0 with hand-made results, Debian's headless Chromium.
//
//   node tests/ui/pareto.mjs --hpt build/cli/hpt --out build/tests/ui-out \
//     [--ui-dir ui/dist] [--chromium /usr/bin/chromium]
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import {
  browserTestArgs, client, launchBrowser, preflight, startServer, tempDir,
} from './harness.mjs';

const args = browserTestArgs(process.argv.slice(2));

// A payload that marks window.__xss if it ever runs.
const PAYLOAD = '<img src=x onerror="window.__xss=1">';
const PARAMS = [
  { name: 'x', parameterType: 'double', feasibleSpace: { min: '0', max: '1' } },
  { name: 'opt', parameterType: 'categorical', feasibleSpace: { list: [PAYLOAD] } },
];
// [cost (minimised), acc (maximised)] per trial, by hand: the front is
// the 1st, 3rd, 4th and 6th, and the first imported one.
const RESULTS = [[1, 0.5], [2, 0.4], [3, 0.9], [2, 0.7], [4, 0.8], [5, 0.95]];
const IMPORTED = [[0.5, 0.1], [6, 0.2]];
const FRONT = 5;

let server;
let api;
let browser;
let page;
const pageErrors = [];
const work = tempDir('hpt-ui-pareto-');

async function open(hash, ready = '#app[data-loaded="1"]') {
  await page.goto('about:blank');
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector(ready, { timeout: 15000 });
}

async function chartOption(selector) {
  return page.evaluate(async (sel) => {
    const { chartOf } = await import('./chart_host.js');
    const o = chartOf(document.querySelector(sel)).getOption();
    return JSON.parse(JSON.stringify(o, (k, v) => (typeof v === 'function' ? undefined : v)));
  }, selector);
}

// The text of every data item's tooltip in the chart (ECharts' showTip).
async function tooltips(selector) {
  return page.evaluate(async (sel) => {
    const { chartOf } = await import('./chart_host.js');
    const el = document.querySelector(sel);
    const chart = chartOf(el);
    const texts = [];
    chart.getOption().series.forEach((s, si) => {
      for (let di = 0; di < (s.data || []).length; ++di) {
        chart.dispatchAction({ type: 'showTip', seriesIndex: si, dataIndex: di });
        texts.push(el.textContent);
      }
    });
    chart.dispatchAction({ type: 'hideTip' });
    return texts;
  }, selector);
}

// No payload ran or became markup.
async function assertClean(where) {
  await page.waitForTimeout(200);
  const found = await page.evaluate(() => ({
    xss: window.__xss,
    img: document.querySelectorAll('img').length,
    handlers: [...document.querySelectorAll('*')].flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => a.name)),
  }));
  assert.deepEqual(found, { xss: undefined, img: 0, handlers: [] }, where);
}

function spec(name, objectives, extra = {}) {
  return {
    name,
    objective: {
      type: objectives[0][1], objectiveMetricName: objectives[0][0],
      objectives: objectives.map(([m, type]) => ({ type, objectiveMetricName: m })),
    },
    algorithm: { algorithmName: 'random', algorithmSettings: [{ name: 'random_state', value: '2' }] },
    parallelTrialCount: 10, maxTrialCount: 10, maxFailedTrialCount: 10, parameters: PARAMS, ...extra,
  };
}

before(async () => {
  const problems = preflight({ hpt: args.hpt, chromium: args.chromium, uiDir: args['ui-dir'] });
  if (problems.length) throw new Error(`cannot run the browser tests:\n  ${problems.join('\n  ')}`);
  server = await startServer(args.hpt, { db: path.join(work, 'hpt.db'), uiDir: args['ui-dir'], cwd: work });
  api = client(server.url);
  await api.create(spec('mo', [['cost', 'minimize'], ['acc', 'maximize']]));
  const trials = await api.suggest('mo', RESULTS.length);
  for (const [i, t] of trials.entries()) {
    await api.complete('mo', t.name, { cost: RESULTS[i][0], acc: RESULTS[i][1] });
  }
  await api.call('POST', '/api/v1/experiments/mo/trials:import', {
    trials: IMPORTED.map(([cost, acc], i) => ({
      parameterAssignments: [{ name: 'x', value: String(0.1 * (i + 1)) }, { name: 'opt', value: PAYLOAD }],
      metrics: { cost, acc },
    })),
  });
  await api.call('POST', '/api/v1/experiments/mo/trials:enqueue', {
    trials: [{ parameterAssignments: [{ name: 'x', value: '0.5' }, { name: 'opt', value: PAYLOAD }] }],
  });
  await api.create(spec('mo3', [['cost', 'minimize'], ['acc', 'maximize'], ['size', 'minimize']]));
  for (const [i, t] of (await api.suggest('mo3', 4)).entries()) {
    await api.complete('mo3', t.name, { cost: i, acc: i / 4, size: 4 - i });
  }
  await api.create({
    name: 'single', objective: { type: 'minimize', objectiveMetricName: 'loss' },
    algorithm: { algorithmName: 'random' }, maxTrialCount: 2, parallelTrialCount: 2, parameters: PARAMS,
  });
  for (const t of await api.suggest('single', 2)) await api.complete('single', t.name, { loss: 1 });
  browser = await launchBrowser(args.chromium, path.join(work, 'profile'));
  page = browser.pages()[0] || await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && !/Failed to load resource/.test(m.text()) &&
    pageErrors.push(`console: ${m.text()}`));
  page.on('response', (r) => r.status() >= 400 && pageErrors.push(`${r.status()} ${r.url()}`));
  page.on('dialog', (d) => {
    pageErrors.push(`dialog: ${d.message()}`);
    d.dismiss();
  });
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

test('two objectives: the scatter, its front and step line, the hypervolume', async () => {
  const x = await api.experiment('mo');
  assert.equal(x.status.paretoFront.length, FRONT);
  const doc = await api.call('GET', '/api/v1/experiments/mo/pareto');
  await open('#/experiments/mo', '#chart-hypervolume[data-loaded="1"]');
  assert.equal(await page.isVisible('#pareto-cards'), true);
  assert.equal(await page.isVisible('#pareto-axes'), false);
  const all = RESULTS.length + IMPORTED.length;
  assert.equal(await page.getAttribute('#chart-pareto', 'data-points'), String(all));
  assert.equal(await page.getAttribute('#chart-pareto', 'data-front'), String(FRONT));
  const option = await chartOption('#chart-pareto');
  const [rest, front, line] = option.series;
  assert.equal(rest.data.length, all - FRONT);
  assert.deepEqual(front.data.map((p) => p.join()).sort(),
    x.status.paretoFront.map((f) => f.objectiveValues.join()).sort());
  assert.equal(line.type, 'line');
  assert.equal(line.step, 'end');
  assert.deepEqual(line.data, [[0.5, 0.1], [1, 0.5], [2, 0.7], [3, 0.9], [5, 0.95]]);
  assert.equal(option.xAxis[0].name, 'cost ↓');
  assert.equal(option.yAxis[0].name, 'acc ↑');
  // The hypervolume: one point per trial, ending at the server's value.
  assert.equal(doc.hypervolumeCurve.length, all);
  assert.equal(await page.getAttribute('#chart-hypervolume', 'data-points'), String(all));
  const hv = await chartOption('#chart-hypervolume');
  assert.deepEqual(hv.series[0].data.map((p) => p[1]), doc.hypervolumeCurve.map((p) => p.hypervolume));
  assert.equal(hv.series[0].data.at(-1)[1], doc.hypervolume);
  assert.match(await page.textContent('#hypervolume-note'), new RegExp(`^hypervolume .*; ${FRONT} trials on the front$`));
  await page.locator('#pareto-cards').screenshot({ path: path.join(args.out, 'pareto.png') });
});

test('the trial table has a column per objective; imported and queued trials show', async () => {
  await open('#/experiments/mo');
  const heads = await page.$$eval('#trials thead th[data-key]', (th) => th.map((x) => [x.dataset.key, x.textContent.trim()]));
  assert.deepEqual(heads.filter(([k]) => k === 'objective' || k.startsWith('o:')), [['objective', 'cost ↓'], ['o:1', 'acc ↑']]);
  const trials = await api.trials('mo');
  const third = trials.find((t) => t.index === 3);
  const cells = await page.$$eval(`#trials tr[data-trial="${third.name}"] td.num`, (td) => td.map((x) => x.textContent.trim()));
  assert.ok(cells.includes('3') && cells.includes('0.9'), cells.join(' | '));
  const imported = trials.filter((t) => t.reason === 'Imported').map((t) => t.name);
  assert.equal(imported.length, IMPORTED.length);
  for (const n of imported) assert.ok(await page.$(`#trials tr[data-trial="${n}"] .imported`), `${n} is marked imported`);
  assert.equal(await page.$$eval('#trials .imported', (x) => x.length), IMPORTED.length);
  const counts = await page.textContent('#trial-counts');
  assert.match(counts, /2 imported/);
  assert.match(counts, /1 queued/);
  // Sorting by the second objective, best (highest acc) first.
  await page.click('#trials th[data-key="o:1"]');
  await page.click('#trials th[data-key="o:1"]');
  const order = await page.$$eval('#trials tbody tr[data-trial]', (r) => r.map((x) => x.dataset.trial));
  assert.equal(order[0], trials.find((t) => t.index === 6).name);
  assert.match(await page.textContent('#objectives'), /minimize cost · maximize acc/);
});

test('names and values holding HTML stay text in tooltips and the table', async () => {
  await open('#/experiments/mo', '#chart-hypervolume[data-loaded="1"]');
  const texts = await tooltips('#chart-pareto');
  assert.ok(texts.length >= RESULTS.length + IMPORTED.length);
  assert.ok(texts.every((t) => t.includes(`opt = ${PAYLOAD}`)), texts[0]);
  assert.ok((await tooltips('#chart-hypervolume')).some((t) => /hypervolume = /.test(t)));
  assert.ok((await page.textContent('#trials tbody')).includes(PAYLOAD));
  await assertClean('the experiment page');
  // A metric name holding HTML: the server refuses it (names are
  // [A-Za-z0-9_.-/|]); were it taken, the page must show it as text.
  const bad = spec('mo-html', [['cost', 'minimize'], [PAYLOAD, 'maximize']]);
  let refused = false;
  try {
    await api.create(bad);
  } catch (e) {
    refused = e.status === 400;
    if (!refused) throw e;
  }
  if (!refused) {
    for (const t of await api.suggest('mo-html', 2)) await api.complete('mo-html', t.name, { cost: 1, [PAYLOAD]: 2 });
    await open('#/experiments/mo-html', '#chart-hypervolume[data-loaded="1"]');
    assert.ok((await tooltips('#chart-pareto')).every((t) => t.includes(`${PAYLOAD} = 2`)));
    assert.ok((await page.textContent('#trials thead')).includes(PAYLOAD));
    await assertClean('a metric named with HTML');
  }
});

test('three objectives: a choice of axes, no step line', async () => {
  await open('#/experiments/mo3', '#chart-hypervolume[data-loaded="1"]');
  assert.equal(await page.isVisible('#pareto-axes'), true);
  assert.deepEqual(await page.$$eval('#pareto-x option', (o) => o.map((x) => x.textContent)), ['cost ↓', 'acc ↑', 'size ↓']);
  let option = await chartOption('#chart-pareto');
  assert.equal(option.series.length, 2);
  assert.equal(option.yAxis[0].name, 'acc ↑');
  await page.selectOption('#pareto-x', '2');
  await page.selectOption('#pareto-y', '0');
  assert.equal(await page.getAttribute('#chart-pareto', 'data-axes'), '2,0');
  option = await chartOption('#chart-pareto');
  assert.equal(option.xAxis[0].name, 'size ↓');
  assert.equal(option.yAxis[0].name, 'cost ↓');
  // size = 4 - cost: every trial is on the front.
  assert.deepEqual(option.series[1].data.map((p) => p.join()).sort(), ['1,3', '2,2', '3,1', '4,0']);
  await page.waitForSelector('#chart-hypervolume[data-points="4"]');
});

test('a single objective: no multi-objective cards, one objective column', async () => {
  await open('#/experiments/single');
  assert.equal(await page.isVisible('#pareto-cards'), false);
  assert.equal(await page.$('#chart-pareto[data-points]'), null);  // never drawn
  const keys = await page.$$eval('#trials thead th[data-key]', (th) => th.map((x) => x.dataset.key));
  assert.deepEqual(keys.filter((k) => k === 'objective' || k.startsWith('o:')), ['objective']);
  await assertClean('a single-objective page');
});

test('no script errors on any page', () => {
  assert.deepEqual(pageErrors, []);
});
