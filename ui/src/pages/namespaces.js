// The namespaces the caller may see (GET /api/v1/namespaces): each with
// the caller's role there, its fair-share weight and its quota use,
// polled.
import { api } from '../api.js';
import { hrefIn, num } from '../format.js';
import { html, setHtml } from '../html.js';
import { quotaHtml, roleIn } from '../tenancy.js';

export const id = 'namespaces';

function row(ns, me) {
  return html`<tr data-namespace="${ns.name}">
    <td><a href="${hrefIn(ns.name)}">${ns.name}</a></td>
    <td class="role">${roleIn(me, ns.name) || '—'}</td>
    <td class="num">${num(ns.weight)}</td>
    <td><div class="quota-cell">${quotaHtml(ns)}</div></td>
  </tr>`;
}

export async function render(root, ctx) {
  setHtml(root, html`
    <div class="page-head"><h1>Namespaces</h1></div>
    <table class="grid" id="namespaces">
      <thead><tr><th>Name</th><th>Your role</th><th class="num">Weight</th><th>Quota use</th></tr></thead>
      <tbody></tbody>
    </table>`);
  await ctx.every(5000, async () => {
    const [me, list] = await Promise.all([api.whoami(), api.namespaces()]);
    if (!ctx.alive) return 0;
    list.sort((a, b) => a.name.localeCompare(b.name));
    setHtml(root.querySelector('tbody'), list.length ? html`${list.map((ns) => row(ns, me))}`
      : html`<tr><td colspan="4" class="empty">You may see no namespace: ask whoever runs this server for a role in one.</td></tr>`);
    root.dataset.loaded = '1';
    return 5000;
  });
}
