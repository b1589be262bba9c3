import assert from 'node:assert/strict';
import { test } from 'node:test';

import { problems } from '../../../ui/src/api.js';
import { num } from '../../../ui/src/format.js';
import { toYaml } from '../../../ui/src/yaml.js';

test('validation messages split into field paths', () => {
  const p = problems('parameters[0].feasibleSpace: min 5 is not below max 3; maxTrialCount: is required');
  assert.deepEqual(p, [
    { path: 'parameters[0].feasibleSpace', message: 'min 5 is not below max 3' },
    { path: 'maxTrialCount', message: 'is required' },
  ]);
  assert.deepEqual(problems('request body is empty'), [{ path: '', message: 'request body is empty' }]);
});

test('yaml quotes what would read back as another type', () => {
  const y = toYaml({ name: 'a', list: ['16', 'sgd', 'true', ''], min: '-5', nested: { count: 3, empty: [] }, cmd: ['sh', '-c', 'echo x: 1'] });
  assert.equal(y, [
    'name: a', 'list:', '  - "16"', '  - sgd', '  - "true"', '  - ""', 'min: "-5"',
    'nested:', '  count: 3', '  empty: []', 'cmd:', '  - sh', '  - "-c"', '  - "echo x: 1"', '',
  ].join('\n'));
  assert.equal(toYaml({ p: [{ name: 'x', v: 1 }] }), 'p:\n  - name: x\n    v: 1\n');
});

test('numbers are short', () => {
  assert.equal(num(0.123456789), '0.12346');
  assert.equal(num(1e-7), '1.000e-7');
  assert.equal(num(undefined), '—');
});
