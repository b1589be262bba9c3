// Roles and the quota line (issue #32's dashboard). The browser test is
// tests/ui/tenancy.mjs.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { canWrite, quotaHtml, quotaUse, roleIn } from '../../../ui/src/tenancy.js';

test('roles: admin everywhere, member writes, viewer reads, others nothing', () => {
  const ann = { name: 'ann', admin: false, roles: { 'team-a': 'member', 'team-b': 'viewer' } };
  assert.equal(roleIn(ann, 'team-a'), 'member');
  assert.equal(roleIn(ann, 'team-b'), 'viewer');
  assert.equal(roleIn(ann, 'team-c'), undefined);
  assert.equal(roleIn(ann, 'constructor'), undefined);
  assert.equal(roleIn(ann, '__proto__'), undefined);
  assert.ok(canWrite(ann, 'team-a'));
  assert.ok(!canWrite(ann, 'team-b'));
  assert.ok(!canWrite(ann, 'team-c'));
  const admin = { name: 'admin', admin: true, roles: {} };
  assert.equal(roleIn(admin, 'anything'), 'admin');
  assert.ok(canWrite(admin, 'anything'));
  assert.ok(!canWrite(null, 'team-a'));
  assert.ok(!canWrite({ name: 'x', admin: false, roles: { a: 'owner' } }, 'a'), 'an unknown role gives nothing');
});

test('quota use: every usage key against its cap, in a steady order', () => {
  const ns = {
    name: 'team-a',
    quota: { gpu: 2, memory: '16Gi', experiments: 3, runningTrials: 4 },
    usage: { experiments: 3, gpu: 0.5, memory: 4 * 2 ** 30, cpu: 6, preempted: 1 },
  };
  const { capped, rows } = quotaUse(ns);
  assert.ok(capped);
  assert.deepEqual(rows.map((r) => [r.key, r.text]), [
    ['experiments', '3 / 3'],
    ['runningTrials', '— / 4'],
    ['gpu', '0.5 / 2'],
    ['cpu', '6'],
    ['memory', '4 GiB / 16 GiB'],
    ['preempted', '1'],
  ]);
  assert.deepEqual(rows.map((r) => r.fraction), [1, null, 0.25, null, 0.25, null]);
  assert.equal(rows[1].label, 'running trials');
  assert.equal(rows[5].label, 'preempted');
});

test('a namespace without caps says "no quota" and still shows its use', () => {
  const ns = { name: 'b', quota: {}, usage: { experiments: 2 } };
  assert.equal(quotaUse(ns).capped, false);
  const text = String(quotaHtml(ns));
  assert.match(text, /data-quota="none">no quota</);
  assert.match(text, /data-quota="experiments"/);
  assert.match(text, /<b class="quota-use">2<\/b>/);
  assert.equal(quotaUse({ name: 'c' }).rows.length, 0);
});

test('the quota line escapes what the server sends', () => {
  const X = '<img src=x onerror="alert(1)">';
  const text = String(quotaHtml({ quota: { [X]: X }, usage: { [X]: X } }));
  assert.ok(!text.includes('<img'), text);
  assert.match(text, /&lt;img src=x onerror=&quot;alert\(1\)&quot;&gt; \/ &lt;img/);
  // A full quota is marked, an over-full bar stops at 100%.
  const full = String(quotaHtml({ quota: { experiments: 2 }, usage: { experiments: 3 } }));
  assert.match(full, /quota-item full/);
  assert.match(full, /width:100\.0%/);
});
