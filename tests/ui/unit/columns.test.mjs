// The large-experiment helpers (ui/src/columns.js): the server's columns as
// trials for the chart builders, and the table's state as a page query.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { columnsToTrials, pageQuery, serverSortKey } from '../../../ui/src/columns.js';
import { history } from '../../../ui/src/data.js';

const spec = {
  objective: { type: 'minimize', objectiveMetricName: 'loss', additionalMetricNames: ['acc'] },
  parameters: [{ name: 'lr', parameterType: 'double' }, { name: 'opt', parameterType: 'categorical' }],
};

test('columnsToTrials gives trial-shaped rows the history is drawn from', () => {
  const res = {
    rows: 3,
    columns: {
      name: ['e-1', 'e-5', 'e-9'], index: [1, 5, 9], phase: ['Succeeded', 'Failed', 'Succeeded'],
      objective: [0.5, null, 0.2], feasible: [true, true, false], 'p:lr': [0.1, 0.2, null],
      'p:opt': ['adam', 'sgd', 'adam'], 'm:loss': [0.5, null, 0.2],
    },
  };
  const trials = columnsToTrials(res);
  assert.equal(trials.length, 3);
  assert.deepEqual(trials[0].parameterAssignments, [{ name: 'lr', value: '0.1' }, { name: 'opt', value: 'adam' }]);
  assert.deepEqual(trials[2].parameterAssignments, [{ name: 'opt', value: 'adam' }]);
  assert.equal(trials[2].feasible, false);
  assert.equal(trials[0].feasible, undefined);
  assert.deepEqual(trials[0].metrics, [{ name: 'loss', min: 0.5, max: 0.5, latest: 0.5 }]);
  const h = history(trials, spec);
  assert.deepEqual(h.points.map((p) => p.x), [1, 9]);
  assert.deepEqual(h.missing.map((p) => p.name), ['e-5']);
  assert.deepEqual(h.best, [[1, 0.5]]);  // the infeasible e-9 is not a best
});

test('pageQuery maps the table state to the server query', () => {
  const q = pageQuery({
    sort: { key: 'o:0', dir: 'desc' }, text: ' opt=adam ', phase: 'Failed', page: 2, pageSize: 100,
    ranges: [{ key: 'p:lr', min: 0.1 }, { key: 'objective', max: 3 }],
  }, spec);
  assert.equal(q.toString(),
    'limit=100&offset=200&sort=m%3Aloss&order=desc&phase=Failed&filter=opt%3Dadam&min.p%3Alr=0.1&max.objective=3');
  assert.equal(serverSortKey('duration', spec), undefined);
  assert.equal(serverSortKey('why', spec), undefined);
  assert.equal(pageQuery({ sort: { key: 'duration', dir: 'asc' }, page: 0, pageSize: 5 }, spec).toString(), 'limit=5&offset=0');
});
