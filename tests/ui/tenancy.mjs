// The dashboard on a server shared by a team (issue #32): the real `hpt
// serve` with a token, namespaces and users made through the REST API, and
// Debian's headless Chromium signing in with the users' API keys. A member
// sees her namespaces only and can create and stop; a viewer gets no
// actions and working pages; switching namespaces changes the list and
// the address; quota use is shown; a revoked key goes back to the prompt
// with a message; Sign out forgets the key.
//
//   node tests/ui/tenancy.mjs --hpt build/cli/hpt [--out build/tests/ui-out]
//     [--ui-dir ui/dist] [--chromium /usr/bin/chromium]
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import {
  browserTestArgs, client, launchBrowser, preflight, startServer, tempDir,
} from './harness.mjs';

const args = browserTestArgs(process.argv.slice(2));

const TOKEN = 'admin-s3cret';
const work = tempDir('hpt-ui-tenancy-');
let server;
let admin;
let browser;
const keys = {};
const pageErrors = [];

// Trials that print a step every 0.2 s for two minutes: they are Running
// while the tests look at them, and the server kills them at the end.
function spec(name, { trials = 2, parallel = 2, steps = 600 } = {}) {
  return {
    name,
    objective: { type: 'minimize', objectiveMetricName: 'loss' },
    algorithm: { algorithmName: 'random', algorithmSettings: [{ name: 'random_state', value: '1' }] },
    parallelTrialCount: parallel,
    maxTrialCount: trials,
    parameters: [{ name: 'x', parameterType: 'double', feasibleSpace: { min: '0', max: '1' } }],
    trialTemplate: {
      command: ['sh', '-c', `for i in $(seq 1 ${steps}); do echo "step=$i loss=\${trialParameters.x}"; sleep 0.2; done`],
      trialParameters: [{ name: 'x', reference: 'x' }],
    },
  };
}

const inNs = (ns, rest = '') => `/api/v1/namespaces/${ns}/experiments${rest}`;

// A new tab (its own sessionStorage: signed out) whose errors are kept.
async function newTab() {
  const page = await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && !/Failed to load resource/.test(m.text()) &&
    pageErrors.push(`console: ${m.text()}`));
  return page;
}

async function signIn(page, key) {
  await page.waitForSelector('dialog.modal input[type=password]');
  await page.fill('dialog.modal input', key);
  await page.click('dialog.modal button[type=submit]');
  await page.waitForSelector('dialog.modal', { state: 'detached' });
}

async function loaded(page) {
  await page.waitForSelector('#app[data-loaded="1"]', { timeout: 15000 });
}

const texts = (page, sel) => page.$$eval(sel, (els) => els.map((e) => e.textContent.trim()));
const values = (page, sel) => page.$$eval(sel, (els) => els.map((e) => e.value));
const listed = (page) => page.$$eval('#experiments tbody tr[data-name]', (rs) => rs.map((r) => r.dataset.name).sort());

async function confirm(page) {
  await page.click('dialog.modal button[type=submit]');
  await page.waitForSelector('dialog.modal', { state: 'detached' });
}

before(async () => {
  const problems = preflight({ hpt: args.hpt, chromium: args.chromium, uiDir: args['ui-dir'] });
  if (problems.length) throw new Error(`cannot run the tenancy browser test:\n  ${problems.join('\n  ')}`);
  const tokenFile = path.join(work, 'token');
  fs.writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  server = await startServer(args.hpt, { db: path.join(work, 'hpt.db'), uiDir: args['ui-dir'], tokenFile, cwd: work });
  admin = client(server.url, TOKEN);
  await admin.call('POST', '/api/v1/namespaces', { name: 'team-a', quota: { experiments: 3, runningTrials: 4 } });
  await admin.call('POST', '/api/v1/namespaces', { name: 'team-b' });
  for (const [name, roles] of [
    ['ann', { 'team-a': 'member', 'team-b': 'viewer' }],
    ['vic', { 'team-a': 'viewer' }],
    ['tmp', { 'team-b': 'member' }],
  ]) {
    const user = await admin.call('POST', '/api/v1/users', { name, roles });
    assert.match(user.apiKey, /^hpt_[0-9a-f]{64}$/);
    keys[name] = user.apiKey;
  }
  await admin.create(spec('in-default', { trials: 1, parallel: 1, steps: 1 }));
  await admin.call('POST', inNs('team-a'), spec('a-first'));
  await admin.call('POST', inNs('team-b'), spec('b-only', { trials: 1, parallel: 1, steps: 1 }));
  browser = await launchBrowser(args.chromium, path.join(work, 'profile'));
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

test('a member signs in with her key, sees only her namespaces, and creates and stops', async () => {
  const page = await newTab();
  await page.goto(`${server.url}/`);
  await signIn(page, keys.ann);
  // `default` is not hers: the bare address opens her first namespace.
  await page.waitForURL(/#\/namespaces\/team-a$/);
  await loaded(page);
  assert.equal(await page.textContent('#whoami'), 'ann');
  assert.deepEqual(await values(page, '#ns-switch option'), ['team-a', 'team-b']);
  assert.equal(await page.textContent('#ns-role'), 'member');
  await page.waitForSelector('#experiments tr[data-name="a-first"]');
  assert.deepEqual(await listed(page), ['a-first']);
  assert.equal(await page.textContent('#quota [data-quota="experiments"] .quota-use'), '1 / 3');
  assert.match(await page.textContent('#quota [data-quota="runningTrials"] .quota-use'), / \/ 4$/);
  assert.equal(await page.$('#quota [data-quota="none"]'), null);

  await page.click('#new-experiment');
  await page.waitForURL(/#\/namespaces\/team-a\/new$/);
  assert.equal(await page.textContent('#create-namespace'), 'team-a');
  await page.fill('#spec-text', JSON.stringify(spec('a-made')));
  await page.click('#create-submit');
  await page.waitForURL(/#\/namespaces\/team-a\/experiments\/a-made$/);
  await page.waitForSelector('#app[data-loaded="1"] #exp-head h1');
  assert.equal((await admin.call('GET', inNs('team-a', '/a-made'))).namespace, 'team-a');
  await assert.rejects(admin.experiment('a-made'), /404/, 'made in team-a, not in default');

  // Stop one of its trials from the table, then the experiment.
  const row = await page.waitForSelector('#trials tr[data-phase="Running"]', { timeout: 20000 });
  const trial = await row.getAttribute('data-trial');
  await page.click(`#trials tr[data-trial="${trial}"] button[data-stop]`);
  await confirm(page);
  await page.waitForSelector(`#trials tr[data-trial="${trial}"][data-phase="Killed"]`, { timeout: 10000 });
  await page.click('#stop-experiment');
  await confirm(page);
  await page.waitForSelector('#exp-head .phase-Stopped', { timeout: 10000 });
  assert.equal((await admin.call('GET', inNs('team-a', '/a-made'))).status.phase, 'Stopped');

  // The breadcrumb goes back to team-a's list, now with two experiments.
  await page.click('#exp-head h1 a');
  await page.waitForURL(/#\/namespaces\/team-a$/);
  await page.waitForSelector('#experiments tr[data-name="a-made"]');
  await page.waitForFunction(() => document.querySelector('#quota [data-quota="experiments"] .quota-use')?.textContent === '2 / 3');
  await page.screenshot({ path: path.join(args.out, 'tenancy-member.png'), fullPage: true });

  // Switching: team-b's list, no quota, and ann is a viewer there.
  await page.selectOption('#ns-switch', 'team-b');
  await page.waitForURL(/#\/namespaces\/team-b$/);
  await page.waitForSelector('#experiments tr[data-name="b-only"]');
  assert.deepEqual(await listed(page), ['b-only']);
  assert.equal(await page.textContent('#quota [data-quota="none"]'), 'no quota');
  assert.equal(await page.textContent('#quota [data-quota="experiments"] .quota-use'), '1');
  assert.equal(await page.textContent('#ns-role'), 'viewer');
  assert.equal(await page.$('#new-experiment'), null);
  assert.ok(await page.$eval('#nav-new', (a) => a.hidden));
  // The address keeps the namespace: a reload shows team-b, signed in still.
  await page.reload();
  await page.waitForSelector('#experiments tr[data-name="b-only"]');
  assert.equal(await page.$('dialog.modal'), null);
  assert.equal(await page.$eval('#ns-switch', (s) => s.value), 'team-b');
  await page.click('#experiments tr[data-name="b-only"] a');
  await page.waitForURL(/#\/namespaces\/team-b\/experiments\/b-only$/);
  await page.waitForSelector('#app[data-loaded="1"] #exp-summary dl');
  assert.equal(await page.$('#delete-experiment'), null);
  await page.close();
});

test('a viewer gets no actions, and the pages work', async () => {
  const page = await newTab();
  await page.goto(`${server.url}/#/namespaces/team-a/experiments/a-first`);
  await signIn(page, keys.vic);
  await page.waitForSelector('#app[data-loaded="1"] #exp-summary dl');
  assert.equal(await page.textContent('#whoami'), 'vic');
  assert.deepEqual(await values(page, '#ns-switch option'), ['team-a']);
  assert.equal(await page.textContent('#ns-role'), 'viewer');
  await page.waitForSelector('#chart-history canvas');
  const running = await page.waitForSelector('#trials tr[data-phase="Running"]', { timeout: 20000 });
  const trial = await running.getAttribute('data-trial');
  assert.equal(await page.$('#stop-experiment'), null);
  assert.equal(await page.$('#delete-experiment'), null);
  assert.equal(await page.$('#trials button[data-stop]'), null);
  await page.screenshot({ path: path.join(args.out, 'tenancy-viewer.png'), fullPage: true });
  // What the page leaves out, the server refuses.
  await assert.rejects(client(server.url, keys.vic).call('POST', inNs('team-a', '/a-first:stop')), /403/);

  await page.click(`#trials tr[data-trial="${trial}"] a`);
  await page.waitForSelector('#app[data-loaded="1"][data-phase="Running"]');
  await page.waitForFunction(() => /step=\d+/.test(document.querySelector('#trial-log').textContent));
  assert.equal(await page.$('#stop-trial'), null);

  await page.click('#nav-list');
  await page.waitForURL(/#\/namespaces\/team-a$/);
  await page.waitForSelector('#experiments tr[data-name="a-first"]');
  assert.equal(await page.$('#new-experiment'), null);
  assert.ok(await page.$eval('#nav-new', (a) => a.hidden));
  await page.evaluate(() => { location.hash = '#/namespaces/team-a/new'; });
  await page.waitForSelector('#read-only');
  assert.equal(await page.$('#create-form'), null);
  // Not hers: as if absent, and said so on the page.
  await page.evaluate(() => { location.hash = '#/namespaces/team-b'; });
  await page.waitForSelector('#no-namespace');
  await page.close();
});

test('a revoked key goes back to the prompt with a message; another key rebuilds the page', async () => {
  const page = await newTab();
  await page.goto(`${server.url}/#/namespaces/team-b`);
  await signIn(page, keys.tmp);
  await page.waitForSelector('#experiments tr[data-name="b-only"]');
  assert.equal(await page.textContent('#ns-role'), 'member');
  await admin.call('DELETE', '/api/v1/users/tmp');
  // The list asks again within 2 s and is refused.
  await page.waitForSelector('dialog.modal #token-refused', { timeout: 10000 });
  assert.match(await page.textContent('#token-refused'), /refused .*revoked/s);
  await page.screenshot({ path: path.join(args.out, 'tenancy-revoked.png') });
  await page.fill('dialog.modal input', keys.ann);
  await page.click('dialog.modal button[type=submit]');
  await page.waitForFunction(() => document.querySelector('#whoami')?.textContent === 'ann');
  await page.waitForSelector('#experiments tr[data-name="b-only"]');
  assert.equal(await page.textContent('#ns-role'), 'viewer');
  assert.equal(await page.$('#new-experiment'), null);

  // Sign out: the key is forgotten and the prompt asks, without blame.
  await page.click('#sign-out');
  await page.waitForSelector('dialog.modal input[type=password]');
  assert.equal(await page.$('dialog.modal #token-refused'), null);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('hpt.token')), null);
  await page.click('dialog.modal [data-act=cancel]');
  await page.waitForSelector('#sign-in');
  await page.click('#sign-in');
  await signIn(page, keys.ann);
  await page.waitForSelector('#experiments tr[data-name="b-only"]');
  await page.close();
});

test('the admin sees every namespace, each with its quota use', async () => {
  const page = await newTab();
  await page.goto(`${server.url}/`);
  await signIn(page, TOKEN);
  await page.waitForSelector('#experiments tr[data-name="in-default"]');
  assert.equal(await page.evaluate(() => location.hash), '');
  assert.equal(await page.textContent('#ns-role'), 'admin');
  assert.deepEqual(await values(page, '#ns-switch option'), ['default', 'team-a', 'team-b']);
  await page.click('#nav-namespaces');
  await page.waitForSelector('#app[data-loaded="1"] #namespaces');
  assert.deepEqual(await page.$$eval('#namespaces tr[data-namespace]', (r) => r.map((x) => x.dataset.namespace)),
    ['default', 'team-a', 'team-b']);
  const use = (ns, key) => page.textContent(`#namespaces tr[data-namespace="${ns}"] [data-quota="${key}"]`);
  assert.match(await use('team-a', 'experiments'), /experiments\s+2 \/ 3/);
  assert.match(await use('team-b', 'none'), /no quota/);
  assert.deepEqual(await texts(page, '#namespaces tr[data-namespace] td:nth-child(2)'), ['admin', 'admin', 'admin']);
  await page.screenshot({ path: path.join(args.out, 'tenancy-namespaces.png'), fullPage: true });
  await page.click('#namespaces tr[data-namespace="team-a"] a');
  await page.waitForURL(/#\/namespaces\/team-a$/);
  await page.waitForSelector('#experiments tr[data-name="a-made"]');
  assert.ok(await page.$('#new-experiment'));
  await page.close();
});

test('no script errors on any page', () => {
  assert.deepEqual(pageErrors, []);
});
