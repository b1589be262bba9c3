// The namespace the dashboard shows, and how routes carry it: a route in
// namespace NS starts #/namespaces/NS/ (#/namespaces/NS/experiments/x), a
// route without that prefix is in `default` (#/experiments/x: the links
// `hpt run` prints, and every link from before namespaces). The router sets
// the current namespace before a page renders; the API client builds its
// experiment paths from it and href() its links, so a page needs no
// namespace argument of its own. No DOM access.

export const DEFAULT_NAMESPACE = 'default';

let current = DEFAULT_NAMESPACE;

export function currentNamespace() {
  return current;
}

export function setCurrentNamespace(ns) {
  current = ns || DEFAULT_NAMESPACE;
}

// The route parts that put a route in `ns`: none for `default`, so its
// links stay as they were.
export function namespaceParts(ns) {
  return ns === DEFAULT_NAMESPACE ? [] : ['namespaces', ns];
}

// A route path ("/namespaces/team-a/experiments/x") as its namespace
// (decoded; null when the path names none) and the rest of the route
// ("/experiments/x"; "/" for the namespace's list). "/namespaces" alone is
// the namespaces page, in no namespace. Throws URIError on a malformed
// escape.
export function splitRoute(path) {
  const m = /^\/?namespaces\/([^/]+)(\/.*)?$/.exec(path);
  if (!m) return { namespace: null, rest: path };
  return { namespace: decodeURIComponent(m[1]), rest: m[2] || '/' };
}
