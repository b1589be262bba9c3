// Browser tests of #33: an experiment whose trials print `val_loss` while
// the objective is `loss` shows a warning banner with the name they
// printed ("did you mean 'val_loss'?") as soon as the first such trial
// ends, and one without such trials none; user attributes (Optuna's
// set_user_attr) show on the trial and experiment pages, as text. The real
// `hpt serve` on port 0 running real trial processes, Debian's headless
// Chromium.
//
//   node tests/ui/warnings_attrs.mjs --hpt build/cli/hpt --out build/tests/ui-out \
//     [--ui-dir ui/dist] [--chromium /usr/bin/chromium]
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import {
  browserTestArgs, client, launchBrowser, preflight, startServer, tempDir, waitFor,
} from './harness.mjs';

const args = browserTestArgs(process.argv.slice(2));
// A payload that marks window.__xss if it ever runs.
const PAYLOAD = '<img src=x onerror="window.__xss=1">';

let server;
let api;
let browser;
let page;
const pageErrors = [];
const work = tempDir('hpt-ui-mu-');

function spec(name, script, extra = {}) {
  return {
    name,
    objective: { type: 'minimize', objectiveMetricName: 'loss' },
    algorithm: { algorithmName: 'random', algorithmSettings: [{ name: 'random_state', value: '1' }] },
    parallelTrialCount: 1, maxTrialCount: 3, maxFailedTrialCount: 3,
    parameters: [{ name: 'x', parameterType: 'double', feasibleSpace: { min: '0', max: '1' } }],
    trialTemplate: {
      command: ['sh', '-c', script],
      trialParameters: [{ name: 'x', reference: 'x' }],
      env: { X: '${trialParameters.x}' },
      workingDir: work,
    },
    ...extra,
  };
}

async function open(hash, ready = '#app[data-loaded="1"]') {
  await page.goto('about:blank');
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector(ready, { timeout: 15000 });
}

before(async () => {
  const problems = preflight({ hpt: args.hpt, chromium: args.chromium, uiDir: args['ui-dir'] });
  if (problems.length) throw new Error(`cannot run the browser tests:\n  ${problems.join('\n  ')}`);
  server = await startServer(args.hpt, { db: path.join(work, 'hpt.db'), uiDir: args['ui-dir'], cwd: work });
  api = client(server.url);
  // The first trial ends at once; the others wait, so the page sees the
  // experiment still running.
  await api.create(spec('mu', 'if [ -e started ]; then sleep 30; fi; touch started; echo "val_loss=$X"'));
  await api.create(spec('fine', 'echo "loss=$X"', { maxTrialCount: 1 }));
  const attrs = { ...spec('attrs', ''), trialTemplate: undefined, maxTrialCount: 2, parallelTrialCount: 2 };
  await api.create(attrs);
  browser = await launchBrowser(args.chromium, path.join(work, 'profile'));
  page = browser.pages()[0] || await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(`page error: ${e.message}`));
  page.on('response', (r) => r.status() >= 400 && pageErrors.push(`${r.status()} ${r.url()}`));
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

test('the first trial without the objective metric puts a banner on the experiment page', async () => {
  const x = await waitFor('a MetricsUnavailable trial', async () => {
    const e = await api.experiment('mu');
    return e.status.trials.metricsUnavailable > 0 && e;
  });
  assert.equal(x.status.phase, 'Running', 'said while it runs, not at its end');
  assert.equal(x.status.warnings.length, 1);
  await open('#/experiments/mu', '.exp-warning');
  const banner = page.locator('.exp-warning');
  assert.equal(await banner.count(), 1);
  const text = await banner.textContent();
  assert.match(text, /1 trial did not report the objective metric 'loss': mu-1 reported none; other names with a number: val_loss; did you mean 'val_loss'\?/);
  assert.match(text, /maxFailedTrialCount \(3\)/);
  assert.equal(await banner.getAttribute('data-reason'), 'MetricsUnavailable');
  assert.equal(await page.getAttribute('.exp-warning a', 'href'), '#/experiments/mu/trials/mu-1');
  await banner.screenshot({ path: path.join(args.out, 'metrics-warning.png') });
  await api.call('POST', '/api/v1/experiments/mu:stop');
});

test('an experiment whose trials report the objective has no banner', async () => {
  await waitFor('fine to end', async () => (await api.experiment('fine')).status.phase === 'Succeeded');
  await open('#/experiments/fine', '#best-objective');
  assert.equal(await page.locator('.exp-warning').count(), 0);
  assert.deepEqual(pageErrors, []);
});

test('user attributes show on the trial and experiment pages, as text', async () => {
  const [t] = await api.suggest('attrs', 1);
  await api.call('PATCH', `/api/v1/experiments/attrs/trials/${t.name}`, { userAttrs: { fold: 3, [PAYLOAD]: PAYLOAD, nested: { a: [1, null] } } });
  await api.call('PATCH', '/api/v1/experiments/attrs', { userAttrs: { dataset: PAYLOAD } });
  await open(`#/experiments/attrs/trials/${t.name}`, '#user-attrs');
  assert.equal(await page.isVisible('#trial-attrs-card'), true);
  const rows = await page.$$eval('#user-attrs tr', (tr) => tr.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.deepEqual(rows.sort(), [[PAYLOAD, PAYLOAD], ['fold', '3'], ['nested', '{"a":[1,null]}']].sort());
  await page.locator('#trial-attrs-card').screenshot({ path: path.join(args.out, 'user-attrs.png') });
  await open('#/experiments/attrs', '#exp-user-attrs');
  assert.equal(await page.textContent('#exp-user-attrs'), `dataset=${PAYLOAD}`);
  const found = await page.evaluate(() => ({ xss: window.__xss, img: document.querySelectorAll('img').length }));
  assert.deepEqual(found, { xss: undefined, img: 0 });
  // A trial without attributes has no such card.
  const [other] = await api.suggest('attrs', 1);
  await open(`#/experiments/attrs/trials/${other.name}`);
  assert.equal(await page.isVisible('#trial-attrs-card'), false);
  assert.deepEqual(pageErrors, []);
});
