// Unit tests of the pure parts of the first-week views (issue #14): range
// filters and the Why text (data.js), CSV export (csv.js), the comparison
// route and table (comparison.js), importance and contour charts, and the
// history chart's marks for trials without a value.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { historyOption } from '../../../ui/src/charts.js';
import {
  compareCurvesOption, compareHref, compareRows, compareTrials,
} from '../../../ui/src/comparison.js';
import { contourOption, defaultPair } from '../../../ui/src/contour.js';
import { csvCell, csvFileName, toCsv, trialsCsv } from '../../../ui/src/csv.js';
import { filterRanges, parseBound, sortTrials, whyOf } from '../../../ui/src/data.js';
import { formatShare, importanceNote, importanceOption, importanceTitle } from '../../../ui/src/importance.js';

const spec = {
  objective: { type: 'minimize', objectiveMetricName: 'loss', additionalMetricNames: ['acc'] },
  parameters: [
    { name: 'x', parameterType: 'double', feasibleSpace: { min: '-5', max: '10' } },
    { name: 'lr', parameterType: 'double', feasibleSpace: { min: '1e-5', max: '1e-1', distribution: 'logUniform' } },
    { name: 'opt', parameterType: 'categorical', feasibleSpace: { list: ['sgd', 'adam'] } },
  ],
};

function trial(n, loss, phase = 'Succeeded', extra = {}) {
  return {
    name: `e-${n}`,
    index: n,
    phase,
    parameterAssignments: [
      { name: 'x', value: String(n - 3) }, { name: 'lr', value: String(10 ** -n) }, { name: 'opt', value: n % 2 ? 'sgd' : 'adam' },
    ],
    metrics: loss === undefined ? [] : [{ name: 'loss', min: loss, max: loss, latest: loss }, { name: 'acc', min: 0, max: 1, latest: 1 - loss }],
    objectiveValue: loss === undefined ? null : loss,
    ...extra,
  };
}

const trials = [
  trial(1, 0.9), trial(2, 0.5), trial(3, 0.2, 'EarlyStopped'), trial(4, 0.7),
  trial(5, undefined, 'Failed', { reason: 'ExitCode', message: "Traceback:\n  ...\npython3: can't open file '/opt/x.py'\n" }),
  trial(6, undefined, 'Running'),
];

test('range filters keep trials inside every bound, inclusive', () => {
  const names = (ts) => ts.map((t) => t.name);
  assert.deepEqual(names(filterRanges(trials, [])), names(trials));
  assert.deepEqual(names(filterRanges(trials, [{ key: 'p:x', min: 0, max: 1 }])), ['e-3', 'e-4']);
  assert.deepEqual(names(filterRanges(trials, [{ key: 'objective', max: 0.5 }])), ['e-2', 'e-3']);
  // Trials without a value fail a bounded range; an unbounded one is ignored.
  assert.deepEqual(names(filterRanges(trials, [{ key: 'm:acc', min: 0.4 }, { key: 'p:x' }])), ['e-2', 'e-3']);
  assert.deepEqual(names(filterRanges(trials, [{ key: 'p:x', min: -1 }, { key: 'objective', min: 0.6 }])), ['e-4']);
  assert.equal(parseBound(''), undefined);
  assert.equal(parseBound('  '), undefined);
  assert.equal(parseBound('abc'), undefined);
  assert.equal(parseBound('-0.5'), -0.5);
  assert.equal(parseBound('1e-3'), 0.001);
});

test('why: the reason and the message\'s last line, shortened', () => {
  const w = whyOf(trials[4]);
  assert.equal(w.short, "ExitCode: python3: can't open file '/opt/x.py'");
  assert.match(w.full, /^ExitCode: Traceback:/);
  assert.equal(whyOf(trials[0]), undefined);
  assert.equal(whyOf({ reason: 'Killed' }).short, 'Killed');
  const long = whyOf({ reason: 'ExitCode', message: 'x'.repeat(200) }, 40);
  assert.equal(long.short.length, 40);
  assert.ok(long.short.endsWith('…'));
  assert.deepEqual(sortTrials(trials, 'why', 'asc').map((t) => t.name)[0], 'e-5');
});

test('csv cells follow RFC 4180 and defuse formulas', () => {
  assert.equal(csvCell('plain'), 'plain');
  assert.equal(csvCell('a,b'), '"a,b"');
  assert.equal(csvCell('say "hi"'), '"say ""hi"""');
  assert.equal(csvCell('two\nlines'), '"two\nlines"');
  assert.equal(csvCell('=1+2'), "'=1+2");
  assert.equal(csvCell('+cmd'), "'+cmd");
  assert.equal(csvCell('-2+3'), "'-2+3");
  assert.equal(csvCell('@SUM(A1)'), "'@SUM(A1)");
  assert.equal(csvCell('=HYPERLINK("http://x","y")'), '"\'=HYPERLINK(""http://x"",""y"")"');
  // Plain numbers keep their sign.
  assert.equal(csvCell(-0.5), '-0.5');
  assert.equal(csvCell('-1e-3'), '-1e-3');
  assert.equal(csvCell('+3'), '+3');
  assert.equal(csvCell(undefined), '');
  assert.equal(toCsv([['a', 'b'], ['1', '2']]), 'a,b\r\n1,2\r\n');
  assert.equal(csvFileName('my exp/1'), 'my-exp-1-trials.csv');
});

test('the trials csv has a header and one row per trial', () => {
  const csv = trialsCsv(spec, trials);
  const lines = csv.split('\r\n');
  assert.equal(lines[0], 'name,phase,x,lr,opt,loss,acc,reason,message');
  assert.equal(lines[1], 'e-1,Succeeded,-2,0.1,sgd,0.9,0.09999999999999998,,');
  assert.ok(lines.some((l) => /^e-5,Failed,2,[^,]+,sgd,,,ExitCode,"Traceback:/.test(l)));
  assert.equal(csv.match(/^e-\d/gm).length, trials.length);
});

test('the compare route keeps names, commas and all', () => {
  const href = compareHref('my exp', ['a', 'b,c', 'd']);
  assert.equal(href, '#/experiments/my%20exp/compare?trials=a,b%2Cc,d');
  assert.deepEqual(compareTrials(href.split('?')[1]), ['a', 'b,c', 'd']);
  assert.deepEqual(compareTrials('trials=a,a,b,c,d,e,f,g'), ['a', 'b', 'c', 'd', 'e']);
  assert.deepEqual(compareTrials(''), []);
  assert.deepEqual(compareTrials('x=1&trials=%E0%A4%A,b'), ['%E0%A4%A', 'b']);
});

test('the compare table has a column per trial and a curve each', () => {
  const rows = compareRows(spec, [trials[0], trials[4]]);
  assert.deepEqual(rows.map(([label, kind]) => `${kind}:${label}`),
    ['phase:phase', 'param:x', 'param:lr', 'param:opt', 'objective:loss', 'metric:acc', 'why:why']);
  assert.deepEqual(rows[4][2], [0.9, undefined]);
  assert.deepEqual(rows[6][2], ['', "ExitCode: python3: can't open file '/opt/x.py'"]);
  const curves = new Map([['e-1', [{ step: 1, metrics: { loss: 2 } }, { step: 2, metrics: { loss: 1 } }]], ['e-2', []]]);
  const { points, option } = compareCurvesOption(curves, ['e-1', 'e-2'], 'loss');
  assert.equal(points, 2);
  assert.deepEqual(option.series.map((s) => s.name), ['e-1', 'e-2']);
});

test('importance bars: the first parameter on top, the method in the title', () => {
  const result = {
    method: 'gp', metric: 'loss', trials: 12,
    parameters: [{ name: 'x', importance: 0.7, lengthScale: 0.2 }, { name: 'opt', importance: 0.3, lengthScale: 0.9 }],
  };
  const { points, option } = importanceOption(result);
  assert.equal(points, 2);
  assert.deepEqual(option.yAxis.data, ['opt', 'x']);
  assert.deepEqual(option.series[0].data, [0.3, 0.7]);
  assert.match(option.tooltip.formatter({ dataIndex: 1 }), /^x: 70\.0%<br>length-scale 0\.200/);
  assert.equal(importanceTitle(result), "Parameter importance — from the GP's fitted length-scales (12 trials)");
  assert.equal(importanceTitle({ ...result, method: 'fanova' }), 'Parameter importance — fANOVA (random forest) (12 trials)');
  const empty = importanceOption({ method: 'fanova', trials: 2, parameters: [], note: 'needs 4' });
  assert.equal(empty.points, 0);
  assert.equal(empty.empty, 'needs 4');
  assert.deepEqual(defaultPair(spec, result), ['x', 'opt']);
  assert.deepEqual(defaultPair(spec, null), ['x', 'lr']);
});

test('importance shares: never 0.0% for a parameter that matters', () => {
  assert.equal(formatShare(0.41), '41.0%');
  assert.equal(formatShare(0.0012), '0.1%');
  assert.equal(formatShare(0.0001), '<0.1%');
  assert.equal(formatShare(1e-12), '<0.1%');
  assert.equal(formatShare(0), '0%');
});

test('importance bars: fANOVA shows its spread, a GP its fANOVA check', () => {
  const fanova = {
    method: 'fanova', metric: 'loss', trials: 42, mainEffects: 0.8,
    parameters: [{ name: 'subsample', importance: 0.41, stddev: 0.12 },
      { name: '<b>lr</b>', importance: 0.5899, stddev: 0.1 }, { name: 'depth', importance: 0.0001, stddev: 0.0002 }],
  };
  const { option } = importanceOption(fanova);
  const label = (i) => option.series[0].label.formatter({ dataIndex: i, value: option.series[0].data[i] });
  assert.equal(label(2), '41.0% ± 12.0%');
  assert.equal(label(0), '<0.1% ± <0.1%');
  const tipText = option.tooltip.formatter({ dataIndex: 1 });
  assert.match(tipText, /^&lt;b&gt;lr&lt;\/b&gt;: 59\.0% ± 10\.0%<br>± spread over the forest's trees$/);
  assert.match(importanceNote(fanova), /main effects explain 80\.0% of the variance/);

  const gp = {
    method: 'gp', metric: 'loss', trials: 42, note: 'the GP and fANOVA disagree on subsample',
    parameters: [{ name: 'depth', importance: 0.91, lengthScale: 0.1 }, { name: 'subsample', importance: 0.0, lengthScale: 50 }],
    fanova: { agrees: false, parameters: [{ name: 'subsample', importance: 0.6, stddev: 0.1 }, { name: 'depth', importance: 0.4, stddev: 0.1 }] },
  };
  const g = importanceOption(gp).option;
  assert.equal(g.series[0].label.formatter({ dataIndex: 0 }), '0%');
  assert.match(g.tooltip.formatter({ dataIndex: 0 }), /^subsample: 0%<br>length-scale 50\.0 \(unit cube\)<br>fANOVA: 60\.0% ± 10\.0%$/);
  assert.equal(importanceNote(gp), 'the GP and fANOVA disagree on subsample');
  assert.match(importanceNote({ ...gp, note: '', fanova: { ...gp.fanova, agrees: true } }), /^fANOVA ranks these trials alike/);
});

test('contour: ranked trials at two parameters, coloured by the objective', () => {
  const { points, option } = contourOption(trials, spec, 'x', 'opt');
  assert.equal(points, 4);
  assert.equal(option.xAxis.type, 'value');
  assert.equal(option.yAxis.type, 'category');
  assert.deepEqual(option.series[0].data[0], [-2, 'sgd', 0.9]);
  assert.deepEqual(option.series[1].data, [[0, 'sgd', 0.2]]);
  assert.equal(option.visualMap.min, 0.2);
  assert.equal(contourOption(trials, spec, 'lr', 'x').option.xAxis.type, 'log');
  const tipText = option.series[0].tooltip.formatter({ dataIndex: 0, value: ['<b>', 'sgd', 0.9] });
  assert.match(tipText, /x = &lt;b&gt;/);
});

test('history marks failed trials without a value along the bottom edge', () => {
  const { points, option } = historyOption(trials, spec);
  assert.equal(points, 5);
  const failed = option.series.find((s) => s.name === 'Failed (no value)');
  assert.equal(failed.yAxisIndex, 1);
  assert.deepEqual(failed.data, [[5, 0.03]]);
  assert.equal(option.series.find((s) => s.name === 'EarlyStopped').symbol, 'diamond');
  assert.equal(option.yAxis[1].min, 0);
  assert.equal(option.yAxis[1].max, 1);
});
