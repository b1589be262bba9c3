// Escaping by construction (issue #10): html`...` escapes what it is given,
// nothing but it writes innerHTML, and every chart tooltip escapes names
// and values. tests/ui/xss.mjs checks the same in the browser.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import {
  curvesOption, historyOption, parallelOption, sliceOption, trialCurveOption,
} from '../../../ui/src/charts.js';
import { logView } from '../../../ui/src/data.js';
import { badge, bytes } from '../../../ui/src/format.js';
import { SafeHtml, html, setHtml } from '../../../ui/src/html.js';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../ui/src');
const X = `<img src=x onerror="alert(1)">'"\`&`;

test('html escapes every interpolated value', () => {
  assert.equal(String(html`<b title="${X}">${X}</b>`),
    '<b title="&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&quot;&#96;&amp;">' +
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&quot;&#96;&amp;</b>');
  assert.equal(String(html`<i>${html`<b>${X}</b>`}</i>`), '<i><b>&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&quot;&#96;&amp;</b></i>');
  assert.equal(String(html`${['<a>', html`<br>`, 2]}`), '&lt;a&gt;<br>2');
  assert.equal(String(html`[${null}${undefined}${false}${0}${''}]`), '[0]');
  assert.equal(String(badge('<x>')), '<span class="badge phase-&lt;x&gt;">&lt;x&gt;</span>');
});

test('only html makes markup, and only markup goes into innerHTML', () => {
  assert.throws(() => new SafeHtml(undefined, '<img>'), TypeError);
  const el = { innerHTML: '' };
  assert.throws(() => setHtml(el, '<img src=x onerror=alert(1)>'), TypeError);
  assert.throws(() => setHtml(el, { markup: '<img>' }), TypeError);
  setHtml(el, html`<p>${X}</p>`);
  assert.ok(!el.innerHTML.includes('<img'));
});

test('no module but html.js writes HTML from strings', () => {
  const files = fs.readdirSync(src, { recursive: true }).filter((f) => f.endsWith('.js'));
  assert.ok(files.length > 10);
  for (const f of files) {
    const text = fs.readFileSync(path.join(src, f), 'utf8');
    if (f !== 'html.js') {
      assert.doesNotMatch(text, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser/, `${f} writes HTML itself`);
    }
    // Attribute values are quoted (escaping protects only quoted ones) and
    // links are built by href() or hrefIn(), which make in-app '#/...'
    // routes only.
    assert.doesNotMatch(text, /<[^<>`]*[\w-]=\$\{/, `${f} interpolates into an unquoted attribute`);
    for (const m of text.matchAll(/(href|src|action)="\$\{([^}]*)/g)) {
      assert.match(m[2], /^href(In)?\(/, `${f}: ${m[0]} is not built by href()`);
    }
  }
});

// Every user-given string in the specs and trials below is a payload,
// including the names the server now refuses (a dashboard must not depend
// on that).
const spec = {
  objective: { type: 'minimize', objectiveMetricName: `m${X}`, additionalMetricNames: [`a${X}`], goal: 0.5 },
  parameters: [
    { name: `p${X}`, parameterType: 'categorical', feasibleSpace: { list: [`v${X}`, 'plain'] } },
    { name: `q${X}`, parameterType: 'double', feasibleSpace: { min: '0', max: '1' } },
  ],
};
const trials = [1, 2, 3, 4].map((n) => ({
  name: `t${X}-${n}`,
  phase: ['Succeeded', 'EarlyStopped', 'Failed', 'Succeeded'][n - 1],
  parameterAssignments: [{ name: `p${X}`, value: n % 2 ? `v${X}` : 'plain' }, { name: `q${X}`, value: String(n / 10) }],
  metrics: [{ name: `m${X}`, min: 0, max: 1, latest: 1 / n }],
  index: n,
  objectiveValue: 1 / n,
}));
const observations = [1, 2, 3].map((step) => ({ step, metrics: { [`m${X}`]: 1 / step, [`a${X}`]: step } }));
const byName = new Map(trials.map((t) => [t.name, t]));
const plots = {
  history: historyOption(trials, spec),
  parallel: parallelOption(trials, spec),
  slices: sliceOption(trials, spec),
  curves: curvesOption(new Map(trials.map((t) => [t.name, observations])), byName, `m${X}`),
  trial: trialCurveOption(observations, [`m${X}`, `a${X}`]),
};

function* formatters(value, where) {
  if (!value || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value)) {
    if (k === 'formatter') yield [where, v];
    else yield* formatters(v, `${where}.${k}`);
  }
}

// What ECharts hands a tooltip formatter for data item `di` of series `si`.
function params(series, si, di) {
  const item = series.data[di];
  return {
    seriesIndex: si, dataIndex: di, seriesType: series.type, seriesName: series.name, color: '#123456',
    name: item.name ?? '', value: Array.isArray(item) ? item : item.value ?? item.coords?.[0],
  };
}

test('chart formatters are functions, and tooltips show names as text', () => {
  for (const [plot, { option }] of Object.entries(plots)) {
    for (const [where, f] of formatters(option, plot)) {
      assert.equal(typeof f, 'function', `${where} is an ECharts string template, which does not escape`);
    }
    if (!option.tooltip) continue;
    let calls = 0;
    option.series.forEach((s, si) => {
      if (s.silent || s.tooltip?.show === false) return;
      const f = s.tooltip?.formatter ?? option.tooltip.formatter;
      assert.equal(typeof f, 'function', `${plot} series ${si} (${s.name}) would use ECharts' default tooltip`);
      for (let di = 0; di < s.data.length; ++di) {
        const p = params(s, si, di);
        const out = f(option.tooltip.trigger === 'axis' ? [p] : p);
        calls += 1;
        // Markup only from the source: line breaks and the colour dot.
        const tags = (out.match(/<[^>]*>/g) || []).filter((t) => !/^<(br|\/span|span class="tip-dot" style="[^"<>]*")>$/.test(t));
        assert.deepEqual(tags, [], `${plot} series ${si} item ${di}: ${out}`);
      }
    });
    assert.ok(calls > 0, `${plot}: no tooltip was tried`);
  }
  // The payloads do show, as text.
  const slice = plots.slices.option.series[0];
  assert.match(slice.tooltip.formatter(params(slice, 0, 0)), /v&lt;img src=x onerror=&quot;alert\(1\)&quot;&gt;/);
});

test('the log view says how much of the log it shows', () => {
  assert.deepEqual(logView({ text: 'a\nb\n', bytes: 4, size: 4 }), { text: 'a\nb\n', note: '' });
  assert.deepEqual(logView({ text: '', bytes: 0, size: 0 }), { text: '(empty)', note: '' });
  assert.deepEqual(logView({ text: 'rt of a line\nwhole\n', bytes: 65536, size: 3 * 1024 * 1024 }),
    { text: 'whole\n', note: 'showing the last 64 KiB of 3 MiB' });
  assert.equal(bytes(512), '512 B');
  assert.equal(bytes(65536), '64 KiB');
  assert.equal(bytes(1.5 * 1024 * 1024), '1.5 MiB');
  assert.equal(bytes(150000), '146 KiB');
});
