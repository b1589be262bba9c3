// Browser tests of the dashboard's first-week views (issue #14): why a
// trial failed (table and trial page), parameter importance (fANOVA and
// the GP's length-scales), the two-parameter plot, comparing trials, the
// CSV export, range filters, failures in the optimisation history, and
// dark mode. The real `hpt serve` on port 0, Debian's headless Chromium.
//
//   node tests/ui/analysis.mjs --hpt build/cli/hpt --out build/tests/ui-out \
//     [--ui-dir ui/dist] [--chromium /usr/bin/chromium]
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import {
  browserTestArgs, client, launchBrowser, preflight, startServer, tempDir, waitFor,
} from './harness.mjs';

const args = browserTestArgs(process.argv.slice(2));

const PARAMS = [
  { name: 'x', parameterType: 'double', feasibleSpace: { min: '0', max: '1' } },
  { name: 'y', parameterType: 'double', feasibleSpace: { min: '0', max: '1' } },
  { name: 'opt', parameterType: 'categorical', feasibleSpace: { list: ['sgd', 'adam', '=cmd|calc'] } },
];
const value = (t, k) => t.parameterAssignments.find((a) => a.name === k).value;
// The loss depends almost only on x.
const lossOf = (t) => 10 * (Number(value(t, 'x')) - 0.3) ** 2 + 0.05 * Number(value(t, 'y'));
const INFEASIBLE_REASON = '=1+1, "quoted"';

let server;
let api;
let browser;
let page;
const pageErrors = [];
const work = tempDir('hpt-ui-analysis-');

async function shot(name) {
  await page.screenshot({ path: path.join(args.out, `${name}.png`), fullPage: true });
}

// A fresh document each time, so that no state of the last page counts.
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

async function rows() {
  return page.$$eval('#trials tbody tr[data-trial]', (r) => r.map((x) => x.dataset.trial));
}

// A client-run experiment: `n` trials, three observations each; the last
// one is completed infeasible (Failed, no value, a formula-like reason).
async function clientExperiment(name, algorithm, n) {
  await api.create({
    name,
    objective: { type: 'minimize', objectiveMetricName: 'loss', additionalMetricNames: ['acc'] },
    algorithm: { algorithmName: algorithm, algorithmSettings: [{ name: 'random_state', value: '4' }] },
    parallelTrialCount: 4, maxTrialCount: n, maxFailedTrialCount: n, parameters: PARAMS,
  });
  for (let done = 0; done < n;) {
    const batch = await api.suggest(name, Math.min(4, n - done));
    for (const t of batch) {
      const loss = lossOf(t);
      await api.observe(name, t.name, [1, 2, 3].map((step) => ({ step, metrics: { loss: loss * 3 / step, acc: 1 / (1 + loss) } })));
      if (done === n - 1) {
        await api.call('POST', `/api/v1/experiments/${name}/trials/${t.name}:complete`, { infeasible: true, reason: INFEASIBLE_REASON });
      } else {
        await api.complete(name, t.name, { loss, acc: 1 / (1 + loss) });
      }
      done += 1;
    }
  }
}

before(async () => {
  const problems = preflight({ hpt: args.hpt, chromium: args.chromium, uiDir: args['ui-dir'] });
  if (problems.length) throw new Error(`cannot run the browser tests:\n  ${problems.join('\n  ')}`);
  server = await startServer(args.hpt, { db: path.join(work, 'hpt.db'), uiDir: args['ui-dir'], cwd: work });
  api = client(server.url);
  await api.create({
    name: 'broken',
    objective: { type: 'minimize', objectiveMetricName: 'loss' },
    algorithm: { algorithmName: 'random' }, parallelTrialCount: 1, maxTrialCount: 1, maxFailedTrialCount: 1,
    parameters: [PARAMS[0]],
    trialTemplate: {
      command: ['sh', '-c', 'echo "Traceback (most recent call last):" >&2; echo "python3: can\'t open file \'/opt/x.py\': [Errno 2] No such file or directory" >&2; exit 2'],
    },
  });
  // Two nearby objective values (#33): ECharts' own labels read "1" and "1".
  await api.create({
    name: 'near', objective: { type: 'minimize', objectiveMetricName: 'loss' },
    algorithm: { algorithmName: 'random' }, parallelTrialCount: 2, maxTrialCount: 2, parameters: [PARAMS[0]],
  });
  const [n1, n2] = await api.suggest('near', 2);
  await api.complete('near', n1.name, { loss: 0.8 });
  await api.complete('near', n2.name, { loss: 1.2 });
  await clientExperiment('week', 'random', 16);
  await clientExperiment('bo', 'bayesianoptimization', 14);
  await waitFor('broken to end', async () => ['Succeeded', 'Failed'].includes((await api.experiment('broken')).status.phase), 30000, 300);
  browser = await launchBrowser(args.chromium, path.join(work, 'profile'));
  page = browser.pages()[0] || await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && !/Failed to load resource/.test(m.text()) &&
    pageErrors.push(`console: ${m.text()}`));
  page.on('response', (r) => r.status() >= 400 && pageErrors.push(`${r.status()} ${r.url()}`));
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

test('the Why column says why a trial failed; the trial page shows it all', async () => {
  const t = (await api.trials('broken')).find((x) => x.phase === 'Failed');
  assert.equal(t.phase, 'Failed');
  await open('#/experiments/broken');
  assert.ok(await page.$('#trials th[data-key="why"]'), 'a Why column');
  const cell = await page.$eval(`#trials tr[data-trial="${t.name}"] td.why`, (td) => ({ text: td.textContent, title: td.title }));
  // The message's last line, cut to 80 characters; all of it in the title.
  assert.ok(cell.text.startsWith(`${t.reason}: python3: can't open file '/opt/x.py': [Errno 2]`), cell.text);
  assert.ok(cell.text.length <= 80, cell.text);
  assert.equal(cell.title, `${t.reason}: ${t.message}`);
  await page.click(`#trials tr[data-trial="${t.name}"] a`);
  await page.waitForSelector('#app[data-loaded="1"] #trial-failure');
  const box = await page.textContent('#trial-failure');
  assert.match(box, /Failed/);
  assert.match(box, new RegExp(`reason ${t.reason}`));
  assert.match(box, /Traceback \(most recent call last\):\s+python3: can't open file/);
  await shot('trial-failed');
  // Only succeeded trials: no Why column.
  const ok = (await api.trials('week')).filter((x) => x.phase === 'Succeeded');
  await open('#/experiments/week');
  assert.ok(await page.$('#trials th[data-key="why"]'), 'week has a failed trial');
  assert.equal(await page.$eval(`#trials tr[data-trial="${ok[0].name}"] td.why`, (td) => td.textContent), '');
});

test('importance: bars ranked as the API says, titled with its method', async () => {
  for (const [name, method, title] of [['week', 'fanova', 'fANOVA (random forest)'], ['bo', 'gp', "from the GP's fitted length-scales"]]) {
    const result = await api.call('GET', `/api/v1/experiments/${name}/importance`);
    assert.equal(result.method, method);
    assert.equal(result.parameters.length, PARAMS.length);
    assert.equal(result.parameters[0].name, 'x', `${name}: x matters most (${JSON.stringify(result)})`);
    const sum = result.parameters.reduce((s, p) => s + p.importance, 0);
    assert.ok(Math.abs(sum - 1) < 1e-9);
    // Uncertainty: fANOVA's spread over its trees; a GP's check by fANOVA.
    const checked = method === 'gp' ? result.fanova.parameters : result.parameters;
    assert.ok(checked.every((p) => typeof p.stddev === 'number'), JSON.stringify(result));
    await open(`#/experiments/${name}`, '#chart-importance[data-loaded="1"]');
    assert.equal(await page.getAttribute('#chart-importance', 'data-method'), method);
    assert.match(await page.textContent('#importance-title'), new RegExp(title.replace(/[()']/g, '.')));
    const option = await chartOption('#chart-importance');
    // The top bar is the last category of ECharts' y-axis.
    assert.deepEqual([...option.yAxis[0].data].reverse(), result.parameters.map((p) => p.name));
    assert.deepEqual([...option.series[0].data].reverse(), result.parameters.map((p) => p.importance));
    if (method === 'fanova') {
      assert.match(await page.textContent('#importance-note'), /main effects explain/);
      await page.locator('#importance-card').screenshot({ path: path.join(args.out, 'importance-fanova.png') });
    }
    if (name === 'bo') await page.locator('#importance-card').screenshot({ path: path.join(args.out, 'importance.png') });
  }
});

test('too few trials: the importance card says so', async () => {
  await api.create({
    name: 'fresh', objective: { type: 'minimize', objectiveMetricName: 'loss' },
    algorithm: { algorithmName: 'random' }, maxTrialCount: 3, parameters: PARAMS,
  });
  const result = await api.call('GET', '/api/v1/experiments/fresh/importance');
  assert.deepEqual(result.parameters, []);
  assert.equal(result.trials, 0);
  await open('#/experiments/fresh', '#chart-importance[data-loaded="1"]');
  assert.equal(await page.textContent('#importance-note'), result.note);
  assert.equal(await page.getAttribute('#chart-importance', 'data-points'), '0');
});

// The texts the colour bar (the visualMap component) draws, as ECharts drew
// them: its ends ("better", "worse") and the values at its two handles.
async function colourBarTexts(selector) {
  return page.evaluate(async (sel) => {
    const { chartOf } = await import('./chart_host.js');
    const texts = [];
    const walk = (el, inBar) => {
      const bar = inBar || el.__ecComponentInfo?.mainType === 'visualMap';
      if (bar && el.type === 'text' && !el.ignore && !el.invisible) texts.push(el.style.text);
      (el.childrenRef?.() || []).forEach((c) => walk(c, bar));
    };
    chartOf(document.querySelector(sel)).getZr().storage.getRoots().forEach((r) => walk(r, false));
    return texts;
  }, selector);
}

test('the colour bar\'s ends read apart for nearby values (#33)', async () => {
  await open('#/experiments/near');
  await page.waitForSelector('#chart-parallel[data-points="2"] canvas');
  const texts = await colourBarTexts('#chart-parallel');
  const values = texts.filter((t) => !['better', 'worse'].includes(t));
  assert.deepEqual(values.sort(), ['0.8', '1.2'], `colour bar texts: ${JSON.stringify(texts)}`);
  await page.locator('#chart-parallel').screenshot({ path: path.join(args.out, 'colour-bar-near.png') });
});

test('the two-parameter plot: any pair, coloured by the objective', async () => {
  const trials = await api.trials('week');
  const scored = trials.filter((t) => t.phase === 'Succeeded' && t.objectiveValue !== null);
  await open('#/experiments/week', '#chart-importance[data-loaded="1"]');
  await page.waitForSelector(`#chart-contour[data-points="${scored.length}"]`);
  // The two most important parameters first.
  assert.equal(await page.inputValue('#contour-x'), 'x');
  await page.selectOption('#contour-x', 'opt');
  await page.selectOption('#contour-y', 'y');
  const option = await chartOption('#chart-contour');
  assert.equal(option.xAxis[0].type, 'category');
  assert.equal(option.yAxis[0].type, 'value');
  assert.equal(option.series[0].data.length, scored.length);
  const best = scored.reduce((a, b) => (b.objectiveValue < a.objectiveValue ? b : a));
  assert.deepEqual(option.series[1].data[0], [value(best, 'opt'), Number(value(best, 'y')), best.objectiveValue]);
  assert.equal(option.visualMap[0].dimension, 2);
  await page.locator('#contour-card').screenshot({ path: path.join(args.out, 'contour.png') });
});

test('compare: exactly the chosen trials, side by side, curves overlaid', async () => {
  const trials = await api.trials('week');
  await open('#/experiments/week');
  assert.equal(await page.isDisabled('#compare-trials'), true);
  const chosen = [trials[1].name, trials[4].name, trials[trials.length - 1].name];
  for (const n of chosen) await page.check(`#trials input[data-pick="${n}"]`);
  assert.equal(await page.textContent('#compare-trials'), 'Compare 3');
  await page.click('#compare-trials');
  await page.waitForURL(/#\/experiments\/week\/compare\?trials=/);
  await page.waitForSelector('#app[data-loaded="1"] #compare-table');
  assert.deepEqual(await page.$$eval('#compare-table th[data-trial]', (th) => th.map((x) => x.dataset.trial)), chosen);
  const row = async (kind) => page.$$eval(`#compare-table tr[data-row="${kind}"] td`, (td) => td.map((x) => x.textContent.trim()));
  // A completed infeasible trial: reason Infeasible, the message it gave.
  assert.deepEqual(await row('why'), ['', '', `Infeasible: ${INFEASIBLE_REASON}`]);
  let points = 0;
  for (const n of chosen) points += (await api.observations('week', n)).filter((o) => 'loss' in o.metrics).length;
  await page.waitForSelector(`#chart-compare[data-loading="0"][data-points="${points}"]`);
  const option = await chartOption('#chart-compare');
  assert.deepEqual(option.series.map((s) => s.name), chosen);
  await shot('compare');
});

test('CSV export: every trial, quoted, formulas defused', async () => {
  const trials = await api.trials('week');
  await open('#/experiments/week');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
  assert.equal(download.suggestedFilename(), 'week-trials.csv');
  const csv = fs.readFileSync(await download.path(), 'utf8').replace(/^\ufeff/, '');
  const lines = csv.split('\r\n');
  assert.equal(lines[0], 'name,phase,x,y,opt,loss,acc,reason,message');
  assert.equal(lines.length, trials.length + 2, 'a header, a line per trial, and the final CRLF');
  assert.equal(lines[lines.length - 1], '');
  const failed = trials.find((t) => t.phase === 'Failed');
  const line = lines.find((l) => l.startsWith(`${failed.name},`));
  assert.ok(line.endsWith(`,Infeasible,"'=1+1, ""quoted"""`), line);
  for (const t of trials) {
    const l = lines.find((x) => x.startsWith(`${t.name},`));
    if (value(t, 'opt') === '=cmd|calc') assert.match(l, /,'=cmd\|calc,/);
    if (t.objectiveValue !== null) assert.ok(l.includes(`,${t.objectiveValue},`), `${l} has ${t.objectiveValue}`);
  }
});

test('range filters hide trials outside the range', async () => {
  const trials = await api.trials('week');
  await open('#/experiments/week');
  await page.selectOption('#range-key', 'p:x');
  await page.fill('#range-min', '0.5');
  const inside = trials.filter((t) => Number(value(t, 'x')) >= 0.5).map((t) => t.name);
  assert.ok(inside.length > 0 && inside.length < trials.length);
  assert.deepEqual((await rows()).sort(), inside.sort());
  await page.selectOption('#range-key', 'objective');
  await page.fill('#range-max', '1');
  const both = trials.filter((t) => Number(value(t, 'x')) >= 0.5 && t.objectiveValue !== null && t.objectiveValue <= 1);
  assert.deepEqual((await rows()).sort(), both.map((t) => t.name).sort());
  assert.equal(await page.$$eval('#range-chips .chip', (c) => c.length), 2);
  await page.click('#range-chips button[data-range="p:x"]');
  await page.click('#range-chips button[data-range="objective"]');
  assert.equal((await rows()).length, trials.length);
});

test('the optimisation history marks failed trials, with a value or without', async () => {
  // week's failed trial reported values before it was completed infeasible.
  const trials = await api.trials('week');
  const failed = trials.filter((t) => t.phase === 'Failed');
  await open('#/experiments/week');
  await page.waitForSelector(`#chart-history[data-points="${trials.length}"]`);
  let option = await chartOption('#chart-history');
  const marked = option.series.find((s) => s.name === 'Failed');
  assert.equal(marked.symbol, 'triangle');
  assert.deepEqual(marked.data.map((d) => d[0]), failed.map((t) => t.index));
  assert.equal(option.series.find((s) => s.name === 'Succeeded').symbol, 'circle');
  // broken's trial never reported: a cross on the bottom edge.
  const [t] = await api.trials('broken');
  await open('#/experiments/broken');
  await page.waitForSelector('#chart-history[data-points="1"]');
  option = await chartOption('#chart-history');
  const cross = option.series.find((s) => s.name === `${t.phase} (no value)`);
  assert.ok(cross, `series: ${option.series.map((s) => s.name)}`);
  assert.deepEqual(cross.data, [[t.index, 0.03]]);
  assert.equal(cross.yAxisIndex, 1);
  assert.deepEqual([option.yAxis[1].min, option.yAxis[1].max], [0, 1]);
  await page.locator('#chart-history').screenshot({ path: path.join(args.out, 'history-failed.png') });
});

test('dark mode follows the system setting', async () => {
  await page.emulateMedia({ colorScheme: 'dark' });
  try {
    await open('#/experiments/week', '#chart-importance[data-loaded="1"]');
    const colours = await page.evaluate(() => {
      const lum = (c) => {
        const [r, g, b] = c.match(/\d+/g).map(Number);
        return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
      };
      return {
        body: lum(getComputedStyle(document.body).backgroundColor || getComputedStyle(document.documentElement).backgroundColor),
        root: lum(getComputedStyle(document.documentElement).backgroundColor),
        card: lum(getComputedStyle(document.querySelector('.card')).backgroundColor),
        text: lum(getComputedStyle(document.querySelector('h2')).color),
      };
    });
    assert.ok(colours.root < 0.15, `page background luminance ${colours.root}`);
    assert.ok(colours.card < 0.2, `card luminance ${colours.card}`);
    assert.ok(colours.text > 0.7, `text luminance ${colours.text}`);
    const option = await chartOption('#chart-history');
    assert.equal(option.backgroundColor, 'transparent');
    await shot('experiment-dark');
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
  await open('#/experiments/week');
  const light = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  assert.equal(light, 'rgb(246, 248, 250)');
});

test('no script errors on any page', () => {
  assert.deepEqual(pageErrors, []);
});
