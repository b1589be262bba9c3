// Makes the dashboard's pictures in docs/: a 40-trial experiment run by
// the real server, its page photographed from the top
// (dashboard-experiment.png), in dark mode (dashboard-dark.png), its
// two-parameter plot (dashboard-contour.png) and three trials compared
// (dashboard-compare.png); and a bayesianoptimization experiment's
// importance from the GP's length-scales (dashboard-importance.png). Run on
// demand, not by ctest; pngquant, when installed, shrinks the PNGs.
//
//   node tests/ui/docs_screenshot.mjs --hpt build/cli/hpt [--to docs/dashboard-experiment.png] [--docs docs]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { client, launchBrowser, parseArgs, repoRoot, startServer, tempDir, waitFor } from './harness.mjs';

const args = parseArgs(process.argv.slice(2), {
  hpt: path.join(repoRoot, 'build/cli/hpt'),
  'ui-dir': path.join(repoRoot, 'ui/dist'),
  chromium: '/usr/bin/chromium',
  to: path.join(repoRoot, 'docs/dashboard-experiment.png'),
  docs: path.join(repoRoot, 'docs'),
  width: '1280',
  height: '1480',
});
const work = tempDir('hpt-ui-docs-');

// Chromium's PNG is ~350 KB; a 256-colour palette keeps it near 100 KB.
function shrink(file) {
  try {
    execFileSync('pngquant', ['--quality', '70-90', '--speed', '1', '-f', '-o', file, file]);
  } catch {
    console.log('pngquant not found (apt-get install pngquant): the PNG is left as Chromium wrote it');
  }
  console.log(`${file}: ${fs.statSync(file).size} bytes`);
}

// A client-run bayesianoptimization experiment whose loss hangs on x and
// lr, hardly on layers and not at all on opt.
async function boExperiment(api, name) {
  await api.create({
    name,
    objective: { type: 'minimize', objectiveMetricName: 'loss' },
    algorithm: { algorithmName: 'bayesianoptimization', algorithmSettings: [{ name: 'random_state', value: '3' }] },
    parallelTrialCount: 2, maxTrialCount: 30,
    parameters: [
      { name: 'x', parameterType: 'double', feasibleSpace: { min: '-5', max: '10' } },
      { name: 'lr', parameterType: 'double', feasibleSpace: { min: '1e-4', max: '1e-1', distribution: 'logUniform' } },
      { name: 'layers', parameterType: 'int', feasibleSpace: { min: '1', max: '8' } },
      { name: 'opt', parameterType: 'categorical', feasibleSpace: { list: ['sgd', 'adam', 'rmsprop'] } },
    ],
  });
  for (let done = 0; done < 30;) {
    for (const t of await api.suggest(name, 2)) {
      const v = (k) => t.parameterAssignments.find((a) => a.name === k).value;
      const loss = (Number(v('x')) - 2) ** 2 / 4 + (Math.log10(Number(v('lr'))) + 2.5) ** 2 + Number(v('layers')) / 40;
      await api.complete(name, t.name, { loss });
      done += 1;
    }
  }
}
const server = await startServer(path.resolve(args.hpt), { db: path.join(work, 'hpt.db'), uiDir: path.resolve(args['ui-dir']), cwd: work });
try {
  const api = client(server.url);
  // A noisy, slowly converging loss over a Branin-like bowl.
  const loss = 'awk "BEGIN{srand(${trialParameters.seed}); x=${trialParameters.x}; y=log(${trialParameters.lr})/log(10)+2.5; ' +
    'f=(x-2)^2/4+y^2+(\\"${trialParameters.opt}\\"==\\"adam\\"?0:0.8); print f+(3+f)/$i+rand()*0.15}"';
  await api.create({
    name: 'resnet-lr-sweep',
    objective: { type: 'minimize', objectiveMetricName: 'loss', goal: 0.05 },
    algorithm: { algorithmName: 'random', algorithmSettings: [{ name: 'random_state', value: '11' }] },
    parallelTrialCount: 8,
    maxTrialCount: 40,
    parameters: [
      { name: 'x', parameterType: 'double', feasibleSpace: { min: '-5', max: '10' } },
      { name: 'lr', parameterType: 'double', feasibleSpace: { min: '1e-4', max: '1e-1', distribution: 'logUniform' } },
      { name: 'layers', parameterType: 'int', feasibleSpace: { min: '1', max: '8' } },
      { name: 'opt', parameterType: 'categorical', feasibleSpace: { list: ['sgd', 'adam', 'rmsprop'] } },
      { name: 'seed', parameterType: 'int', feasibleSpace: { min: '1', max: '1000' } },
    ],
    trialTemplate: {
      command: ['sh', '-c', `for i in $(seq 1 20); do echo "step=$i loss=$(${loss})"; sleep 0.05; done`],
      trialParameters: ['x', 'lr', 'opt', 'seed'].map((n) => ({ name: n, reference: n })),
    },
  });
  await waitFor('the experiment to end', async () => (await api.experiment('resnet-lr-sweep')).status.phase !== 'Running' &&
    (await api.experiment('resnet-lr-sweep')).status.phase !== 'Created', 180000, 500);
  const browser = await launchBrowser(args.chromium, path.join(work, 'profile'));
  const page = browser.pages()[0] || await browser.newPage();
  await page.setViewportSize({ width: Number(args.width), height: 900 });
  await page.goto(`${server.url}/#/experiments/resnet-lr-sweep`);
  await page.waitForSelector('#chart-curves[data-loading="0"][data-curves="40"]', { timeout: 30000 });
  await page.waitForTimeout(300);
  const clip = { x: 0, y: 0, width: Number(args.width), height: Number(args.height) };
  await page.screenshot({ path: args.to, fullPage: true, clip });
  const docs = (f) => path.join(args.docs, f);

  await page.waitForSelector('#chart-contour[data-points="40"]');
  await page.selectOption('#contour-x', 'x');
  await page.selectOption('#contour-y', 'lr');
  await page.waitForTimeout(200);
  await page.locator('#contour-card').screenshot({ path: docs('dashboard-contour.png') });

  const trials = (await api.trials('resnet-lr-sweep')).sort((a, b) => a.objectiveValue - b.objectiveValue);
  const chosen = [trials[0], trials[10], trials[30]].map((t) => t.name);
  for (const n of chosen) await page.check(`#trials input[data-pick="${n}"]`);
  await page.click('#compare-trials');
  await page.waitForSelector('#app[data-loaded="1"] #compare-table');
  await page.waitForSelector('#chart-compare[data-loading="0"][data-points="60"]');
  await page.waitForTimeout(200);
  await page.screenshot({ path: docs('dashboard-compare.png'), fullPage: true });

  await boExperiment(api, 'bo-sweep');
  await page.goto(`${server.url}/#/experiments/bo-sweep`);
  await page.waitForSelector('#chart-importance[data-loaded="1"][data-method="gp"]');
  await page.waitForTimeout(200);
  await page.locator('#importance-card').screenshot({ path: docs('dashboard-importance.png') });

  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('about:blank');
  await page.goto(`${server.url}/#/experiments/resnet-lr-sweep`);
  await page.waitForSelector('#chart-curves[data-loading="0"][data-curves="40"]', { timeout: 30000 });
  await page.waitForSelector('#chart-importance[data-loaded="1"]');
  await page.waitForTimeout(300);
  await page.screenshot({ path: docs('dashboard-dark.png'), fullPage: true, clip: { ...clip, height: 1100 } });
  await browser.close();
  for (const f of [args.to, ...['contour', 'compare', 'importance', 'dark'].map((n) => docs(`dashboard-${n}.png`))]) shrink(f);
} finally {
  await server.stop();
  fs.rmSync(work, { recursive: true, force: true });
}
