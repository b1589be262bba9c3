// Builds the dashboard into ui/dist: the ES modules in src/ are copied as
// they are (no bundler: nothing to configure, nothing that needs a newer
// node than Debian 12's), with ECharts' ES-module build beside them in
// vendor/. Every module is syntax-checked first, so a broken file fails the
// build here rather than in the browser. Exits non-zero on any problem.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');
const vendor = [
  ['node_modules/echarts/dist/echarts.esm.min.js', 'vendor/echarts.esm.min.js'],
  ['node_modules/echarts/LICENSE', 'vendor/echarts.LICENSE.txt'],
];

function fail(message) {
  console.error(`ui build: ${message}`);
  process.exit(1);
}

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  });
}

const files = walk(src);
for (const file of files.filter((f) => f.endsWith('.js'))) {
  try {
    execFileSync(process.execPath, ['--check', file], { stdio: 'pipe' });
  } catch (e) {
    fail(`${path.relative(root, file)} does not parse:\n${e.stderr}`);
  }
}
for (const [from] of vendor) {
  if (!fs.existsSync(path.join(root, from))) fail(`${from} is missing; run 'npm ci' in ui/ first`);
}

fs.rmSync(dist, { recursive: true, force: true });
for (const file of files) {
  const to = path.join(dist, path.relative(src, file));
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(file, to);
}
for (const [from, to] of vendor) {
  fs.mkdirSync(path.dirname(path.join(dist, to)), { recursive: true });
  fs.copyFileSync(path.join(root, from), path.join(dist, to));
}
if (!fs.existsSync(path.join(dist, 'index.html'))) fail('dist/index.html was not produced');
console.log(`ui build: ${files.length} files and ECharts into ${path.relative(process.cwd(), dist) || dist}`);
