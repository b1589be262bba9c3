// The dashboard's entry point: routes on the URL hash to a page in the
// namespace the route names (namespace.js), gives each page a context whose
// polls stop when the page is left, and wires the token prompt into the API
// client.
import { setTokenPrompt, useToken } from './api.js';
import { disposeAll, onSchemeChange } from './chart_host.js';
import { html, setHtml } from './html.js';
import { DEFAULT_NAMESPACE, setCurrentNamespace, splitRoute } from './namespace.js';
import { notice, tokenDialog } from './ui.js';
import * as compare from './pages/compare.js';
import * as create from './pages/create.js';
import * as experiment from './pages/experiment.js';
import * as list from './pages/list.js';
import * as trial from './pages/trial.js';

setTokenPrompt(tokenDialog);

// `hpt run` prints its server's dashboard link with the private token after
// the route (#/experiments/x?token=...), as Jupyter does: the fragment never
// reaches a server log. Kept for this tab, then taken out of the address bar.
function adoptLinkToken() {
  const [path, query] = location.hash.split('?');
  if (!query) return;
  const params = new URLSearchParams(query);
  const token = params.get('token');
  if (!token) return;
  useToken(token);
  params.delete('token');
  const rest = params.toString();
  history.replaceState(null, '', `${location.pathname}${location.search}${path}${rest ? `?${rest}` : ''}`);
}
adoptLinkToken();

// Matched against the route after its namespace prefix.
const routes = [
  [/^\/?$/, list],
  [/^\/experiments\/?$/, list],
  [/^\/new$/, create],
  [/^\/experiments\/([^/]+)$/, experiment],
  [/^\/experiments\/([^/]+)\/compare$/, compare],
  [/^\/experiments\/([^/]+)\/trials\/([^/]+)$/, trial],
];

// What a page gets: `every` runs a function now and again after `ms` (or
// after the number of ms it returns) until the page is left; `alive` turns
// false then, so late answers can be dropped.
class PageContext {
  constructor() {
    this.alive = true;
    this.timer = new Set();
  }

  every(ms, fn) {
    let first = true;
    const tick = async () => {
      if (!this.alive) return;
      let next = ms;
      // A hidden tab keeps its page but stops asking the server.
      if (first || !document.hidden) {
        first = false;
        try {
          const r = await fn();
          if (typeof r === 'number') next = r;
        } catch (e) {
          if (this.alive) notice(e.message);
        }
      }
      if (this.alive && next > 0) {
        const id = setTimeout(() => { this.timer.delete(id); tick(); }, next);
        this.timer.add(id);
      }
    };
    return tick();
  }

  close() {
    this.alive = false;
    for (const id of this.timer) clearTimeout(id);
    this.timer.clear();
  }
}

let current = null;

async function route() {
  if (current) current.close();
  disposeAll();
  const ctx = new PageContext();
  current = ctx;
  const root = document.getElementById('app');
  for (const key of Object.keys(root.dataset)) delete root.dataset[key];
  setHtml(root, html`<p class="muted">Loading…</p>`);
  let split;
  try {
    // A malformed escape (%E0%A4%A) throws URIError: shown, not "Loading…" for ever.
    split = splitRoute(location.hash.replace(/^#/, '').split('?')[0]);
  } catch (e) {
    setHtml(root, html`<div class="error-box">${e.message}</div>`);
    return;
  }
  setCurrentNamespace(split.namespace ?? DEFAULT_NAMESPACE);
  for (const [re, page] of routes) {
    const m = re.exec(split.rest);
    if (!m) continue;
    document.body.dataset.page = page.id;
    try {
      const args = m.slice(1).map(decodeURIComponent);
      await page.render(root, ctx, ...args);
    } catch (e) {
      if (ctx.alive) setHtml(root, html`<div class="error-box">${e.message}</div>`);
    }
    return;
  }
  document.body.dataset.page = 'missing';
  setHtml(root, html`<p>No page here. <a href="#/">Back to the experiments</a>.</p>`);
}

window.addEventListener('hashchange', route);
// Charts take the dark theme when created: a switch redraws the page.
onSchemeChange(route);
route();
