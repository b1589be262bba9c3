import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  curvesOption, historyOption, parallelOption, sliceOption, trialCurveOption,
} from '../../../ui/src/charts.js';

const spec = {
  objective: { type: 'minimize', objectiveMetricName: 'loss', goal: 0.1 },
  parameters: [
    { name: 'lr', parameterType: 'double', feasibleSpace: { min: '1e-5', max: '1e-1', distribution: 'logUniform' } },
    { name: 'opt', parameterType: 'categorical', feasibleSpace: { list: ['sgd', 'adam'] } },
  ],
};
// As the server sends them: objectiveValue and index computed there.
const trials = [1, 2, 3, 4].map((n) => ({
  name: `e-${n}`,
  index: n,
  phase: n === 4 ? 'Running' : n === 3 ? 'EarlyStopped' : 'Succeeded',
  parameterAssignments: [{ name: 'lr', value: String(10 ** -n) }, { name: 'opt', value: n % 2 ? 'sgd' : 'adam' }],
  metrics: n === 4 ? [] : [{ name: 'loss', min: 0, max: 1, latest: 1 / n }],
  objectiveValue: n === 4 ? null : 1 / n,
}));

test('history draws one point per scored trial and a goal line', () => {
  const { option, points } = historyOption(trials, spec);
  assert.equal(points, 3);
  assert.deepEqual(option.series.map((x) => [x.name, x.data.length]),
    [['Succeeded', 2], ['EarlyStopped', 1], ['best so far', 3]]);
  assert.equal(option.series[2].markLine.data[0].yAxis, 0.1);
});

test('parallel coordinates use log and category axes', () => {
  const { option, points } = parallelOption(trials, spec);
  assert.equal(points, 3);
  assert.deepEqual(option.parallelAxis.map((a) => a.type), ['log', 'category', 'value']);
  assert.deepEqual(option.parallelAxis[1].data, ['sgd', 'adam']);
  assert.deepEqual(option.series[0].data[0], [0.1, 'sgd', 1]);
});

test('parallel coordinates keep trials without an inactive conditional parameter', () => {
  const conditional = {
    ...spec,
    parameters: [...spec.parameters,
      { name: 'momentum', parameterType: 'double', feasibleSpace: { min: '0.5', max: '0.99' },
        parent: { name: 'opt', values: ['sgd'] } }],
  };
  const withMomentum = trials.map((t) => (t.parameterAssignments[1].value === 'sgd'
    ? { ...t, parameterAssignments: [...t.parameterAssignments, { name: 'momentum', value: '0.9' }] }
    : t));
  const { option, points } = parallelOption(withMomentum, conditional);
  assert.equal(points, 3);
  assert.deepEqual(option.series[0].data.map((row) => row[2]), [0.9, null, 0.9]);
  // A trial without an unconditional parameter is still left out.
  const { points: partial } = parallelOption(trials.map((t, i) => (i === 0
    ? { ...t, parameterAssignments: t.parameterAssignments.slice(1) } : t)), spec);
  assert.equal(partial, 2);
  assert.equal(sliceOption(withMomentum, conditional).points, 3 * 2 + 2);
});

test('learning curves cut early-stopped trials with a marker', () => {
  const obs = (k) => [...Array(k).keys()].map((i) => ({ step: i + 1, metrics: { loss: 1 / (i + 1) } }));
  const curves = new Map([['e-1', obs(5)], ['e-3', obs(2)], ['e-4', obs(3)]]);
  const byName = new Map(trials.map((t) => [t.name, t]));
  const { option, points } = curvesOption(curves, byName, 'loss');
  assert.equal(points, 10);
  const cut = option.series.find((s) => s.type === 'scatter' && s.name === 'early-stopped');
  assert.deepEqual(cut.data, [{ name: 'e-3', value: [2, 0.5] }]);
  const early = option.series.find((s) => s.type === 'lines' && s.name === 'early-stopped');
  assert.equal(early.lineStyle.type, 'dashed');
  assert.equal(option.series.find((s) => s.name === 'running').data[0].name, 'e-4');
  assert.equal(curvesOption(curves, byName, 'loss', { logY: true }).option.yAxis.type, 'log');
});

test('slices draw one scatter per parameter', () => {
  const { option, points } = sliceOption(trials, spec);
  assert.equal(points, 6);
  assert.equal(option.grid.length, 2);
  assert.deepEqual(option.xAxis.map((a) => a.type), ['log', 'category']);
});

test('a trial curve has one line per metric', () => {
  const { points, option } = trialCurveOption([{ step: 1, metrics: { loss: 1, acc: 0.5 } }, { step: 2, metrics: { loss: 0.5 } }], ['loss', 'acc']);
  assert.equal(points, 3);
  assert.equal(option.series.length, 2);
});
