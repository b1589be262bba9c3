// The dashboard's entry point: routes on the URL hash to a page in the
// namespace the route names (namespace.js), gives each page a context
// whose polls stop when the page is left and that says whether the caller
// may change things there, keeps the header's namespace switcher and
// signed-in name current, and wires the sign-in prompt into the API client.
import { ApiError, setTokenPrompt, useToken } from './api.js';
import { disposeAll, onSchemeChange } from './chart_host.js';
import { hrefIn } from './format.js';
import { html, setHtml } from './html.js';
import {
  DEFAULT_NAMESPACE, currentNamespace, setCurrentNamespace, splitRoute,
} from './namespace.js';
import {
  loadSession, paintHeader, paintSignedOut, signedIn,
} from './session.js';
import { canWrite } from './tenancy.js';
import { notice, tokenDialog } from './ui.js';
import * as compare from './pages/compare.js';
import * as create from './pages/create.js';
import * as experiment from './pages/experiment.js';
import * as list from './pages/list.js';
import * as namespaces from './pages/namespaces.js';
import * as trial from './pages/trial.js';

// A credential asked for while someone was signed in (theirs was refused:
// revoked, or the server's token changed) may be another person's, with
// other namespaces and roles: the page is built again for them.
setTokenPrompt(async (refused) => {
  const rebuild = signedIn();
  const token = await tokenDialog(refused);
  if (token && rebuild) setTimeout(route, 0);
  return token;
});

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
  [/^\/namespaces\/?$/, namespaces],
];

// What a page gets: `every` runs a function now and again after `ms` (or
// after the number of ms it returns) until the page is left; `alive` turns
// false then, so late answers can be dropped. `writable`: whether the
// caller may create, stop and delete in the page's namespace (a viewer may
// not: the page leaves those buttons out).
class PageContext {
  constructor() {
    this.alive = true;
    this.timer = new Set();
    this.writable = false;
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
  try {
    // A malformed escape (%E0%A4%A) throws URIError: shown, not "Loading…" for ever.
    const { namespace, rest } = splitRoute(location.hash.replace(/^#/, '').split('?')[0]);
    const found = routes.map(([re, page]) => [re.exec(rest), page]).find(([m]) => m);
    let session;
    try {
      session = await loadSession();
    } catch (e) {
      if (ctx.alive && e instanceof ApiError && e.status === 401) paintSignedOut(route);
      throw e;
    }
    if (!ctx.alive) return;
    // The bare address opens `default`, or the first namespace the caller
    // may see when `default` is not one of them.
    const visible = session.namespaces.map((n) => n.name);
    if (namespace === null && /^\/?$/.test(rest) && visible.length && !visible.includes(DEFAULT_NAMESPACE)) {
      location.replace(hrefIn(visible[0]));
      return;
    }
    // The namespaces page is in none: the switcher keeps the last one.
    if (!found || found[1] !== namespaces || namespace !== null) {
      setCurrentNamespace(namespace ?? DEFAULT_NAMESPACE);
    }
    ctx.writable = canWrite(session.me, currentNamespace());
    paintHeader(session, currentNamespace(), route);
    if (!found) {
      document.body.dataset.page = 'missing';
      setHtml(root, html`<p>No page here. <a href="#/">Back to the experiments</a>.</p>`);
      return;
    }
    const [m, page] = found;
    document.body.dataset.page = page.id;
    await page.render(root, ctx, ...m.slice(1).map(decodeURIComponent));
  } catch (e) {
    if (ctx.alive) setHtml(root, html`<div class="error-box">${e.message}</div>`);
  }
}

window.addEventListener('hashchange', route);
// Charts take the dark theme when created: a switch redraws the page.
onSchemeChange(route);
route();
