// The experiment page's first chart at 5,000 and 50,000 trials x 10 steps
// (#36), in Debian's headless Chromium against the real `hpt serve`: the
// page as it is now (plots from GET .../trials:columns, the table paged on
// the server) beside the full-download path (the same page with
// window.hptLargeTrials = Infinity: GET .../trials, everything in the
// browser) and beside main's dashboard before #36 (ui/src at --old-ref,
// served by the same binary on the same database), in the same run. Also the raw
// GET .../trials and GET .../trials:columns times and sizes, and the
// longest main-thread task after the first chart (does the page stay
// responsive while the table and curves come in). Not part of ctest:
//
//   node bench/ui_first_chart.mjs --hpt build/cli/hpt [--sizes 5000,50000] [--runs 3]
//     [--old-runs 2] [--old-ref bc5e893]
//
// Prints one markdown row per size and path. The database is filled by
// trials:import (5,000 trials of 10 observations per request) plus 1%
// infeasible (Failed) trials through :suggest / :complete.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import {
  client, launchBrowser, parseArgs, repoRoot, startServer, tempDir,
} from '../tests/ui/harness.mjs';

const args = parseArgs(process.argv.slice(2), {
  hpt: path.join(repoRoot, 'build/cli/hpt'), 'ui-dir': path.join(repoRoot, 'ui/dist'),
  chromium: '/usr/bin/chromium', sizes: '5000,50000', runs: '3', 'old-runs': '2',
  // main before #36's dashboard work: its ui/src is served as a third row.
  'old-ref': 'bc5e893',
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

async function fill(api, n) {
  await api.create({
    name: 'big', objective: { type: 'minimize', objectiveMetricName: 'loss' },
    algorithm: { algorithmName: 'random' }, parallelTrialCount: 1000, maxTrialCount: n * 2,
    maxFailedTrialCount: n,
    parameters: [
      { name: 'lr', parameterType: 'double', feasibleSpace: { min: '0.0001', max: '1' } },
      { name: 'momentum', parameterType: 'double', feasibleSpace: { min: '0', max: '1' } },
      { name: 'layers', parameterType: 'int', feasibleSpace: { min: '1', max: '8' } },
      { name: 'opt', parameterType: 'categorical', feasibleSpace: { list: ['adam', 'sgd', 'rmsprop'] } },
    ],
  });
  const failed = Math.floor(n / 100);
  for (let start = 0; start < n - failed; start += 5000) {
    const trials = [];
    for (let i = start; i < Math.min(n - failed, start + 5000); i += 1) {
      const lr = 0.0001 + ((i * 0.6180339) % 1) * 0.9999;
      const m = (i * 0.4142135) % 1;
      const loss = (Math.log10(lr) + 2.5) ** 2 + (m - 0.9) ** 2 + 0.1 * ((i * 7919) % 97) / 97;
      trials.push({
        parameterAssignments: [{ name: 'lr', value: lr }, { name: 'momentum', value: m },
          { name: 'layers', value: 1 + (i % 8) }, { name: 'opt', value: ['adam', 'sgd', 'rmsprop'][i % 3] }],
        observations: Array.from({ length: 10 }, (_, s) => ({ step: s + 1, metrics: { loss: loss + 1 / (s + 1) } })),
        metrics: { loss },
      });
    }
    await api.call('POST', '/api/v1/experiments/big/trials:import', { trials });
  }
  for (let left = failed; left > 0; left -= 1000) {
    const batch = await api.suggest('big', Math.min(1000, left));
    await Promise.all(batch.map((t) => api.call('POST', `/api/v1/experiments/big/trials/${t.name}:complete`, { infeasible: true })));
  }
}

async function timedGet(url) {
  const t0 = performance.now();
  const res = await fetch(url);
  const body = await res.arrayBuffer();
  return { ms: performance.now() - t0, bytes: body.byteLength };
}

// The dashboard as it was at `ref` (ui/src from git, ECharts from this
// build's dist/vendor), or null when git cannot give it.
function oldUi(ref, into) {
  try {
    execSync(`git -C ${JSON.stringify(repoRoot)} archive ${ref} ui/src | tar -x -C ${JSON.stringify(into)}`, { stdio: 'pipe' });
    fs.cpSync(path.join(args['ui-dir'], 'vendor'), path.join(into, 'ui/src/vendor'), { recursive: true });
    return path.join(into, 'ui/src');
  } catch (e) {
    console.error(`# no dashboard of ${ref}: ${e.message.split('\n')[0]}`);
    return null;
  }
}

// One page load: ms from navigation start to the frame after the history
// chart first has points (the same test for every version of the page),
// to the table's first rows, and the longest task after the chart.
async function load(page, url, query) {
  await page.goto('about:blank');
  await page.goto(`${url}/?${query}#/experiments/big`);
  const chart = await (await page.waitForFunction(() => {
    const el = document.querySelector('#chart-history');
    return el && Number(el.dataset.points) > 0 && performance.now();
  }, null, { polling: 'raf', timeout: 120000 })).jsonValue();
  await page.waitForSelector('#trials tbody tr[data-trial]', { timeout: 120000 });
  const table = await page.evaluate(() => performance.now());
  await page.waitForTimeout(300);
  const longest = await page.evaluate((c) => Math.max(0, ...window.__tasks.filter((x) => x.start > c).map((x) => x.ms)), chart);
  return { chart, table, longest };
}

const rows = [];
for (const n of args.sizes.split(',').map(Number)) {
  const work = tempDir('hpt-bench-ui-');
  const db = path.join(work, 'hpt.db');
  let server = await startServer(args.hpt, { db, uiDir: args['ui-dir'], cwd: work });
  const browser = await launchBrowser(args.chromium, path.join(work, 'profile'));
  try {
    const api = client(server.url);
    const t0 = Date.now();
    await fill(api, n);
    console.error(`# ${n} trials filled in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    // ?large=0: this page on main's path (the whole list, everything in
    // the browser).
    await browser.addInitScript(() => {
      if (new URLSearchParams(location.search).get('large') === '0') window.hptLargeTrials = Infinity;
      window.__tasks = [];
      new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__tasks.push({ start: e.startTime, ms: e.duration })))
        .observe({ entryTypes: ['longtask'] });
    });
    const page = browser.pages()[0] || await browser.newPage();
    const base = () => `${server.url}/api/v1/experiments/big`;
    const full = await timedGet(`${base()}/trials`);
    const cols = await timedGet(`${base()}/trials:columns?maxPoints=2000`);
    const old = oldUi(args['old-ref'], work);
    const variants = [
      ['this branch: columns + server pages', args['ui-dir'], 'large=1', Number(args.runs), cols, 'trials:columns'],
      ['this branch\'s page on the full-download path', args['ui-dir'], 'large=0', Number(args['old-runs']), full, 'GET .../trials'],
      ...(old ? [[`main before #36 (${args['old-ref']})`, old, '', Number(args['old-runs']), full, 'GET .../trials']] : []),
    ];
    let served = args['ui-dir'];
    for (const [label, uiDir, query, runs, get, what] of variants) {
      if (uiDir !== served) {  // the same database, another dashboard
        await server.stop();
        server = await startServer(args.hpt, { db, uiDir, cwd: work });
        served = uiDir;
      }
      const got = [];
      for (let r = 0; r < runs; r += 1) got.push(await load(page, server.url, query));
      rows.push(`| ${n.toLocaleString('en-US')} | ${label} | ${(median(got.map((g) => g.chart)) / 1000).toFixed(2)} s | ` +
        `${(median(got.map((g) => g.table)) / 1000).toFixed(2)} s | ${median(got.map((g) => g.longest)).toFixed(0)} ms | ` +
        `${what}: ${(get.ms / 1000).toFixed(2)} s, ${(get.bytes / 1e6).toFixed(2)} MB |`);
      console.error(rows[rows.length - 1], JSON.stringify(got));
    }
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
console.log('| trials (x 10 steps) | page | first chart | first table page | longest task after the chart | what the plots come from |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
