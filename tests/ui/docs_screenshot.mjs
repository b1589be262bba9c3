// Makes docs/dashboard-experiment.png: a 40-trial experiment run by the
// real server, its page photographed from the top (run on demand, not by
// ctest; pngquant, when installed, shrinks the PNG).
//
//   node tests/ui/docs_screenshot.mjs --hpt build/cli/hpt [--to docs/dashboard-experiment.png]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { client, launchBrowser, parseArgs, repoRoot, startServer, tempDir, waitFor } from './harness.mjs';

const args = parseArgs(process.argv.slice(2), {
  hpt: path.join(repoRoot, 'build/cli/hpt'),
  'ui-dir': path.join(repoRoot, 'ui/dist'),
  chromium: '/usr/bin/chromium',
  to: path.join(repoRoot, 'docs/dashboard-experiment.png'),
  width: '1280',
  height: '1480',
});
const work = tempDir('hpt-ui-docs-');
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
  await page.screenshot({ path: args.to, fullPage: true, clip: { x: 0, y: 0, width: Number(args.width), height: Number(args.height) } });
  await browser.close();
  // Chromium's PNG is ~350 KB; a 256-colour palette keeps it near 100 KB.
  try {
    execFileSync('pngquant', ['--quality', '70-90', '--speed', '1', '-f', '-o', args.to, args.to]);
  } catch {
    console.log('pngquant not found (apt-get install pngquant): the PNG is left as Chromium wrote it');
  }
  console.log(`${args.to}: ${fs.statSync(args.to).size} bytes`);
} finally {
  await server.stop();
  fs.rmSync(work, { recursive: true, force: true });
}
