// Browser tests of a large experiment's page (#36): the plots come from the
// server's downsampled columns (the best trial and every failed one always
// drawn), the trial table pages, sorts and filters on the server, and the
// whole trial list is never downloaded. The page's threshold and sample
// size are lowered (window.hptLargeTrials, hptSamplePoints) so that 400
// trials exercise what 50,000 would. The real `hpt serve` on port 0,
// Debian's headless Chromium.
//
//   node tests/ui/large.mjs --hpt build/cli/hpt --out build/tests/ui-out \
//     [--ui-dir ui/dist] [--chromium /usr/bin/chromium]
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import {
  browserTestArgs, client, launchBrowser, preflight, startServer, tempDir,
} from './harness.mjs';

const args = browserTestArgs(process.argv.slice(2));
const PAYLOAD = '<img src=x onerror="window.__xss=1">';
const N = 400;
const BEST = 'big-263';
const SAMPLE = 60;

let server;
let api;
let browser;
let page;
const failed = [];
const requests = [];
const pageErrors = [];
const work = tempDir('hpt-ui-large-');

async function open(hash) {
  await page.goto('about:blank');
  requests.length = 0;
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector('#app[data-loaded="1"]', { timeout: 15000 });
  await page.waitForSelector('#trial-table[data-loading="0"]', { timeout: 15000 });
}

async function historyOption() {
  return page.evaluate(async () => {
    const { chartOf } = await import('./chart_host.js');
    const o = chartOf(document.querySelector('#chart-history')).getOption();
    return JSON.parse(JSON.stringify(o, (k, v) => (typeof v === 'function' ? undefined : v)));
  });
}

const rows = () => page.$$eval('#trials tbody tr[data-trial]', (r) => r.map((x) => x.dataset.trial));
const count = () => page.$eval('#trial-count', (e) => e.textContent);
async function settled(action) {
  await page.$eval('#trial-table', (e) => { e.dataset.loading = 'x'; });
  await action();
  await page.waitForSelector('#trial-table[data-loading="0"]', { timeout: 10000 });
}

before(async () => {
  const problems = preflight({ hpt: args.hpt, chromium: args.chromium, uiDir: args['ui-dir'] });
  if (problems.length) throw new Error(`cannot run the browser tests:\n  ${problems.join('\n  ')}`);
  server = await startServer(args.hpt, { db: path.join(work, 'hpt.db'), uiDir: args['ui-dir'], cwd: work });
  api = client(server.url);
  await api.create({
    name: 'big', objective: { type: 'minimize', objectiveMetricName: 'loss' },
    algorithm: { algorithmName: 'random' }, parallelTrialCount: 5, maxTrialCount: N + 10,
    parameters: [
      { name: 'x', parameterType: 'double', feasibleSpace: { min: '0', max: '1' } },
      { name: 'opt', parameterType: 'categorical', feasibleSpace: { list: ['adam', PAYLOAD] } },
    ],
  });
  // Losses drift down slowly with noise; BEST is far below every other.
  const trials = [];
  for (let i = 1; i <= N; i += 1) {
    const x = ((i * 0.618034) % 1);
    const loss = `big-${i}` === BEST ? 0.001 : 1 + ((i * 37) % 100) / 100 - i / 1000;
    trials.push({
      parameterAssignments: [{ name: 'x', value: x }, { name: 'opt', value: i % 2 ? 'adam' : PAYLOAD }],
      metrics: { loss },
    });
  }
  await api.call('POST', '/api/v1/experiments/big/trials:import', { trials });
  for (const t of await api.suggest('big', 3)) {
    await api.call('POST', `/api/v1/experiments/big/trials/${t.name}:complete`, { infeasible: true });
    failed.push(t.name);
  }
  browser = await launchBrowser(args.chromium, path.join(work, 'profile'));
  await browser.addInitScript(`window.hptLargeTrials = 100; window.hptSamplePoints = ${SAMPLE};`);
  page = browser.pages()[0] || await browser.newPage();
  page.on('request', (r) => requests.push(new URL(r.url())));
  page.on('pageerror', (e) => pageErrors.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(`console: ${m.text()}`));
  page.on('response', (r) => r.status() >= 400 && pageErrors.push(`${r.status()} ${r.url()}`));
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

test('the plots are drawn from a sample that keeps the best and every failed trial', async () => {
  await open('#/experiments/big');
  assert.equal(await page.$eval('#app', (e) => e.dataset.large), '1');
  const [rowsDrawn, total] = (await page.$eval('#app', (e) => e.dataset.sampled)).split('/').map(Number);
  assert.equal(total, N + 3);
  assert.ok(rowsDrawn <= SAMPLE + 5 && rowsDrawn > 10, `${rowsDrawn} rows drawn`);
  assert.match(await page.$eval('#sample-note', (e) => e.textContent), new RegExp(`${rowsDrawn} of ${N + 3} trials drawn`));
  const o = await historyOption();
  const points = o.series.filter((s) => s.type === 'scatter' && !s.name.includes('no value')).flatMap((s) => s.data);
  assert.ok(points.some(([x, y]) => x === 263 && y === 0.001), 'the best trial is drawn');
  const crosses = o.series.find((s) => s.name === 'Failed (no value)');
  assert.deepEqual(crosses.data.map(([x]) => x).sort((a, b) => a - b), failed.map((n) => Number(n.split('-')[1])));
  const best = o.series.find((s) => s.name === 'best so far');
  assert.ok(best.data.some(([x, y]) => x === 263 && y === 0.001), 'the best-so-far line steps down at the best');
  // Learning curves only for trials of the sample.
  await page.waitForSelector('#chart-curves[data-loading="0"]', { timeout: 15000 });
  const sample = new Set((await api.call('GET', `/api/v1/experiments/big/trials:columns?maxPoints=${SAMPLE}`)).columns.name);
  const curves = requests.filter((u) => u.pathname.endsWith('/observations')).map((u) => decodeURIComponent(u.pathname.split('/').at(-2)));
  assert.ok(curves.length > 0 && curves.every((n) => sample.has(n)), curves.join());
  // Only the sample and a page came: never the whole list.
  const paths = requests.filter((u) => u.pathname.includes('/trials'));
  assert.ok(paths.some((u) => u.pathname.endsWith('/trials:columns')));
  assert.ok(!paths.some((u) => u.pathname.endsWith('/trials') && !u.search), paths.map(String).join('\n'));
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.deepEqual(pageErrors, []);
});

test('the trial table pages, sorts and filters on the server', async () => {
  await open('#/experiments/big');
  assert.equal(await count(), `${N + 3} of ${N + 3} trials`);
  const first = await rows();
  assert.equal(first.length, 100);
  assert.equal(first[0], 'big-1');
  await settled(() => page.click('#page-next'));
  assert.equal((await rows())[0], 'big-101');
  await settled(() => page.click('#trials th[data-key="objective"]'));
  assert.equal((await rows())[0], BEST);  // sorting restarts at the first page
  await settled(() => page.selectOption('#trial-phase', 'Failed'));
  assert.deepEqual((await rows()).sort(), [...failed].sort());
  assert.equal(await count(), `3 of ${N + 3} trials`);
  await settled(() => page.selectOption('#trial-phase', ''));
  await page.selectOption('#range-key', 'p:x');
  await settled(() => page.fill('#range-min', '0.9'));
  const expected = (await api.call('GET', '/api/v1/experiments/big/trials?min.p:x=0.9')).total;
  assert.ok(expected > 0 && expected < N);
  assert.equal(await count(), `${expected} of ${N + 3} trials`);
  await settled(() => page.fill('#trial-filter', 'opt=adam'));
  const adam = (await api.call('GET', '/api/v1/experiments/big/trials?min.p:x=0.9&filter=opt%3Dadam')).total;
  assert.equal(await count(), `${adam} of ${N + 3} trials`);
  const texts = await page.$$eval('#trials tbody tr[data-trial] td:nth-child(5)', (t) => t.map((x) => x.textContent));
  assert.ok(texts.every((t) => t === 'adam'), texts.join());
  // Page requests carried the table's state to the server.
  assert.ok(requests.some((u) => u.searchParams.get('sort') === 'objective' && u.searchParams.get('min.p:x') === null));
  assert.ok(requests.some((u) => u.searchParams.get('min.p:x') === '0.9' && u.searchParams.get('filter') === 'opt=adam'));
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.deepEqual(pageErrors, []);
});
