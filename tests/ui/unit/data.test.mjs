// Unit tests of the dashboard's pure modules (ui/src/data.js, charts.js,
// yaml.js, api.js's problem splitter), run in node without a browser.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  axisValue, filterTrials, history, objectiveOf, paramAxis, pickCurveTrials, pool, sortTrials,
} from '../../../ui/src/data.js';

const spec = {
  objective: { type: 'minimize', objectiveMetricName: 'loss', additionalMetricNames: ['acc'] },
  parameters: [
    { name: 'x', parameterType: 'double', feasibleSpace: { min: '-5', max: '10' } },
    { name: 'lr', parameterType: 'double', feasibleSpace: { min: '1e-5', max: '1e-1', distribution: 'logUniform' } },
    { name: 'batch', parameterType: 'discrete', feasibleSpace: { list: ['64', '16', '32'] } },
    { name: 'opt', parameterType: 'categorical', feasibleSpace: { list: ['sgd', 'adam'] } },
  ],
};

// A trial as the server sends it: index and objectiveValue computed there.
function trial(n, loss, phase = 'Succeeded', extra = {}) {
  return {
    name: `e-${n}`,
    index: n,
    phase,
    parameterAssignments: [{ name: 'x', value: String(n) }, { name: 'opt', value: n % 2 ? 'sgd' : 'adam' }],
    metrics: loss === undefined ? [] : [{ name: 'loss', min: loss - 1, max: loss + 1, latest: loss }],
    objectiveValue: loss === undefined ? null : loss,
    ...extra,
  };
}

test('objective is the server\'s objectiveValue, undefined until reported', () => {
  // A metricStrategies min: the server sends the min, not the latest.
  assert.equal(objectiveOf(trial(1, 5, 'Succeeded', { objectiveValue: 4 })), 4);
  assert.equal(objectiveOf(trial(1, 5)), 5);
  assert.equal(objectiveOf(trial(2)), undefined);
  assert.equal(objectiveOf({ name: 'old' }), undefined);
});

test('history orders trials by index and tracks the best so far', () => {
  const trials = [trial(10, 1), trial(2, 5), trial(9, 7), trial(3), trial(1, 6)];
  const h = history(trials, spec);
  assert.deepEqual(h.points.map((p) => p.x), [1, 2, 9, 10]);
  assert.deepEqual(h.best, [[1, 6], [2, 5], [9, 5], [10, 1]]);
  const max = history(trials, { ...spec, objective: { ...spec.objective, type: 'maximize' } });
  assert.deepEqual(max.best.map((b) => b[1]), [6, 6, 7, 7]);
  // A running (or killed) trial is drawn, but the best-so-far line, like
  // the server's best trial, counts only Succeeded and EarlyStopped ones.
  const mixed = history([trial(1, 5), trial(2, 1, 'Running'), trial(3, 2, 'Killed'), trial(4, 3, 'EarlyStopped')], spec);
  assert.equal(mixed.points.length, 4);
  assert.deepEqual(mixed.best, [[1, 5], [4, 3]]);
  // An infeasible trial (a constraint value above 0) is drawn but never the best.
  const constrained = history([trial(1, 5, 'Succeeded', { feasible: true }),
    trial(2, 1, 'Succeeded', { feasible: false }), trial(3, 4)], spec);
  assert.equal(constrained.points.length, 3);
  assert.deepEqual(constrained.best, [[1, 5], [3, 4]]);
  // The index, not the name, gives the order and the x.
  const renamed = history([trial(2, 1, 'Succeeded', { name: 'b' }), trial(1, 3, 'Succeeded', { name: 'z-9' })], spec);
  assert.deepEqual(renamed.points.map((p) => [p.name, p.x]), [['z-9', 1], ['b', 2]]);
});

test('axes: log for logUniform, categories for categorical and sorted discrete', () => {
  assert.deepEqual(paramAxis(spec.parameters[0]), { kind: 'value' });
  assert.deepEqual(paramAxis(spec.parameters[1]), { kind: 'log' });
  assert.deepEqual(paramAxis(spec.parameters[2]), { kind: 'category', categories: ['16', '32', '64'] });
  assert.deepEqual(paramAxis(spec.parameters[3]), { kind: 'category', categories: ['sgd', 'adam'] });
});

test('categorical choices of any JSON scalar are drawn as the text trials carry', () => {
  const mixed = { name: 'm', parameterType: 'categorical', feasibleSpace: { list: [null, true, 1, 'a', 0.0001] } };
  const axis = paramAxis(mixed);
  assert.deepEqual(axis, { kind: 'category', categories: ['null', 'true', '1', 'a', '0.0001'] });
  assert.equal(axisValue(axis, 'null'), 'null');
  assert.equal(axisValue(axis, 'true'), 'true');
  assert.equal(axisValue(axis, '1e-04'), '0.0001');  // the server's spelling of 0.0001
  const rates = paramAxis({ name: 'r', parameterType: 'discrete', feasibleSpace: { list: [10, 0.1, 1] } });
  assert.deepEqual(rates.categories, ['0.1', '1', '10']);
});

test('sorting puts missing values last in both directions', () => {
  const trials = [trial(1, 3), trial(2), trial(3, 1), trial(10, 2)];
  assert.deepEqual(sortTrials(trials, 'objective', 'asc').map((t) => t.name), ['e-3', 'e-10', 'e-1', 'e-2']);
  assert.deepEqual(sortTrials(trials, 'objective', 'desc').map((t) => t.name), ['e-1', 'e-10', 'e-3', 'e-2']);
  assert.deepEqual(sortTrials(trials, 'name', 'asc').map((t) => t.name), ['e-1', 'e-2', 'e-3', 'e-10']);
  assert.deepEqual(sortTrials(trials, 'name', 'desc').map((t) => t.name), ['e-10', 'e-3', 'e-2', 'e-1']);
  assert.deepEqual(sortTrials(trials, 'p:opt', 'asc').map((t) => t.name), ['e-2', 'e-10', 'e-1', 'e-3']);
});

test('filter matches name and param=value words, and phase', () => {
  const trials = [trial(1, 1), trial(2, 2, 'Running'), trial(12, 3)];
  assert.deepEqual(filterTrials(trials, 'opt=adam', '').map((t) => t.name), ['e-2', 'e-12']);
  assert.deepEqual(filterTrials(trials, 'e-1 sgd', '').map((t) => t.name), ['e-1']);
  assert.deepEqual(filterTrials(trials, '', 'Running').map((t) => t.name), ['e-2']);
});

test('curve trials: all when few, else running then best then latest', () => {
  const trials = [trial(1, 9), trial(2, 1), trial(3, 5), trial(4, undefined, 'Running'), trial(5, 8), trial(6, 7)];
  assert.equal(pickCurveTrials(trials, spec, 10).length, 6);
  assert.deepEqual(pickCurveTrials(trials, spec, 3), ['e-2', 'e-3', 'e-4']);
  assert.deepEqual(pickCurveTrials(trials, spec, 5), ['e-2', 'e-3', 'e-4', 'e-5', 'e-6']);
});

test('pool keeps at most `limit` calls in flight and keeps order', async () => {
  let inFlight = 0;
  let most = 0;
  const out = await pool([...Array(20).keys()], 4, async (i) => {
    most = Math.max(most, ++inFlight);
    await new Promise((r) => setTimeout(r, 2));
    --inFlight;
    if (i === 7) throw new Error('seven');
    return i * 2;
  });
  assert.equal(most, 4);
  assert.equal(out[3], 6);
  assert.equal(out[7].message, 'seven');
});
