// Helpers for the dashboard's browser tests: start the real `hpt serve` on
// port 0, talk to its REST API, and launch Debian's Chromium through
// playwright-core (installed in ui/node_modules by `npm ci`).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// --name value pairs from argv, with defaults.
export function parseArgs(argv, defaults) {
  const out = { ...defaults };
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined) throw new Error(`bad argument ${argv[i]}`);
    out[argv[i].slice(2)] = argv[i + 1];
  }
  return out;
}

// A browser test's arguments: the hpt binary, the dashboard, the output
// folder (made) and Chromium, as absolute paths, plus `extra` defaults.
export function browserTestArgs(argv, extra = {}) {
  const args = parseArgs(argv, {
    hpt: path.join(repoRoot, 'build/cli/hpt'),
    'ui-dir': path.join(repoRoot, 'ui/dist'),
    out: path.join(repoRoot, 'build/tests/ui-out'),
    chromium: '/usr/bin/chromium',
    ...extra,
  });
  for (const k of ['hpt', 'ui-dir', 'out', 'chromium']) args[k] = path.resolve(args[k]);
  fs.mkdirSync(args.out, { recursive: true });
  return args;
}

export function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// Starts `hpt serve --port 0` and resolves when it prints its URL.
export function startServer(hpt, { db, uiDir, tokenFile, cwd }) {
  const args = ['serve', '--port', '0', '--db', db, '--ui-dir', uiDir, '--gpus', 'none'];
  if (tokenFile) args.push('--token-file', tokenFile);
  const child = spawn(path.resolve(hpt), args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hpt serve did not print its URL in 20 s:\n${output}`));
    }, 20000);
    const onData = (chunk) => {
      output += chunk;
      const m = /hpt serving on (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve({
          url: m[1].replace(/\/$/, ''),
          output: () => output,
          stop: () => new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', done);
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 5000).unref();
          }),
        });
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => { output += d; });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`cannot start ${hpt}: ${e.message}`));
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`hpt serve exited with ${code}:\n${output}`));
    });
  });
}

// A small REST client; throws on non-2xx with the server's message.
export function client(base, token) {
  async function call(method, p, body, contentType = 'application/json') {
    const headers = {};
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = contentType;
    const res = await fetch(base + p, {
      method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw Object.assign(new Error(`${method} ${p}: ${res.status} ${text}`), { status: res.status });
    return res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  }
  const x = (name) => `/api/v1/experiments/${encodeURIComponent(name)}`;
  return {
    call,
    create: (spec) => call('POST', '/api/v1/experiments', spec),
    experiment: (name) => call('GET', x(name)),
    trials: (name) => call('GET', `${x(name)}/trials`).then((r) => r.trials),
    observations: (name, t) => call('GET', `${x(name)}/trials/${t}/observations`).then((r) => r.observations),
    suggest: (name, count) => call('POST', `${x(name)}/trials:suggest`, { count }).then((r) => r.trials),
    observe: (name, t, observations) => call('POST', `${x(name)}/trials/${t}/observations`, { observations }),
    complete: (name, t, metrics) => call('POST', `${x(name)}/trials/${t}:complete`, { metrics }),
  };
}

export async function waitFor(what, fn, timeoutMs = 30000, everyMs = 200) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
}

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run',
];

// A fresh Chromium profile each run (launchPersistentContext takes the
// --user-data-dir as its first argument).
export async function launchBrowser(chromiumPath, profileDir) {
  const require = createRequire(path.join(repoRoot, 'ui', 'package.json'));
  const { chromium } = require('playwright-core');
  return chromium.launchPersistentContext(profileDir, {
    executablePath: chromiumPath,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1400, height: 900 },
  });
}

// Checks that what the browser test needs is there, naming the fix.
export function preflight({ hpt, chromium, uiDir }) {
  const problems = [];
  if (!fs.existsSync(hpt)) problems.push(`no hpt binary at ${hpt} (build it: bash scripts/build.sh)`);
  if (!fs.existsSync(chromium)) problems.push(`no Chromium at ${chromium} (bash scripts/install-deps.sh installs Debian's chromium)`);
  if (!fs.existsSync(path.join(uiDir, 'index.html'))) problems.push(`no ${uiDir}/index.html (the dashboard is built by scripts/build.sh: cd ui && npm ci && npm run build)`);
  if (!fs.existsSync(path.join(repoRoot, 'ui', 'node_modules', 'playwright-core'))) problems.push('no ui/node_modules/playwright-core (cd ui && npm ci)');
  return problems;
}
