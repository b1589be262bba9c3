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

// Asks for the API token; resolves to it, or null when cancelled.
export function tokenDialog(refused) {
  return dialog(html`
    <form method="dialog" id="token-form">
      <h2>API token</h2>
      <p>${refused ? 'The server refused that token. ' : ''}This server needs a token
        (the contents of the file given to <code>hpt serve --token-file</code>).
        It is kept for this browser tab only.</p>
      <input type="password" name="token" autocomplete="off" required autofocus>
      <div class="buttons">
        <button type="button" class="secondary" data-act="cancel">Cancel</button>
        <button type="submit">Use token</button>
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
