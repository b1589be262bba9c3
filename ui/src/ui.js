// Dialogs and notices shared by the pages: a confirmation, the token prompt,
// and a transient message line.
import { html, setHtml } from './html.js';

// `markup`: html`...` output.
function dialog(markup, onReady) {
  return new Promise((resolve) => {
    const d = document.createElement('dialog');
    d.className = 'modal';
    setHtml(d, markup);
    document.body.appendChild(d);
    const done = (value) => {
      d.close();
      d.remove();
      resolve(value);
    };
    d.addEventListener('cancel', (e) => {
      e.preventDefault();
      done(null);
    });
    onReady(d, done);
    d.showModal();
  });
}

// Resolves to true when the person confirms. `body` is text or html`...`.
export function confirmDialog({ title, body, confirm = 'OK', danger = false }) {
  return dialog(html`
    <form method="dialog">
      <h2>${title}</h2>
      <p>${body}</p>
      <div class="buttons">
        <button type="button" class="secondary" data-act="cancel">Cancel</button>
        <button type="submit" class="${danger ? 'danger' : ''}" data-act="confirm">${confirm}</button>
      </div>
    </form>`, (d, done) => {
    d.querySelector('[data-act=cancel]').onclick = () => done(false);
    d.querySelector('form').onsubmit = (e) => {
      e.preventDefault();
      done(true);
    };
  }).then(Boolean);
}

// Asks for a credential: a user's API key (hpt_...) or the server's token.
// Resolves to it, or null when cancelled. `refused`: the one kept was
// refused (mistyped, or the key was revoked).
export function tokenDialog(refused) {
  return dialog(html`
    <form method="dialog" id="token-form">
      <h2>Sign in</h2>
      ${refused && html`<p class="error-box" id="token-refused">The server refused that key or token:
        it is wrong, or it was revoked. Sign in again.</p>`}
      <p>Give your API key (<code>hpt_…</code>, from whoever runs this server) or the server's
        token (the file given to <code>hpt serve --token-file</code>).
        It is kept for this browser tab only.</p>
      <input type="password" name="token" autocomplete="off" required autofocus aria-label="API key or token">
      <div class="buttons">
        <button type="button" class="secondary" data-act="cancel">Cancel</button>
        <button type="submit">Sign in</button>
      </div>
    </form>`, (d, done) => {
    d.querySelector('[data-act=cancel]').onclick = () => done(null);
    d.querySelector('form').onsubmit = (e) => {
      e.preventDefault();
      done(d.querySelector('input').value.trim() || null);
    };
  });
}

let noticeTimer;
export function notice(message, kind = 'error') {
  const el = document.getElementById('notice');
  el.textContent = message;
  el.className = `notice ${kind}`;
  el.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { el.hidden = true; }, kind === 'error' ? 8000 : 4000);
}
