// Stored and reflected XSS (issue #10): every string a person can put
// through the REST API (or into the dashboard's URL) that the dashboard
// shows carries script payloads. The test visits every page (the compare
// page, importance, two-parameter plot and Why column too), shows the
// tooltip of every point of every chart, and checks that no payload ran
// (window.__xss stays undefined, no alert), that none became markup (no
// event-handler attribute, <img>, <svg>, <script>, <iframe> in the DOM, no
// javascript: link) and that the payloads are shown as text. A location the
// API refuses with 400 passes too: the server's validation defends it.
//
//   node tests/ui/xss.mjs --hpt build/cli/hpt [--ui-dir ui/dist] [--chromium /usr/bin/chromium]
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import {
  client, launchBrowser, parseArgs, preflight, repoRoot, startServer, tempDir, waitFor,
} from './harness.mjs';

const args = parseArgs(process.argv.slice(2), {
  hpt: path.join(repoRoot, 'build/cli/hpt'),
  'ui-dir': path.join(repoRoot, 'ui/dist'),
  chromium: '/usr/bin/chromium',
});
for (const k of ['hpt', 'ui-dir', 'chromium']) args[k] = path.resolve(args[k]);

// Each payload, when it runs, appends its location's tag to window.__xss
// (or opens an alert), so a failure names where the hole is.
const mark = (tag) => `window.__xss=(window.__xss||[]).concat('${tag}')`;
const variants = (tag) => [
  `<img src=x onerror="${mark(tag)}">`,
  `"><svg onload="${mark(tag)}">`,
  `'><img src=x onerror=${mark(tag)}>`,
  `</script><script>${mark(tag)}</script>`,
  `<details open ontoggle=alert('${tag}')>`,
  `javascript:${mark(tag)}`,
];
// All variants in one string, for locations that hold a single string.
const P = (tag) => `${variants(tag).join(' ')} {a}{b}{c}`;

// Where a payload can go. `kind` says which experiment carries it: a
// client-run one (ask/tell), a runner one that runs to success, or one
// whose trials are expected to fail to start.
const LOCATIONS = [
  { where: 'name', kind: 'alone', apply: (s) => { s.name = P('name'); } },
  { where: 'objective.objectiveMetricName', kind: 'client', apply: (s) => { s.objective.objectiveMetricName = P('objective'); } },
  { where: 'objective.additionalMetricNames', kind: 'client', apply: (s) => { s.objective.additionalMetricNames = [P('additional')]; } },
  { where: 'objective.goal', kind: 'client', apply: (s) => { s.objective.goal = P('goal'); } },
  { where: 'objective.metricStrategies', kind: 'client', apply: (s) => { s.objective.metricStrategies = [{ name: s.objective.objectiveMetricName, value: P('strategy') }]; } },
  { where: 'parameters[].name', kind: 'client', apply: (s) => { s.parameters[0].name = P('param'); } },
  { where: 'parameters[].feasibleSpace.list', kind: 'client', apply: (s) => { s.parameters[0].feasibleSpace.list.push(...variants('category')); } },
  { where: 'algorithm.algorithmSettings[].value', kind: 'client', apply: (s) => { s.algorithm = { algorithmName: 'random', algorithmSettings: [{ name: 'random_state', value: P('setting') }] }; } },
  { where: 'algorithm.algorithmSettings[].name', kind: 'client', apply: (s) => { s.algorithm = { algorithmName: 'random', algorithmSettings: [{ name: P('setting-name'), value: '1' }] }; } },
  { where: 'earlyStopping.algorithmSettings[].value', kind: 'client', apply: (s) => { s.earlyStopping = { algorithmName: 'medianstop', algorithmSettings: [{ name: 'start_step', value: P('es-setting') }] }; } },
  { where: 'metricsCollectorSpec.stepKey', kind: 'client', apply: (s) => { s.metricsCollectorSpec = { ...s.metricsCollectorSpec, stepKey: P('stepkey') }; } },
  { where: 'metricsCollectorSpec.source.filter.metricsFormat', kind: 'client', apply: (s) => { s.metricsCollectorSpec = { ...s.metricsCollectorSpec, source: { filter: { metricsFormat: [`([\\w|-]+)=([0-9.]+)(?:${P('format').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})?`] } } }; } },
  { where: 'trialTemplate.command', kind: 'runner', apply: (s) => { s.trialTemplate.command.push(P('command')); } },
  { where: 'trialTemplate.env value', kind: 'runner', apply: (s) => { s.trialTemplate.env = { XSS: P('env') }; } },
  { where: 'trialTemplate.trialParameters[].description', kind: 'runner', apply: (s) => { s.trialTemplate.trialParameters[0].description = P('description'); } },
  { where: 'trialTemplate.env name', kind: 'odd', apply: (s) => { s.trialTemplate.env = { [P('env-name')]: '1' }; } },
  { where: 'trialTemplate.workingDir', kind: 'odd', apply: (s) => { s.trialTemplate.workingDir = `/nonexistent/${P('workdir')}`; } },
];

function baseSpec(name, kind) {
  const spec = {
    name,
    objective: { type: 'minimize', objectiveMetricName: 'loss' },
    algorithm: { algorithmName: 'grid' },
    parallelTrialCount: 20,
    maxTrialCount: 20,
    maxFailedTrialCount: 20,
    parameters: [
      { name: 'opt', parameterType: 'categorical', feasibleSpace: { list: ['plain'] } },
      { name: 'n', parameterType: 'int', feasibleSpace: { min: '1', max: '2' } },
    ],
  };
  if (kind !== 'client' && kind !== 'alone') {
    // The log gets a payload too: the trial page shows its tail.
    spec.algorithm = { algorithmName: 'random', algorithmSettings: [{ name: 'random_state', value: '1' }] };
    spec.maxTrialCount = 2;
    spec.parallelTrialCount = 2;
    spec.maxFailedTrialCount = 2;
    // ... and a text output (as a DARTS genotype is), shown on the trial page.
    spec.objective.additionalMetricNames = ['note'];
    spec.trialTemplate = {
      command: ['sh', '-c', 'printf "%s\\n" "$1"; printf "note=%s\\n" "$2"; for i in 1 2 3; do echo "step=$i loss=$(( ${trialParameters.n} * 10 / $i ))"; done',
        'sh', P('log'), P('output')],
      trialParameters: [{ name: 'n', reference: 'n' }],
    };
  }
  return spec;
}

let server;
let api;
let browser;
let page;
const work = tempDir('hpt-ui-xss-');
const results = [];           // { where, status }
const experiments = {};       // kind -> created experiment name
const dialogs = [];
const pageErrors = [];

async function tryCall(fn) {
  try {
    await fn();
    return 201;
  } catch (e) {
    if (e.status === undefined) throw e;
    return e.status;
  }
}

// Tries the location alone: 400 is a refusal, anything else must be a success.
async function probe(loc, i) {
  const name = `xss-probe-${i}`;
  const spec = baseSpec(name, loc.kind);
  loc.apply(spec);
  let message = '';
  const status = await tryCall(() => api.create(spec).catch((e) => {
    message = e.message;
    throw e;
  }));
  results.push({ where: loc.where, status, message });
  if (status === 201 && loc.kind !== 'alone') await api.call('DELETE', `/api/v1/experiments/${name}`);
  return status === 201;
}

// Feeds the client-run experiment: three observations per trial, one
// trial left running, one completed infeasible with a payload reason, and
// payload metric names where the API takes them.
async function feedClient(name) {
  const spec = (await api.experiment(name)).spec;
  const metrics = [spec.objective.objectiveMetricName, ...(spec.objective.additionalMetricNames || [])];
  const trials = await api.suggest(name, spec.maxTrialCount);
  assert.ok(trials.length >= 4, `grid suggested ${trials.length} trials`);
  const status = await tryCall(() => api.observe(name, trials[0].name, [{ step: 1, metrics: { [P('observation-metric')]: 1 } }]));
  results.push({ where: 'observations metric name', status });
  for (const [i, t] of trials.entries()) {
    const obs = [1, 2, 3].map((step) => ({ step, metrics: Object.fromEntries(metrics.map((m, k) => [m, (i + 1 + k) / step])) }));
    await api.observe(name, t.name, obs);
    if (i === 1) continue;  // stays Running
    if (i === 2) {
      const s = await tryCall(() => api.call('POST', `/api/v1/experiments/${name}/trials/${t.name}:complete`, { infeasible: true, reason: P('reason') }));
      results.push({ where: ':complete reason', status: s });
      if (s === 201) continue;
    }
    if (i === 3) {
      const s = await tryCall(() => api.complete(name, t.name, { [metrics[0]]: i / 3, [P('complete-metric')]: 1 }));
      results.push({ where: ':complete metric name', status: s });
      if (s === 201) continue;
    }
    await api.complete(name, t.name, { [metrics[0]]: (i + 1) / 3 });
  }
}

// Namespace and user names (the header's switcher and signed-in name, the
// namespaces page): the server takes DNS labels only, so a refusal is
// expected; an accepted one is visited like any other name.
const tenancy = {};
async function probeTenancy() {
  const ns = P('namespace');
  let message = '';
  let status = await tryCall(() => api.call('POST', '/api/v1/namespaces', { name: ns }).catch((e) => {
    message = e.message;
    throw e;
  }));
  results.push({ where: 'namespace name', status, message });
  if (status === 201) tenancy.namespace = ns;
  for (const [where, body] of [
    ['user name', { name: P('user'), roles: { default: 'viewer' } }],
    ['user roles namespace', { name: 'xss-user', roles: { [P('role-namespace')]: 'viewer' } }],
  ]) {
    message = '';
    status = await tryCall(() => api.call('POST', '/api/v1/users', body).catch((e) => {
      message = e.message;
      throw e;
    }));
    results.push({ where, status, message });
  }
}

// Fails when a payload ran or became markup anywhere in the page.
async function assertClean(where) {
  await page.waitForTimeout(250);  // an <img src=x> fails to load by then
  const found = await page.evaluate(() => {
    const bad = [];
    for (const el of document.querySelectorAll('*')) {
      for (const a of el.attributes) if (/^on/i.test(a.name)) bad.push(`<${el.localName} ${a.name}>`);
    }
    for (const el of document.querySelectorAll('img, svg, iframe, frame, object, embed, script')) {
      if (!(el.localName === 'script' && el.getAttribute('src') === 'app.js')) bad.push(`<${el.localName}> element`);
    }
    for (const el of document.body.querySelectorAll('[href], [src], [action], [formaction]')) {
      for (const attr of ['href', 'src', 'action', 'formaction']) {
        const v = el.getAttribute(attr);
        if (v === null) continue;
        const u = new URL(v, location.href);
        if (u.origin !== location.origin) bad.push(`<${el.localName} ${attr}="${v}">`);
      }
    }
    return { xss: window.__xss, csp: window.__csp, bad };
  });
  assert.equal(found.xss, undefined, `${where}: payloads ran: ${JSON.stringify(found.xss)}`);
  assert.deepEqual(dialogs, [], `${where}: a payload opened a dialog`);
  assert.deepEqual(found.bad, [], `${where}: payloads became markup`);
  assert.equal(found.csp, undefined, `${where}: the content security policy blocked: ${JSON.stringify(found.csp)}`);
}

// A fresh document each time (a new hash alone would keep the page, and
// with it what an earlier page's payloads did).
async function open(hash, ready = '#app[data-loaded="1"]') {
  await page.goto('about:blank');
  dialogs.length = 0;
  await page.goto(`${server.url}/${hash}`);
  await page.waitForSelector(ready, { timeout: 15000 });
}

// Shows the tooltip of every data item (at most `limit` per series) of the
// chart in `selector`, both through ECharts' showTip and with the mouse on
// the first item of each series; returns the tooltips' texts.
async function hoverAll(selector, limit = 40) {
  const targets = await page.evaluate(async ([sel, max]) => {
    const { chartOf } = await import('./chart_host.js');
    const el = document.querySelector(sel);
    const chart = chartOf(el);
    const texts = [];
    const points = [];
    chart.getOption().series.forEach((s, si) => {
      const data = s.data || [];
      for (let di = 0; di < Math.min(data.length, max); ++di) {
        chart.dispatchAction({ type: 'showTip', seriesIndex: si, dataIndex: di });
        texts.push(el.textContent);
      }
      const first = data[0];
      const value = first && (Array.isArray(first) ? first : first.value || (first.coords && first.coords[0]));
      if (value && s.type !== 'parallel') {
        try {
          const px = chart.convertToPixel({ seriesIndex: si }, value);
          if (px && px.every(Number.isFinite)) points.push(px);
        } catch { /* not every series maps values to pixels */ }
      }
    });
    chart.dispatchAction({ type: 'hideTip' });
    const r = el.getBoundingClientRect();
    return { texts, points: points.map(([x, y]) => [r.left + x, r.top + y]) };
  }, [selector, limit]);
  const texts = [...targets.texts];
  for (const [x, y] of targets.points) {
    await page.mouse.move(x, y);
    await page.waitForTimeout(30);
    texts.push(await page.$eval(selector, (el) => el.textContent));
  }
  await page.mouse.move(0, 0);
  return texts.join('\n');
}

before(async () => {
  const problems = preflight({ hpt: args.hpt, chromium: args.chromium, uiDir: args['ui-dir'] });
  if (problems.length) throw new Error(`cannot run the XSS test:\n  ${problems.join('\n  ')}`);
  server = await startServer(args.hpt, { db: path.join(work, 'hpt.db'), uiDir: args['ui-dir'], cwd: work });
  api = client(server.url);

  const accepted = { client: [], runner: [], odd: [] };
  for (const [i, loc] of LOCATIONS.entries()) {
    if (await probe(loc, i) && accepted[loc.kind]) accepted[loc.kind].push(loc);
  }
  for (const kind of ['client', 'runner', 'odd']) {
    if (kind === 'odd' && !accepted.odd.length) continue;
    const spec = baseSpec(`xss-${kind}`, kind);
    for (const loc of accepted[kind]) loc.apply(spec);
    await api.create(spec);
    experiments[kind] = spec.name;
  }
  await feedClient(experiments.client);
  await probeTenancy();
  for (const kind of ['runner', 'odd']) {
    if (!experiments[kind]) continue;
    await waitFor(`${experiments[kind]} to finish`, async () =>
      ['Succeeded', 'Failed'].includes((await api.experiment(experiments[kind])).status.phase), 60000, 300);
  }

  browser = await launchBrowser(args.chromium, path.join(work, 'profile'));
  page = browser.pages()[0] || await browser.newPage();
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__csp = (window.__csp || []).concat(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  page.on('pageerror', (e) => pageErrors.push(`page error: ${e.message}`));
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

test('every payload location is either refused with 400 or accepted', () => {
  for (const r of results) {
    console.log(`# ${r.where}: ${r.status === 400 ? 'refused (400)' : 'accepted, checked in the pages'}`);
    assert.ok(r.status === 400 || r.status === 201, `${r.where}: ${r.status}, not 201 or 400`);
    // A refusal must be about the payload, not a mistake in the rest of the spec.
    if (r.status === 400 && r.message) assert.match(r.message, /onerror|<img|'>|concat\(/, `${r.where} refused for another reason: ${r.message}`);
  }
});

test('the experiment list', async () => {
  await open('#/');
  await page.waitForSelector('#experiments tr[data-name="xss-client"]');
  await assertClean('list');
});

test('the experiment pages, with every chart tooltip', async () => {
  for (const name of Object.values(experiments)) {
    await open(`#/experiments/${name}`, '#app[data-loaded="1"] #exp-summary dl');
    await page.click('#spec-yaml summary');
    await page.waitForSelector('#chart-curves[data-loading="0"]', { timeout: 15000 });
    const tips = [];
    for (const chart of ['#chart-history', '#chart-parallel', '#chart-slices', '#chart-curves']) {
      tips.push(await hoverAll(chart));
    }
    // Importance bars and the two-parameter plot, for every pair with the
    // first parameter (a payload-named one in the client experiment).
    await page.waitForSelector('#chart-importance[data-loaded="1"]', { timeout: 15000 });
    tips.push(await hoverAll('#chart-importance'));
    const params = await page.$$eval('#contour-x option', (os) => os.map((o) => o.value));
    for (const other of params) {
      await page.selectOption('#contour-x', params[0]);
      await page.selectOption('#contour-y', other);
      tips.push(await hoverAll('#chart-contour'));
    }
    // Every metric's curves, payload-named ones too.
    const metrics = await page.$$eval('#curve-metric option', (os) => os.map((o) => o.value));
    for (const m of metrics.slice(1)) {
      await page.selectOption('#curve-metric', m);
      tips.push(await hoverAll('#chart-curves'));
    }
    await assertClean(`experiment ${name}`);
    if (name === experiments.client && results.find((r) => r.where === 'parameters[].feasibleSpace.list').status === 201) {
      // Shown as text, not dropped or shown as entities.
      const text = await page.textContent('#trials');
      for (const v of variants('category')) assert.ok(text.includes(v), `the table shows ${v}`);
      if (results.find((r) => r.where === ':complete reason').status === 201) {
        const why = await page.$$eval('#trials td.why', (tds) => tds.map((td) => td.title));
        assert.ok(why.some((w) => w.includes(P('reason'))), 'the Why column holds the reason as text');
      }
      const joined = tips.join('\n');
      assert.ok(variants('category').some((v) => joined.includes(v)), 'a slice tooltip shows a categorical value as text');
    }
  }
});

test('the trial pages: parameters, metrics, reason and log', async () => {
  for (const name of Object.values(experiments)) {
    for (const t of await api.trials(name)) {
      await open(`#/experiments/${name}/trials/${t.name}`, '#app[data-loaded="1"] #trial-info dl');
      await page.waitForFunction(() => document.querySelector('#trial-log').textContent !== '');
      await hoverAll('#chart-trial');
      await assertClean(`trial ${t.name}`);
      if (t.phase === 'Failed' && t.reason === P('reason')) {
        assert.ok((await page.textContent('#trial-failure')).includes(P('reason')), 'the failure box shows the reason as text');
      }
      if (name === experiments.runner) {
        assert.ok((await page.textContent('#trial-log')).includes(P('log')), 'the log shows the payload as text');
        assert.ok((await page.textContent('#trial-info')).includes(P('output')),
          'a text output shows as text');
      }
    }
  }
});

test('the compare pages, with their curves\' tooltips', async () => {
  for (const name of Object.values(experiments)) {
    const trials = (await api.trials(name)).slice(0, 4).map((t) => t.name);
    if (trials.length < 2) continue;
    // One name that is not a trial: a payload, shown back as text.
    const names = [...trials, P('url-compare')];
    await open(`#/experiments/${encodeURIComponent(name)}/compare?trials=${names.map(encodeURIComponent).join(',')}`,
      '#app[data-loaded="1"] #compare-table');
    await page.waitForSelector('#chart-compare[data-loading="0"]', { timeout: 15000 });
    assert.deepEqual(await page.$$eval('#compare-table th[data-trial]', (th) => th.map((x) => x.dataset.trial)), trials);
    const metrics = await page.$$eval('#compare-metric option', (os) => os.map((o) => o.value));
    for (const m of metrics) {
      await page.selectOption('#compare-metric', m);
      await hoverAll('#chart-compare');
    }
    await assertClean(`compare ${name}`);
    assert.ok((await page.textContent('#compare-body')).includes(P('url-compare')), 'an unknown name is shown as text');
  }
});

test('the create page lists the problems of a spec full of payloads', async () => {
  await open('#/new');
  const spec = baseSpec('xss-create', 'runner');
  spec.name = P('create-name');
  spec.objective.objectiveMetricName = P('create-metric');
  spec.objective.goal = P('create-goal');
  spec.parameters[0].name = P('create-param');
  spec.parameters[1].feasibleSpace.min = P('create-min');
  spec.algorithm.algorithmSettings = [{ name: P('create-setting'), value: P('create-value') }];
  spec[P('create-key')] = 1;
  await page.fill('#spec-text', JSON.stringify(spec, null, 2));
  await page.click('#create-submit');
  await page.waitForSelector('#create-errors .error-box');
  await assertClean('create errors');
  assert.match(await page.textContent('#create-errors'), /onerror=/, 'the problems quote the payloads as text');
});

test('names in the URL', async () => {
  const x = encodeURIComponent(P('url-experiment'));
  const failed = '#notice:not([hidden]), #app .error-box';
  await open(`#/experiments/${x}`, failed);
  await assertClean('unknown experiment');
  await open(`#/experiments/${experiments.client}/trials/${encodeURIComponent(P('url-trial'))}`, failed);
  await assertClean('unknown trial');
});

test('namespace names: in the address, the switcher and the namespaces page', async () => {
  // A namespace in a link is whatever the link says: shown as text in the
  // switcher, and the page says it is not there.
  const ns = P('url-namespace');
  for (const rest of ['', '/experiments', `/experiments/${experiments.client}`, '/new',
    `/experiments/${experiments.client}/trials/t`]) {
    await open(`#/namespaces/${encodeURIComponent(ns)}${rest}`, '#ns-switch');
    await page.waitForSelector('#notice:not([hidden]), #app .error-box, #create-form');
    await assertClean(`namespace in the address, ${rest || 'list'}`);
    assert.equal(await page.$eval('#ns-switch', (s) => s.value), ns, 'the switcher shows the namespace as text');
  }
  await open('#/namespaces');
  await assertClean('namespaces page');
  if (tenancy.namespace) {
    await open(`#/namespaces/${encodeURIComponent(tenancy.namespace)}`);
    await assertClean('a payload-named namespace');
    assert.ok((await page.textContent('#quota')).includes(tenancy.namespace));
  }
});

test('no script errors', () => {
  assert.deepEqual(pageErrors, []);
});
