// The experiment page's text parts: header, spec summary with its YAML,
// and the best trial.
import { badge, esc, href, num, time } from '../format.js';
import { toYaml } from '../yaml.js';

const ACTIVE = new Set(['Created', 'Running']);

function settings(list) {
  return (list || []).map((s) => `${esc(s.name)}=${esc(s.value)}`).join(', ');
}

function space(p) {
  const fs = p.feasibleSpace || {};
  if (fs.list) return fs.list.map(esc).join(', ');
  const parts = [`${esc(fs.min)} … ${esc(fs.max)}`];
  if (fs.step) parts.push(`step ${esc(fs.step)}`);
  if (fs.distribution) parts.push(esc(fs.distribution));
  return parts.join(' · ');
}

export function headHtml(x) {
  const s = x.status;
  return `
    <div class="page-head">
      <h1><a href="#/" class="muted">Experiments</a> / ${esc(x.name)}</h1>
      ${badge(s.phase)}
      ${s.reason ? `<span class="muted">${esc(s.reason)}</span>` : ''}
      <span class="spacer"></span>
      ${ACTIVE.has(s.phase) ? '<button id="stop-experiment">Stop</button>' : ''}
      <button id="delete-experiment" class="danger">Delete</button>
    </div>
    ${s.message ? `<p class="muted">${esc(s.message)}</p>` : ''}`;
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
  return `
    <dl class="facts">
      <dt>Objective</dt><dd>${esc(o.type)} <b>${esc(o.objectiveMetricName)}</b>${o.goal !== undefined ? ` · goal ${num(o.goal)}` : ''}
        ${(o.additionalMetricNames || []).length ? ` · also ${o.additionalMetricNames.map(esc).join(', ')}` : ''}</dd>
      <dt>Algorithm</dt><dd>${esc(spec.algorithm.algorithmName)}${spec.algorithm.algorithmSettings?.length ? ` (${settings(spec.algorithm.algorithmSettings)})` : ''}</dd>
      ${es ? `<dt>Early stopping</dt><dd>${esc(es.algorithmName)}${es.algorithmSettings?.length ? ` (${settings(es.algorithmSettings)})` : ''}</dd>` : ''}
      <dt>Budget</dt><dd>${spec.maxTrialCount} trials, ${spec.parallelTrialCount} in parallel, ${spec.maxFailedTrialCount} failures allowed</dd>
      <dt>Trials</dt><dd id="trial-counts">${c.total || 0} so far${counts ? `: ${counts}` : ''}</dd>
      <dt>Trials run by</dt><dd>${tt ? `the server: <code class="clamp" title="${esc(tt.command.join(' '))}">${esc(tt.command.join(' '))}</code>` : 'clients (ask/tell over the API)'}</dd>
      <dt>Created</dt><dd>${time(s.creationTime)}</dd>
      <dt>Started</dt><dd>${time(s.startTime)}</dd>
      <dt>Completed</dt><dd>${time(s.completionTime)}</dd>
    </dl>`;
}

export function paramsHtml(spec) {
  return `
    <table class="grid compact">
      <thead><tr><th>Parameter</th><th>Type</th><th>Feasible space</th></tr></thead>
      <tbody>${spec.parameters.map((p) => `<tr><td>${esc(p.name)}</td><td>${esc(p.parameterType)}</td><td>${space(p)}</td></tr>`).join('')}</tbody>
    </table>
    <details id="spec-yaml"><summary>Spec as YAML</summary><pre class="code">${esc(toYaml(spec))}</pre></details>`;
}

export function bestHtml(x) {
  const b = x.status.currentOptimalTrial;
  if (!b) return '<p class="muted">No trial has reported the objective yet.</p>';
  return `
    <p class="best-value"><span class="muted">${esc(x.spec.objective.objectiveMetricName)}</span>
      <b id="best-objective">${num(b.objectiveValue)}</b></p>
    <p><a href="${href('experiments', x.name, 'trials', b.name)}">${esc(b.name)}</a></p>
    <table class="grid compact"><tbody>${(b.parameterAssignments || []).map((a) =>
      `<tr><td>${esc(a.name)}</td><td class="num">${esc(a.value)}</td></tr>`).join('')}</tbody></table>`;
}
