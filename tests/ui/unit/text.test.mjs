import assert from 'node:assert/strict';
import { test } from 'node:test';

import { problems } from '../../../ui/src/api.js';
import { num, rangeLabels } from '../../../ui/src/format.js';
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

test('a colour bar\'s two ends never read alike (#33)', () => {
  const near = rangeLabels(0.8, 1.2);
  assert.deepEqual([near(0.8), near(1.2)], ['0.8', '1.2']);
  const close = rangeLabels(0.123451, 0.123459);
  assert.deepEqual([close(0.123451), close(0.123459)], ['0.12345', '0.12346']);
  const tiny = rangeLabels(1.5e-7, 1.6e-7);
  assert.notEqual(tiny(1.5e-7), tiny(1.6e-7));
  const big = rangeLabels(12345678, 12345679);
  assert.notEqual(big(12345678), big(12345679));
  assert.equal(rangeLabels(0, 1)(0.5), '0.5');
});
