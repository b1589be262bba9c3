// Who is signed in and which namespaces they may see (GET /api/v1/whoami
// and GET /api/v1/namespaces, asked again on every route, so a role given
// or a namespace made meanwhile shows up), and the header that shows them:
// the namespace switcher with the caller's role there, the name, and Sign
// out when this tab holds a key or token.
import { api, forgetToken, storedToken } from './api.js';
import { href, hrefIn } from './format.js';
import { html, setHtml } from './html.js';
import { canWrite, roleIn } from './tenancy.js';

let last = null;

// Resolves to { me: whoami's answer, namespaces: sorted by name }.
export async function loadSession() {
  const [me, namespaces] = await Promise.all([api.whoami(), api.namespaces()]);
  namespaces.sort((a, b) => a.name.localeCompare(b.name));
  last = { me, namespaces };
  return last;
}

// Whether a session was loaded since the page opened or the last sign-out:
// a credential asked for after that may be someone else's.
export function signedIn() {
  return last !== null;
}

export function signOut() {
  forgetToken();
  last = null;
}

// The header for `session` in namespace `ns`; `onSignOut` runs after the
// credential is forgotten.
export function paintHeader(session, ns, onSignOut) {
  const { me, namespaces } = session;
  const names = namespaces.map((n) => n.name);
  // A namespace named in the address but not listed (absent, or not the
  // caller's) stays shown as the current one; its page says why it is empty.
  if (!names.includes(ns)) names.unshift(ns);
  const role = roleIn(me, ns);
  const account = document.getElementById('account');
  setHtml(account, html`
    <label class="ns-switch">Namespace
      <select id="ns-switch">${names.map((n) => html`<option value="${n}" ${n === ns ? html`selected` : ''}>${n}</option>`)}</select></label>
    <span class="role" id="ns-role" title="your role in this namespace">${role || 'no access'}</span>
    <span class="who">Signed in as <b id="whoami">${me.name}</b></span>
    ${storedToken() && html`<button class="small secondary" id="sign-out">Sign out</button>`}`);
  account.dataset.user = me.name;
  account.querySelector('#ns-switch').onchange = (e) => {
    location.hash = hrefIn(e.target.value);
  };
  const out = account.querySelector('#sign-out');
  if (out) {
    out.onclick = () => {
      signOut();
      onSignOut();
    };
  }
  document.getElementById('nav-list').setAttribute('href', href());
  const create = document.getElementById('nav-new');
  create.setAttribute('href', href('new'));
  create.hidden = !canWrite(me, ns);
}

// The header when no one is signed in (the prompt was cancelled).
export function paintSignedOut(onSignIn) {
  const account = document.getElementById('account');
  setHtml(account, html`<button class="small" id="sign-in">Sign in</button>`);
  delete account.dataset.user;
  account.querySelector('#sign-in').onclick = onSignIn;
  document.getElementById('nav-new').hidden = true;
}
