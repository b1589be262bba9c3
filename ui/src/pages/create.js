// Creating an experiment in the chosen namespace: paste or upload a YAML
// (or JSON) spec; the server validates it and a 400's problems are listed
// with their field paths. A viewer gets a line saying why there is no form.
import { ApiError, api, problems } from '../api.js';
import { href } from '../format.js';
import { html, setHtml } from '../html.js';
import { currentNamespace } from '../namespace.js';

export const id = 'create';

const EXAMPLE = `name: my-experiment
objective: {type: minimize, objectiveMetricName: loss}
algorithm: {algorithmName: random, algorithmSettings: [{name: random_state, value: "7"}]}
parallelTrialCount: 2
maxTrialCount: 10
parameters:
  - {name: x, parameterType: double, feasibleSpace: {min: "-5", max: "10"}}
  - {name: lr, parameterType: double, feasibleSpace: {min: "1e-4", max: "1e-1", distribution: logUniform}}
  - {name: opt, parameterType: categorical, feasibleSpace: {list: [sgd, adam]}}
trialTemplate:
  command: [sh, -c, 'for i in 1 2 3 4 5; do echo "step=$i loss=$(awk "BEGIN{print (\${trialParameters.x}-2)^2/$i}")"; sleep 0.5; done']
  trialParameters: [{name: x, reference: x}]
`;

export async function render(root, ctx) {
  const head = html`<div class="page-head"><h1><a href="${href()}" class="muted">Experiments</a> / New experiment</h1></div>`;
  if (!ctx.writable) {
    setHtml(root, html`${head}<p class="warn-box" id="read-only">You may read namespace <b>${currentNamespace()}</b>,
      not create experiments in it.</p>`);
    root.dataset.loaded = '1';
    return;
  }
  setHtml(root, html`
    ${head}
    <form id="create-form" class="card">
      <p class="muted">Paste a spec (YAML or JSON, Katib's field names) or load a file; the experiment goes into
        namespace <b id="create-namespace">${currentNamespace()}</b>. The server checks it and lists every problem with its field path.</p>
      <div class="table-controls">
        <label class="button secondary small">Load file… <input type="file" id="spec-file" accept=".yaml,.yml,.json,text/yaml,application/json" hidden></label>
        <span class="muted small" id="spec-file-name"></span>
      </div>
      <textarea id="spec-text" spellcheck="false" rows="20"></textarea>
      <div id="create-errors"></div>
      <div class="buttons"><button type="submit" id="create-submit">Create experiment</button></div>
    </form>`);
  const text = root.querySelector('#spec-text');
  const errors = root.querySelector('#create-errors');
  text.value = EXAMPLE;
  root.dataset.loaded = '1';
  const load = async (file) => {
    text.value = await file.text();
    root.querySelector('#spec-file-name').textContent = file.name;
    errors.replaceChildren();
  };
  root.querySelector('#spec-file').onchange = (e) => e.target.files[0] && load(e.target.files[0]);
  text.addEventListener('dragover', (e) => e.preventDefault());
  text.addEventListener('drop', (e) => {
    e.preventDefault();
    if (e.dataTransfer.files[0]) load(e.dataTransfer.files[0]);
  });
  root.querySelector('#create-form').onsubmit = async (e) => {
    e.preventDefault();
    const button = root.querySelector('#create-submit');
    button.disabled = true;
    errors.replaceChildren();
    try {
      const created = await api.create(text.value);
      location.hash = href('experiments', created.name);
    } catch (err) {
      const list = err instanceof ApiError && err.status === 400 ? problems(err.message) : [{ path: '', message: err.message }];
      const title = err instanceof ApiError && err.status === 400 ? 'The spec has problems'
        : err instanceof ApiError && err.status === 409 ? 'Name taken' : 'Could not create the experiment';
      setHtml(errors, html`<div class="error-box" role="alert"><b>${title}</b><ul>${list.map((p) =>
        html`<li>${p.path && html`<code class="field-path">${p.path}</code>: `}${p.message}</li>`)}</ul></div>`);
    } finally {
      button.disabled = false;
    }
  };
}
