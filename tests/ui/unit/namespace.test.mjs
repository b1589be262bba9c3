// Namespaces in routes and links (issue #32's dashboard): a route may name
// its namespace, links and API paths stay in it, and `default` keeps the
// links from before namespaces.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { compareHref } from '../../../ui/src/comparison.js';
import { href, hrefIn } from '../../../ui/src/format.js';
import {
  DEFAULT_NAMESPACE, currentNamespace, setCurrentNamespace, splitRoute,
} from '../../../ui/src/namespace.js';

test('a route names its namespace, or is in default', () => {
  assert.deepEqual(splitRoute('/namespaces/team-a/experiments/x'), { namespace: 'team-a', rest: '/experiments/x' });
  assert.deepEqual(splitRoute('/namespaces/team-a'), { namespace: 'team-a', rest: '/' });
  assert.deepEqual(splitRoute('/namespaces/team-a/'), { namespace: 'team-a', rest: '/' });
  assert.deepEqual(splitRoute('/namespaces/a%3Cb/new'), { namespace: 'a<b', rest: '/new' });
  assert.deepEqual(splitRoute('/experiments/x'), { namespace: null, rest: '/experiments/x' });
  assert.deepEqual(splitRoute('/namespaces'), { namespace: null, rest: '/namespaces' });
  assert.deepEqual(splitRoute(''), { namespace: null, rest: '' });
  assert.throws(() => splitRoute('/namespaces/%E0%A4%A/experiments'), URIError);
});

test('links stay in the namespace shown; default keeps the links from before namespaces', () => {
  try {
    setCurrentNamespace(DEFAULT_NAMESPACE);
    assert.equal(href(), '#/');
    assert.equal(href('experiments', 'a b'), '#/experiments/a%20b');
    assert.equal(compareHref('x', ['t1', 't2']), '#/experiments/x/compare?trials=t1,t2');
    setCurrentNamespace('team-a');
    assert.equal(currentNamespace(), 'team-a');
    assert.equal(href(), '#/namespaces/team-a');
    assert.equal(href('experiments', 'x', 'trials', 't/1'), '#/namespaces/team-a/experiments/x/trials/t%2F1');
    assert.equal(compareHref('x', ['t1', 't2']), '#/namespaces/team-a/experiments/x/compare?trials=t1,t2');
    assert.equal(hrefIn('default', 'new'), '#/new');
    assert.equal(hrefIn('a"><b', 'new'), '#/namespaces/a%22%3E%3Cb/new');
    const { namespace, rest } = splitRoute(href('experiments', 'x').slice(1));
    assert.deepEqual([namespace, rest], ['team-a', '/experiments/x']);
  } finally {
    setCurrentNamespace(DEFAULT_NAMESPACE);
  }
});
