// The REST API v1 client. Every call carries the credential kept in
// sessionStorage (a user's API key, hpt_..., or the server's token: both
// are bearer tokens); a 401 asks for one (once, however many calls are
// waiting) and retries. Experiment calls go to the namespace the dashboard
// shows (namespace.js): /api/v1/experiments for `default`, as before
// namespaces, else /api/v1/namespaces/{ns}/experiments. Errors are thrown
// as ApiError with the server's message ("parameters[0].feasibleSpace: ...").
import { DEFAULT_NAMESPACE, currentNamespace } from './namespace.js';

const TOKEN_KEY = 'hpt.token';

export class ApiError extends Error {
  // `retryAfter`: the Retry-After header's seconds (503, 429), else null.
  constructor(status, message, retryAfter = null) {
    super(message);
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

let askToken = async () => null;
let pendingAsk = null;

// `fn(wrong)` shows the token prompt and resolves to the token, or null when
// the person cancels; `wrong` is true when a stored token was refused.
export function setTokenPrompt(fn) {
  askToken = fn;
}

// Keeps `token` for this tab's calls (the token a link carried).
export function useToken(token) {
  try {
    sessionStorage.setItem(TOKEN_KEY, token);
  } catch { /* storage off: the prompt will ask */ }
}

// Forgets the credential (signing out): the next call asks for one.
export function forgetToken() {
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch { /* storage off: nothing kept */ }
}

export function storedToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) || '';
  } catch {
    return '';
  }
}

async function newToken(refused) {
  if (!pendingAsk) {
    pendingAsk = askToken(Boolean(refused)).then((t) => {
      if (t) sessionStorage.setItem(TOKEN_KEY, t);
      return t;
    }).finally(() => {
      // Let calls that were refused with this token ask again later.
      setTimeout(() => { pendingAsk = null; }, 0);
    });
  }
  return pendingAsk;
}

// Resolves to the JSON body, the text with `text`, or the Response itself
// with `response` (for its headers).
export async function request(method, path, { body, contentType, text, response } = {}) {
  for (let attempt = 0; ; ++attempt) {
    const token = storedToken();
    const headers = {};
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = contentType || 'application/json';
    const res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      cache: 'no-store',
    });
    if (res.status === 401 && attempt < 5) {
      // Another call may have got a new token meanwhile: try that first.
      if (storedToken() !== token) continue;
      const t = await newToken(token !== '');
      if (t) continue;
    }
    if (!res.ok) {
      let message = `${res.status} ${res.statusText}`;
      try {
        const j = await res.json();
        if (j && j.error && j.error.message) message = j.error.message;
      } catch { /* not JSON: keep the status line */ }
      const retry = Number(res.headers.get('Retry-After'));
      throw new ApiError(res.status, message, retry > 0 ? retry : null);
    }
    if (response) return res;
    return text ? res.text() : res.json();
  }
}

const e = encodeURIComponent;
// Read at each call: the router sets the namespace before a page renders.
function base() {
  const ns = currentNamespace();
  return ns === DEFAULT_NAMESPACE ? '/api/v1/experiments' : `/api/v1/namespaces/${e(ns)}/experiments`;
}
const trialPath = (x, t) => `${base()}/${e(x)}/trials/${e(t)}`;

// The last `bytes` bytes of a trial's log (GET .../logs?tail=N) and the
// log's whole size, which the server sends as X-Log-Size. Without that
// header the size is what came back; a server that ignores ?tail sends the
// whole log, and its end is kept. `text` may start mid-line.
async function logTail(x, t, bytes) {
  const res = await request('GET', `${trialPath(x, t)}/logs?tail=${bytes}`, { response: true });
  const body = new Uint8Array(await res.arrayBuffer());
  const header = res.headers.get('X-Log-Size');
  const kept = body.length > bytes ? body.subarray(body.length - bytes) : body;
  const size = header !== null && /^\d+$/.test(header.trim()) ? Number(header) : body.length;
  return { text: new TextDecoder().decode(kept), bytes: kept.length, size: Math.max(size, kept.length) };
}

export const api = {
  experiments: () => request('GET', base()).then((r) => r.experiments),
  experiment: (x) => request('GET', `${base()}/${e(x)}`),
  trials: (x) => request('GET', `${base()}/${e(x)}/trials`).then((r) => r.trials),
  // A page of the sorted, filtered list ({trials, total, count}); `query`
  // is a URLSearchParams (columns.js pageQuery).
  trialPage: (x, query) => request('GET', `${base()}/${e(x)}/trials?${query}`),
  // The downsampled columns for plots ({columns, rows, count, total,
  // sampled, kept}), the server's default fields: name, index, phase,
  // objective, feasible, every parameter and every objective and
  // additional metric.
  trialColumns: (x, maxPoints) => request('GET', `${base()}/${e(x)}/trials:columns?maxPoints=${maxPoints}`),
  importance: (x) => request('GET', `${base()}/${e(x)}/importance`),
  pareto: (x) => request('GET', `${base()}/${e(x)}/pareto`),
  trial: (x, t) => request('GET', trialPath(x, t)),
  observations: (x, t) => request('GET', `${trialPath(x, t)}/observations`).then((r) => r.observations),
  logTail,
  create: (yaml) => request('POST', base(), { body: yaml, contentType: 'application/yaml' }),
  stopExperiment: (x) => request('POST', `${base()}/${e(x)}:stop`),
  deleteExperiment: (x) => request('DELETE', `${base()}/${e(x)}`),
  stopTrial: (x, t) => request('POST', `${trialPath(x, t)}:stop`),
  gpus: () => request('GET', '/api/v1/gpus').then((r) => r.gpus),
  // Who is signed in: {"name", "admin", "roles": {ns: role}}.
  whoami: () => request('GET', '/api/v1/whoami'),
  // The namespaces the caller may see, each with "quota" and "usage".
  namespaces: () => request('GET', '/api/v1/namespaces').then((r) => r.namespaces),
  namespace: (ns) => request('GET', `/api/v1/namespaces/${e(ns)}`),
};

// Splits a validation message into its problems: the server joins them
// with "; ", each "path: what is wrong".
export function problems(message) {
  return message.split(/; (?=[A-Za-z_][\w.[\]-]*: )/).map((p) => {
    const m = /^([A-Za-z_][\w.[\]-]*): ([\s\S]*)$/.exec(p);
    return m ? { path: m[1], message: m[2] } : { path: '', message: p };
  });
}
