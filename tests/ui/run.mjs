// Browser tests of the dashboard: the real `hpt serve` on port 0 with
// running, finished and 1,000-trial experiments, driven through Debian's
// headless Chromium. Screenshots of every page go to --out.
//
//   node tests/ui/run.mjs --hpt build/cli/hpt --out build/tests/ui-out \
//     [--ui-dir ui/dist] [--chromium /usr/bin/chromium]
//
// Exits non-zero when a test fails (node's test runner).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';

import {
  browserTestArgs, client, launchBrowser, preflight, startServer, tempDir, waitFor,
} from './harness.mjs';

const args = browserTestArgs(process.argv.slice(2), { 'max-render-ms': '1000' });
const out = args.out;

const PARAMS = [
  { name: 'x', parameterType: 'double', feasibleSpace: { min: '-5', max: '10' } },
  { name: 'lr', parameterType: 'double', feasibleSpace: { min: '1e-4', max: '1e-1', distribution: 'logUniform' } },
  { name: 'layers', parameterType: 'int', feasibleSpace: { min: '1', max: '8' } },
  { name: 'opt', parameterType: 'categorical', feasibleSpace: { list: ['sgd', 'adam', 'rmsprop'] } },
];

// A runner-run experiment whose trials print `steps` lines of step=i loss=...
// (`flat`: a loss that hardly improves with steps, so the median rule has
// trials to stop).
function shellSpec(name, { trials, parallel, steps, sleep, flat = false }) {
  const loss = flat ? 'awk "BEGIN{print (${trialParameters.x}-2)^2 + ${trialParameters.layers}/10 + 1/$i}"'
    : 'awk "BEGIN{print (${trialParameters.x}-2)^2/$i + ${trialParameters.layers}/10}"';
  return {
    name,
    objective: { type: 'minimize', objectiveMetricName: 'loss' },
    algorithm: { algorithmName: 'random', algorithmSettings: [{ name: 'random_state', value: '3' }] },
    parallelTrialCount: parallel,
    maxTrialCount: trials,
    parameters: PARAMS,
    trialTemplate: {
      command: ['sh', '-c', `for i in $(seq 1 ${steps}); do echo "step=$i loss=$(${loss})"; sleep ${sleep}; done`],
      trialParameters: [{ name: 'x', reference: 'x' }, { name: 'layers', reference: 'layers' }],
    },
  };
}

let server;
let api;
let browser;
let page;
const pageErrors = [];
// Failed requests the tests cause on purpose: the invalid spec's 400.
const expectedFailures = [/^400 .*\/api\/v1\/experiments$/];
const work = tempDir('hpt-ui-test-');

async function shot(name) {
  await page.screenshot({ path: path.join(out, `${name}.png`), fullPage: true });
}

async function open(hash) {
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector('#app[data-loaded="1"]', { timeout: 15000 });
}

async function attr(selector, name) {
  return page.$eval(selector, (el, n) => el.dataset[n], name);
}

// Waits until the chart in `selector` has drawn on a canvas and reports
// `points` data points.
async function expectPoints(selector, points) {
  await page.waitForFunction(([sel, n]) => {
    const el = document.querySelector(sel);
    return el && el.querySelector('canvas') && el.dataset.points === String(n);
  }, [selector, points], { timeout: 15000 }).catch(async () => {
    assert.fail(`${selector}: expected ${points} points, page says ${await attr(selector, 'points')}`);
  });
}

async function confirm() {
  await page.click('dialog.modal button[type=submit]');
  await page.waitForSelector('dialog.modal', { state: 'detached' });
}

before(async () => {
  const problems = preflight({ hpt: args.hpt, chromium: args.chromium, uiDir: args['ui-dir'] });
  if (problems.length) throw new Error(`cannot run the browser tests:\n  ${problems.join('\n  ')}`);
  server = await startServer(args.hpt, { db: path.join(work, 'hpt.db'), uiDir: args['ui-dir'], cwd: work });
  api = client(server.url);
  await api.create(shellSpec('quick', { trials: 6, parallel: 3, steps: 5, sleep: 0.05 }));
  await api.create(shellSpec('live', { trials: 4, parallel: 2, steps: 300, sleep: 0.2 }));
  browser = await launchBrowser(args.chromium, path.join(work, 'profile'));
  page = browser.pages()[0] || await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && !/Failed to load resource/.test(m.text()) &&
    pageErrors.push(`console: ${m.text()}`));
  page.on('response', (r) => r.status() >= 400 && expectedFailures.every((re) => !re.test(`${r.status()} ${r.url()}`)) &&
    pageErrors.push(`${r.status()} ${r.url()}`));
  await waitFor('quick to succeed', async () => (await api.experiment('quick')).status.phase === 'Succeeded');
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

test('the list shows every experiment, filters by phase and updates by itself', async () => {
  await open('#/');
  await page.waitForSelector('#experiments tr[data-name="live"]');
  assert.equal(await page.$$eval('#experiments tbody tr[data-name]', (r) => r.length), 2);
  const quick = await page.$eval('#experiments tr[data-name="quick"]', (r) => r.innerText);
  assert.match(quick, /Succeeded/);
  assert.match(quick, /6 \/ 6/);
  assert.match(quick, /random/);
  await page.selectOption('#phase-filter', 'Succeeded');
  assert.deepEqual(await page.$$eval('#experiments tbody tr[data-name]', (r) => r.map((x) => x.dataset.name)), ['quick']);
  await page.selectOption('#phase-filter', '');
  // Created after the page loaded: polling brings it in without a reload.
  await api.create({ ...shellSpec('late', { trials: 1, parallel: 1, steps: 1, sleep: 0 }) });
  await page.waitForSelector('#experiments tr[data-name="late"]', { timeout: 10000 });
  await shot('list');
});

test('the experiment page shows the summary, best trial, plots and table', async () => {
  await page.click('#experiments tr[data-name="quick"] a');
  await page.waitForSelector('#app[data-loaded="1"] #exp-summary dl');
  const trials = await api.trials('quick');
  const x = await api.experiment('quick');
  const scored = trials.filter((t) => t.metrics.some((m) => m.name === 'loss'));
  assert.equal(scored.length, 6);
  await expectPoints('#chart-history', 6);
  await expectPoints('#chart-parallel', 6);
  await expectPoints('#chart-slices', 6 * PARAMS.length);
  let observations = 0;
  for (const t of trials) observations += (await api.observations('quick', t.name)).length;
  await expectPoints('#chart-curves', observations);
  // The parallel axes: log for lr, categories for opt, as ECharts has them.
  const axes = await page.evaluate(async () => {
    const { chartOf } = await import('./chart_host.js');
    return chartOf(document.querySelector('#chart-parallel')).getOption().parallelAxis.map((a) => a.type);
  });
  assert.deepEqual(axes, ['value', 'log', 'value', 'category', 'value']);
  assert.equal(await page.textContent('#exp-best a'), x.status.currentOptimalTrial.name);
  assert.equal(await page.$$eval('#trials tbody tr[data-trial]', (r) => r.length), 6);
  // Sort by objective: the best trial comes first.
  await page.click('#trials th[data-key="objective"]');
  assert.equal(await page.$eval('#trials tbody tr', (r) => r.dataset.trial), x.status.currentOptimalTrial.name);
  await page.fill('#trial-filter', 'opt=adam');
  const adam = trials.filter((t) => t.parameterAssignments.some((a) => a.name === 'opt' && a.value === 'adam'));
  assert.equal(await page.$$eval('#trials tbody tr[data-trial]', (r) => r.length), adam.length);
  await page.fill('#trial-filter', '');
  await page.click('#spec-yaml summary');
  assert.match(await page.textContent('#spec-yaml pre'), /distribution: logUniform/);
  await shot('experiment');
});

test('the trial page shows parameters, metrics, curve and log', async () => {
  const best = (await api.experiment('quick')).status.currentOptimalTrial.name;
  await page.click(`#trials tr[data-trial="${best}"] a`);
  await page.waitForSelector('#app[data-loaded="1"] #metrics-table');
  const t = await api.call('GET', `/api/v1/experiments/quick/trials/${best}`);
  const loss = t.metrics.find((m) => m.name === 'loss');
  const row = await page.$eval('#metrics-table tbody tr', (r) => [...r.cells].map((c) => c.textContent));
  assert.equal(row[0], 'loss');
  assert.equal(Number(row[3]).toPrecision(3), loss.latest.toPrecision(3));
  await expectPoints('#chart-trial', 5);
  assert.match(await page.textContent('#trial-log'), /step=5 loss=/);
  await shot('trial');
});

test('a long log shows only its last 64 KiB, and says so', async () => {
  await api.create({
    name: 'long-log', objective: { type: 'minimize', objectiveMetricName: 'loss' },
    algorithm: { algorithmName: 'random' }, parallelTrialCount: 1, maxTrialCount: 1, parameters: [PARAMS[0]],
    trialTemplate: {
      // 2,000 lines of 76 bytes: about 148 KiB.
      command: ['sh', '-c', 'i=0; while [ $i -lt 2000 ]; do printf "line %05d %064d\\n" $i 0; i=$((i+1)); done; echo "step=1 loss=1"'],
    },
  });
  await waitFor('long-log to finish', async () => (await api.experiment('long-log')).status.phase === 'Succeeded', 30000, 300);
  const [t] = await api.trials('long-log');
  const logRequest = page.waitForRequest((r) => r.url().includes(`/trials/${t.name}/logs`));
  await open(`#/experiments/long-log/trials/${t.name}`);
  assert.equal(new URL((await logRequest).url()).searchParams.get('tail'), '65536');
  assert.match(await page.textContent('#log-note'), /^· showing the last 64 KiB of 14\d KiB$/);
  const log = await page.textContent('#trial-log');
  assert.ok(log.length <= 65536, `${log.length} characters shown`);
  assert.match(log, /^line \d{5} 0{64}\n/, 'the view starts at a whole line');
  assert.match(log, /line 01999 0{64}\nstep=1 loss=1\n$/);
  assert.doesNotMatch(log, /line 00000/);
});

test('a running trial\'s log is followed, and a trial can be stopped', async () => {
  const running = await waitFor('two live trials running', async () => {
    const ts = (await api.trials('live')).filter((t) => t.phase === 'Running');
    return ts.length === 2 && ts;
  });
  const [first, second] = running.map((t) => t.name);
  await open(`#/experiments/live/trials/${second}`);
  assert.equal(await page.textContent('#log-state'), '· following');
  const lines = async () => (await page.textContent('#trial-log')).split('\n').filter(Boolean).length;
  const before = await lines();
  await page.waitForFunction((n) => document.querySelector('#trial-log').textContent.split('\n').filter(Boolean).length > n + 2, before, { timeout: 10000 });
  await shot('trial-running');

  await open('#/experiments/live');
  await page.click(`#trials tr[data-trial="${first}"] button[data-stop]`);
  await confirm();
  await page.waitForSelector(`#trials tr[data-trial="${first}"][data-phase="Killed"]`, { timeout: 10000 });
  assert.equal((await api.call('GET', `/api/v1/experiments/live/trials/${first}`)).phase, 'Killed');
  await shot('experiment-running');

  await page.click('#stop-experiment');
  await confirm();
  await page.waitForSelector('#exp-head .phase-Stopped', { timeout: 10000 });
});

test('creating from YAML: an invalid spec shows its field paths, a valid one opens', async () => {
  await open('#/new');
  const bad = `name: bad-one
objective: {type: minimize, objectiveMetricName: loss}
algorithm: {algorithmName: random}
maxTrialCount: 5
parameters:
  - {name: x, parameterType: double, feasibleSpace: {min: "5", max: "3"}}
`;
  await page.fill('#spec-text', bad);
  await page.click('#create-submit');
  await page.waitForSelector('#create-errors .field-path');
  const paths = await page.$$eval('#create-errors .field-path', (els) => els.map((e) => e.textContent));
  assert.ok(paths.some((p) => p.startsWith('parameters[0]')), `field paths shown: ${paths}`);
  await shot('create-invalid');
  await assert.rejects(api.experiment('bad-one'), /404/);

  await page.fill('#spec-text', bad.replace('bad-one', 'from-yaml').replace('min: "5", max: "3"', 'min: "-1", max: "3"'));
  await page.click('#create-submit');
  await page.waitForURL(/#\/experiments\/from-yaml$/);
  await page.waitForSelector('#app[data-loaded="1"] #exp-head h1');
  assert.equal((await api.experiment('from-yaml')).spec.maxTrialCount, 5);
});

test('an experiment is deleted after confirmation', async () => {
  await open('#/experiments/from-yaml');
  await page.click('#delete-experiment');
  await page.click('dialog.modal [data-act=cancel]');
  assert.equal((await api.experiment('from-yaml')).name, 'from-yaml');
  await page.click('#delete-experiment');
  await confirm();
  await page.waitForSelector('#experiments tr[data-name="quick"]');
  assert.equal(await page.$('#experiments tr[data-name="from-yaml"]'), null);
  await assert.rejects(api.experiment('from-yaml'), /404/);
});

test('early-stopped trials are drawn cut short', async () => {
  const spec = shellSpec('stopped-early', { trials: 10, parallel: 2, steps: 15, sleep: 0.1, flat: true });
  spec.earlyStopping = {
    algorithmName: 'medianstop',
    algorithmSettings: [{ name: 'min_trials_required', value: '2' }, { name: 'start_step', value: '3' }],
  };
  await api.create(spec);
  await waitFor('stopped-early to finish', async () => ['Succeeded', 'Failed'].includes((await api.experiment('stopped-early')).status.phase), 120000, 500);
  const stopped = (await api.trials('stopped-early')).filter((x) => x.phase === 'EarlyStopped').map((x) => x.name);
  // random_state 3 and flat curves: the median rule stops 2 of the 10.
  assert.ok(stopped.length > 0, 'the server stopped no trial early, so there is no cut curve to check');
  await open('#/experiments/stopped-early');
  await page.waitForSelector('#chart-curves[data-loading="0"][data-curves="10"]', { timeout: 20000 });
  const cut = await page.evaluate(async () => {
    const { chartOf } = await import('./chart_host.js');
    const series = chartOf(document.querySelector('#chart-curves')).getOption().series;
    return series.find((x) => x.type === 'scatter' && x.name === 'early-stopped').data.map((d) => d.name);
  });
  assert.deepEqual(cut.sort(), stopped.sort());
  console.log(`# ${stopped.length} of 10 trials early-stopped, each drawn with a cut marker`);
  await shot('experiment-early-stopped');
});

test('1,000 trials render within the budget', async () => {
  const name = 'thousand';
  await api.create({
    name, objective: { type: 'minimize', objectiveMetricName: 'loss', additionalMetricNames: ['acc'] },
    algorithm: { algorithmName: 'random', algorithmSettings: [{ name: 'random_state', value: '5' }] },
    parallelTrialCount: 1000, maxTrialCount: 1000, parameters: PARAMS,
  });
  const trials = await api.suggest(name, 1000);
  assert.equal(trials.length, 1000);
  const steps = 10;
  const jobs = trials.map((t) => async () => {
    const v = (k) => Number(t.parameterAssignments.find((a) => a.name === k).value);
    const final = (v('x') - 2) ** 2 / steps + Math.log10(v('lr')) ** 2 / 10;
    const observations = Array.from({ length: steps }, (_, i) => ({
      step: i + 1, metrics: { loss: final * steps / (i + 1), acc: 1 / (1 + final) },
    }));
    await api.observe(name, t.name, observations);
    await api.complete(name, t.name, { loss: final, acc: 1 / (1 + final) });
  });
  const t0 = Date.now();
  await Promise.all(Array.from({ length: 8 }, async () => { while (jobs.length) await jobs.shift()(); }));
  console.log(`# fed 1,000 client-run trials in ${Date.now() - t0} ms`);
  const perTrial = (await api.observations(name, trials[0].name)).length;

  // Hold the first paint until the data has arrived, then time it: wall
  // clock (as the page records it) and the main thread's CPU time (Chrome's
  // TaskDuration in thread ticks), which does not grow when other work
  // shares the machine.
  const cdp = await browser.newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  const cpu = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration').value;
  await open('#/');
  await page.evaluate(() => { window.hptRenderGate = new Promise((r) => { window.hptOpenGate = r; }); });
  await page.evaluate((h) => { location.hash = h; }, `#/experiments/${name}`);
  await page.waitForSelector('#app[data-data-arrived="1"]', { timeout: 20000 });
  const cpu0 = await cpu();
  await page.evaluate(() => window.hptOpenGate());
  await page.waitForSelector('#app[data-render-ms][data-trials="1000"]', { timeout: 15000 });
  const cpuMs = Math.round((await cpu() - cpu0) * 1000);
  const renderMs = Number(await attr('#app', 'renderMs'));
  console.log(`# 1,000 trials: first paint ${renderMs} ms wall, ${cpuMs} ms main-thread CPU after the data arrived; steps ${await attr('#app', 'steps')}`);
  assert.ok(cpuMs < Number(args['max-render-ms']), `render took ${cpuMs} ms of CPU`);
  await expectPoints('#chart-history', 1000);
  await expectPoints('#chart-parallel', 1000);
  await expectPoints('#chart-slices', 1000 * PARAMS.length);
  // The table sorts and filters all 1,000 and shows them 100 at a time.
  assert.equal(await attr('#trial-table', 'shown'), '1000');
  assert.equal(await page.$$eval('#trials tbody tr[data-trial]', (r) => r.length), 100);
  await page.click('#page-next');
  assert.equal(await page.textContent('#page-range'), '101–200 of 1000');
  assert.equal(await page.$eval('#trials tbody tr', (r) => r.dataset.trial), `${name}-101`);
  // Curves are bounded: 200 by default, fetched six at a time.
  await page.waitForSelector('#chart-curves[data-loading="0"][data-curves="200"]', { timeout: 20000 });
  await expectPoints('#chart-curves', 200 * perTrial);
  console.log(`# 200 curves drawn in ${await attr('#chart-curves', 'curvesMs')} ms`);
  await shot('experiment-1000');
  const allStart = Date.now();
  await page.click('#curve-all');
  await page.waitForSelector('#chart-curves[data-loading="0"][data-curves="1000"]', { timeout: 60000 });
  await expectPoints('#chart-curves', 1000 * perTrial);
  console.log(`# all 1,000 curves fetched and drawn in ${Date.now() - allStart} ms (last draw ${await attr('#chart-curves', 'curvesMs')} ms)`);
  // The page still answers: sorting the table is quick.
  const sortStart = Date.now();
  await page.click('#trials th[data-key="objective"]');
  await page.waitForFunction(() => document.querySelector('#trials th[data-key="objective"]').textContent.includes('▲'));
  console.log(`# sorting 1,000 trials took ${Date.now() - sortStart} ms`);
  const best = (await api.experiment(name)).status.currentOptimalTrial.name;
  assert.equal(await page.$eval('#trials tbody tr', (r) => r.dataset.trial), best);
});

test('a server with a token asks for it once and keeps it in the session', async () => {
  const tokenFile = path.join(work, 'token');
  fs.writeFileSync(tokenFile, 's3cret-token\n');
  const guarded = await startServer(args.hpt, {
    db: path.join(work, 'guarded.db'), uiDir: args['ui-dir'], tokenFile, cwd: work,
  });
  try {
    await client(guarded.url, 's3cret-token').create(shellSpec('guarded', { trials: 1, parallel: 1, steps: 1, sleep: 0 }));
    const tokenPage = await browser.newPage();
    await tokenPage.goto(`${guarded.url}/`);
    await tokenPage.waitForSelector('dialog.modal input[type=password]');
    await tokenPage.screenshot({ path: path.join(out, 'token.png') });
    await tokenPage.fill('dialog.modal input', 's3cret-token');
    await tokenPage.click('dialog.modal button[type=submit]');
    await tokenPage.waitForSelector('#experiments tr[data-name="guarded"]');
    assert.equal(await tokenPage.evaluate(() => sessionStorage.getItem('hpt.token')), 's3cret-token');
    await tokenPage.reload();
    await tokenPage.waitForSelector('#experiments tr[data-name="guarded"]');
    assert.equal(await tokenPage.$('dialog.modal'), null);
    await tokenPage.close();
  } finally {
    await guarded.stop();
  }
});

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// #14, problem 2: `hpt run` starts its own server and prints a dashboard
// link; opened as printed, it shows the running experiment (the link's
// token is taken in, and out of the address bar), with no token prompt.
test('the dashboard link `hpt run` prints opens its experiment', async () => {
  const port = await freePort();
  const specFile = path.join(work, 'linked.json');
  fs.writeFileSync(specFile, JSON.stringify(shellSpec('linked', { trials: 3, parallel: 1, steps: 3, sleep: 0.4 })));
  const env = {
    ...process.env, HPT_SERVER: `http://127.0.0.1:${port}`, HPT_UI_DIR: args['ui-dir'],
    XDG_RUNTIME_DIR: path.join(work, 'runtime'),
  };
  delete env.HPT_TOKEN;
  const run = spawn(path.resolve(args.hpt), ['run', '--db', path.join(work, 'linked.db'), specFile],
    { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  run.stdout.setEncoding('utf8');
  run.stdout.on('data', (d) => { output += d; });
  run.stderr.setEncoding('utf8');
  run.stderr.on('data', (d) => { output += d; });
  const exited = new Promise((resolve) => run.on('exit', resolve));
  try {
    await waitFor('the dashboard link', () => /dashboard: (\S+)/.test(output), 20000);
    const link = /dashboard: (\S+)/.exec(output)[1];
    assert.match(link, new RegExp(`^http://127\\.0\\.0\\.1:${port}/#/experiments/linked\\?token=[0-9a-f]{32}$`));
    const linked = await browser.newPage();
    await linked.goto(link);
    await linked.waitForSelector('#trials tbody tr[data-trial]', { timeout: 15000 });
    assert.equal(await linked.$('dialog.modal'), null, 'no token prompt');
    assert.equal(await linked.evaluate(() => location.hash), '#/experiments/linked');
    assert.equal(await linked.evaluate(() => sessionStorage.getItem('hpt.token')), link.split('token=')[1]);
    await linked.screenshot({ path: path.join(out, 'run-link.png') });
    await linked.close();
    assert.equal(await exited, 0, output);
  } finally {
    if (run.exitCode === null) run.kill('SIGKILL');
  }
});

test('a malformed escape in the address is an error on the page, not "Loading…" for ever', async () => {
  await page.evaluate((h) => { location.hash = h; }, '#/experiments/%E0%A4%A');
  await page.waitForSelector('#app .error-box');
  assert.match(await page.textContent('#app .error-box'), /URI/);
});

test('no script errors on any page', () => {
  assert.deepEqual(pageErrors, []);
});
