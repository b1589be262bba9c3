import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  isMultiObjective, metricValue, objectiveValues, objectivesOf, sortTrials,
} from '../../../ui/src/data.js';
import {
  frontLine, hypervolumeNote, hypervolumeOption, objectiveChoices, paretoOption,
} from '../../../ui/src/pareto.js';

const X = '<img src=x onerror=alert(1)>';
const spec = {
  objective: {
    type: 'minimize', objectiveMetricName: 'cost',
    objectives: [{ type: 'minimize', objectiveMetricName: 'cost' }, { type: 'maximize', objectiveMetricName: `acc${X}` }],
    metricStrategies: [{ name: `acc${X}`, value: 'max' }],
  },
  parameters: [{ name: `p${X}`, parameterType: 'categorical', feasibleSpace: { list: [`v${X}`] } }],
};
// cost, acc (max of the curve): 1 and 3 are on the front, 2 is dominated
// by 1, 4 is Running, 5 reported only cost.
const rows = [[1, 1, 0.5], [2, 2, 0.4], [3, 3, 0.9], [4, 0.1, 0.99]];
const trials = rows.map(([n, cost, acc]) => ({
  name: `t${X}-${n}`, index: n, phase: n === 4 ? 'Running' : 'Succeeded',
  parameterAssignments: [{ name: `p${X}`, value: `v${X}` }],
  metrics: [{ name: 'cost', min: cost, max: cost, latest: cost }, { name: `acc${X}`, min: 0, max: acc, latest: acc / 2 }],
  objectiveValue: cost,
}));
trials.push({ name: 't-5', index: 5, phase: 'Succeeded', metrics: [{ name: 'cost', min: 0, max: 0, latest: 0 }], objectiveValue: 0 });
const front = [trials[0].name, trials[2].name];

test('objectives, their values under metricStrategies, and sorting by one', () => {
  assert.deepEqual(objectivesOf(spec), [{ name: 'cost', type: 'minimize' }, { name: `acc${X}`, type: 'maximize' }]);
  assert.equal(isMultiObjective(spec), true);
  assert.equal(isMultiObjective({ objective: { type: 'minimize', objectiveMetricName: 'loss' } }), false);
  assert.deepEqual(objectivesOf({ objective: { type: 'maximize', objectiveMetricName: 'acc' } }), [{ name: 'acc', type: 'maximize' }]);
  assert.equal(metricValue(trials[0], `acc${X}`, spec), 0.5);  // the max, not the latest
  assert.equal(metricValue(trials[0], 'cost', spec), 1);
  assert.deepEqual(objectiveValues(trials[2], spec), [3, 0.9]);
  assert.equal(objectiveValues(trials[4], spec), undefined);
  const sorted = sortTrials(trials, 'o:1', 'desc', spec).map((t) => t.index);
  assert.deepEqual(sorted, [4, 3, 1, 2, 5]);
  assert.deepEqual(objectiveChoices(spec).map((c) => c.label), ['cost ↓', `acc${X} ↑`]);
});

test('the scatter highlights the front and joins it with a step line', () => {
  const { option, points, front: n } = paretoOption(trials, spec, front);
  assert.equal(points, 3);  // Succeeded with every objective
  assert.equal(n, 2);
  const [rest, top, line] = option.series;
  assert.deepEqual(rest.data, [[2, 0.4]]);
  assert.deepEqual(top.data, [[1, 0.5], [3, 0.9]]);
  assert.equal(line.type, 'line');
  assert.equal(line.step, 'end');  // cost is minimised
  assert.equal(option.yAxis.name, `acc${X} ↑`);
  // Swapped axes: x is maximised now.
  const swapped = paretoOption(trials, spec, front, 1, 0).option;
  assert.equal(swapped.series[2].step, 'start');
  assert.deepEqual(swapped.series[2].data, [[0.5, 1], [0.9, 3]]);
  // Three objectives: no line.
  const three = { ...spec, objective: { ...spec.objective, objectives: [...spec.objective.objectives, { type: 'minimize', objectiveMetricName: 'cost2' }] } };
  assert.equal(paretoOption(trials, three, front).option.series.length, 2);
  assert.deepEqual(frontLine([[3, 1], [1, 3], [2, 2]], 'minimize').data, [[1, 3], [2, 2], [3, 1]]);
});

test('the hypervolume curve follows the trials', () => {
  const doc = {
    front: [{ name: 'a' }], reference: [4, 0.3], hypervolume: 1.5,
    hypervolumeCurve: trials.map((t, i) => ({ trial: t.name, hypervolume: i * 0.5 })),
  };
  const { option, points } = hypervolumeOption(doc, trials);
  assert.equal(points, 5);
  assert.deepEqual(option.series[0].data[4], [5, 2]);
  assert.match(hypervolumeNote(doc), /^hypervolume 1.5, dominated from the reference point \(4, 0.3\); 1 trial on the front$/);
  assert.equal(hypervolumeOption({ hypervolumeCurve: null }, trials).points, 0);
  assert.equal(hypervolumeNote({ hypervolume: null }), '');
});

test('tooltips show names, metrics and values as text', () => {
  const plots = [paretoOption(trials, spec, front).option, hypervolumeOption({
    hypervolumeCurve: trials.map((t) => ({ trial: t.name, hypervolume: 1 })),
  }, trials).option];
  let calls = 0;
  for (const option of plots) {
    option.series.forEach((s, si) => {
      if (s.silent || s.tooltip?.show === false) return;
      assert.equal(typeof s.tooltip.formatter, 'function');
      s.data.forEach((value, di) => {
        const out = s.tooltip.formatter({ seriesIndex: si, dataIndex: di, value });
        calls += 1;
        assert.deepEqual((out.match(/<[^>]*>/g) || []).filter((t) => t !== '<br>'), [], out);
        if (si === 0 && option === plots[1] && value[0] === 5) return;  // t-5: a plain name
        assert.ok(out.includes('&lt;img'), out);
      });
    });
  }
  assert.equal(calls, 3 + 5);
});
