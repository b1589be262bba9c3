// The experiment page's text parts: header, spec summary with its YAML,
// the best trial and the warnings, each as html`...` for setHtml.
import { badge, href, num, time } from '../format.js';
import { html } from '../html.js';
import { toYaml } from '../yaml.js';

const ACTIVE = new Set(['Created', 'Running']);

function settings(list) {
  return (list || []).map((s) => `${s.name}=${s.value}`).join(', ');
}

function space(p) {
  const fs = p.feasibleSpace || {};
  if (fs.list) return fs.list.join(', ');
  const parts = [`${fs.min ?? ''} … ${fs.max ?? ''}`];
  if (fs.step) parts.push(`step ${fs.step}`);
  if (fs.distribution) parts.push(fs.distribution);
  return parts.join(' · ');
}

// `writable`: with Stop and Delete (not for a viewer).
export function headHtml(x, writable) {
  const s = x.status;
  return html`
    <div class="page-head">
      <h1><a href="${href()}" class="muted">Experiments</a> / ${x.name}</h1>
      ${badge(s.phase)}
      ${s.reason && html`<span class="muted">${s.reason}</span>`}
      <span class="spacer"></span>
      ${writable && ACTIVE.has(s.phase) && html`<button id="stop-experiment">Stop</button>`}
      ${writable && html`<button id="delete-experiment" class="danger">Delete</button>`}
    </div>
    ${s.message && html`<p class="muted">${s.message}</p>`}`;
}

export function summaryHtml(x) {
  const spec = x.spec;
  const s = x.status;
  const c = s.trials || {};
  const o = spec.objective;
  const counts = [['running', c.running], ['pending', c.pending], ['succeeded', c.succeeded],
    ['failed', c.failed], ['early-stopped', c.earlyStopped], ['metrics unavailable', c.metricsUnavailable],
    ['killed', c.killed]].filter(([, n]) => n).map(([k, n]) => `${n} ${k}`).join(', ');
  const tt = spec.trialTemplate;
  const es = spec.earlyStopping;
  const objectives = o.objectives || [];
  const also = (o.additionalMetricNames || []).filter((m) => !objectives.some((x) => x.objectiveMetricName === m));
  const extra = [c.imported && `${c.imported} imported`, s.queuedTrials && `${s.queuedTrials} queued`].filter(Boolean).join(', ');
  const algorithm = (a) => html`${a.algorithmName}${a.algorithmSettings?.length ? ` (${settings(a.algorithmSettings)})` : ''}`;
  return html`
    <dl class="facts">
      ${objectives.length > 1
    ? html`<dt>Objectives</dt><dd id="objectives">${objectives.map((x, i) => html`${i ? ' · ' : ''}${x.type} <b>${x.objectiveMetricName}</b>`)} <span class="muted">(Pareto front)</span>`
    : html`<dt>Objective</dt><dd>${o.type} <b>${o.objectiveMetricName}</b>${o.goal !== undefined && ` · goal ${num(o.goal)}`}`}
        ${also.length > 0 && ` · also ${also.join(', ')}`}</dd>
      <dt>Algorithm</dt><dd>${algorithm(spec.algorithm)}</dd>
      ${es && html`<dt>Early stopping</dt><dd>${algorithm(es)}</dd>`}
      <dt>Budget</dt><dd>${spec.maxTrialCount} trials, ${spec.parallelTrialCount} in parallel, ${spec.maxFailedTrialCount} failures allowed</dd>
      <dt>Trials</dt><dd id="trial-counts">${c.total || 0} so far${counts && `: ${counts}`}${extra && ` (${extra})`}</dd>
      <dt>Trials run by</dt><dd>${tt ? html`the server: <code class="clamp" title="${tt.command.join(' ')}">${tt.command.join(' ')}</code>` : 'clients (ask/tell over the API)'}</dd>
      ${Object.keys(x.userAttrs || {}).length > 0 && html`<dt>User attributes</dt><dd id="exp-user-attrs">${Object.entries(x.userAttrs).map(([k, v], i) =>
    html`${i ? ', ' : ''}${k}=<code>${typeof v === 'string' ? v : JSON.stringify(v)}</code>`)}</dd>`}
      <dt>Created</dt><dd>${time(s.creationTime)}</dd>
      <dt>Started</dt><dd>${time(s.startTime)}</dd>
      <dt>Completed</dt><dd>${time(s.completionTime)}</dd>
    </dl>`;
}

export function paramsHtml(spec) {
  return html`
    <table class="grid compact">
      <thead><tr><th>Parameter</th><th>Type</th><th>Feasible space</th></tr></thead>
      <tbody>${spec.parameters.map((p) => html`<tr><td>${p.name}</td><td>${p.parameterType}</td><td>${space(p)}</td></tr>`)}</tbody>
    </table>
    <details id="spec-yaml"><summary>Spec as YAML</summary><pre class="code">${toYaml(spec)}</pre></details>`;
}

export function bestHtml(x) {
  const b = x.status.currentOptimalTrial;
  if (!b) return html`<p class="muted">No trial has reported the objective yet.</p>`;
  return html`
    ${x.spec.objective.objectives?.length > 1 && html`<p class="muted small">By the first objective; ${(x.status.paretoFront || []).length} trials on the Pareto front.</p>`}
    <p class="best-value"><span class="muted">${x.spec.objective.objectiveMetricName}</span>
      <b id="best-objective">${num(b.objectiveValue)}</b></p>
    <p><a href="${href('experiments', x.name, 'trials', b.name)}">${b.name}</a></p>
    <table class="grid compact"><tbody>${(b.parameterAssignments || []).map((a) =>
      html`<tr><td>${a.name}</td><td class="num">${a.value}</td></tr>`)}</tbody></table>`;
}

// status.warnings as a banner (e.g. trials that did not report the
// objective metric, and the name they printed instead); nothing without.
export function warningsHtml(x) {
  const warnings = x.status.warnings || [];
  return html`${warnings.map((w) => html`
    <div class="warn-box exp-warning" role="alert" data-reason="${w.reason}">
      <b>Warning:</b> ${w.message}
      ${w.trial && html` <a href="${href('experiments', x.name, 'trials', w.trial)}">${w.trial}</a>`}
    </div>`)}`;
}
