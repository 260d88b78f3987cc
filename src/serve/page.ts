// The page `litmus serve` serves: one HTML shell, its stylesheet and its
// script (plain browser JavaScript, no framework, nothing loaded from
// elsewhere). The script reads the server's JSON (server.ts) and draws the
// list or suite grid, and each test's source, states, pictures and traces;
// whatever runs a check is a POST (the server refuses a GET of it).

export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>litmus</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/app.css">
<script src="/static/app.js" defer></script>
</head>
<body>
<header><a href="#" id="home">litmus</a> <span id="where"></span></header>
<main id="main"><p>Loading&hellip;</p></main>
</body>
</html>
`;

export const PAGE_CSS = `
body { font-family: system-ui, sans-serif; margin: 0; color: #222; background: #f6f6f3; }
header { background: #2d3142; color: #fff; padding: 8px 16px; font-size: 15px; }
header a { color: #fff; font-weight: bold; text-decoration: none; margin-right: 12px; }
main { padding: 12px 16px; }
pre, textarea, code { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px; }
pre { background: #fff; border: 1px solid #ddd; padding: 8px; overflow: auto; margin: 0; }
textarea { width: 100%; min-height: 360px; box-sizing: border-box; }
h2 { margin: 4px 0 8px; font-size: 18px; }
h3 { margin: 16px 0 6px; font-size: 15px; }
.summary { margin: 4px 0 12px; }
.cols { display: flex; gap: 16px; align-items: flex-start; flex-wrap: wrap; }
.cols > * { flex: 1 1 420px; min-width: 0; }
.witness { display: flex; gap: 12px; align-items: flex-start; flex-wrap: wrap; margin-bottom: 16px; }
.picture { background: #fff; border: 1px solid #ddd; overflow: auto; max-width: 100%; }
.picture svg { display: block; max-width: 100%; height: auto; }
.witness .picture { flex: 0 1 auto; }
.witness pre.trace { flex: 1 1 60ch; white-space: pre-wrap; overflow-wrap: anywhere; }
table { border-collapse: collapse; background: #fff; }
td, th { border: 1px solid #ccc; padding: 3px 8px; font-size: 13px; text-align: left; }
.Never { color: #1b7a2e; font-weight: bold; }
.Sometimes, .Always { color: #b3261e; font-weight: bold; }
.error { color: #b3261e; white-space: pre-wrap; }
.mismatch { background: #fde2e0; }
.buttons { margin: 6px 0; display: flex; gap: 8px; align-items: center; }
button { font-size: 13px; padding: 4px 12px; }
.note { color: #555; font-size: 13px; }
ul.tests { columns: 3 280px; font-size: 13px; }
ul.tests .verdict { margin-left: 6px; font-size: 12px; }
th.under-review, td.under-review { background: #fff6d5; }
`;

export const PAGE_JS = String.raw`'use strict';
(function () {
  var main = document.getElementById('main');
  var where = document.getElementById('where');

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'cls') e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
  function getJSON(url) {
    return fetch(url).then(function (r) {
      if (!r.ok) return r.text().then(function (t) { throw new Error(r.status + ': ' + t.trim()); });
      return r.json();
    });
  }
  function postJSON(url, data) {
    return fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(data) }).then(function (r) {
      if (!r.ok) return r.text().then(function (t) { throw new Error(r.status + ': ' + t.trim()); });
      return r.json();
    });
  }
  function testLink(path, text) { return el('a', { href: '#test/' + encodeURIComponent(path), text: text }); }
  function fail(e) { clear(main); main.appendChild(el('p', { cls: 'error', text: String(e.message || e) })); }

  function route() {
    var h = decodeURIComponent(location.hash.slice(1));
    if (h.indexOf('test/') === 0) return showTest(h.slice(5)).catch(fail);
    if (h === 'new') return showNew();
    return showIndex().catch(fail);
  }

  function showIndex() {
    return getJSON('/api/list').then(function (l) {
      if (l.open && !location.hash) { location.hash = '#test/' + encodeURIComponent(l.open); return; }
      where.textContent = l.root;
      clear(main);
      l.suites.forEach(function (s) { main.appendChild(suiteGrid(s)); });
      main.appendChild(el('h3', { text: 'Tests (' + l.tests.length + ')' }));
      // A folder too large to list whole says so (the server's bounds), never a silent part.
      if (l.truncated) main.appendChild(el('p', { cls: 'error', id: 'truncated', text: 'Not every test is listed: ' + l.truncated + '. Serve a smaller folder to see the rest.' }));
      main.appendChild(el('p', {}, [el('a', { href: '#new', text: 'Write a new test\u2026' })]));
      var inGrid = {};
      l.suites.forEach(function (s) { s.tests.forEach(function (t) { inGrid[t.path] = true; }); });
      var marks = {};
      main.appendChild(el('ul', { cls: 'tests' }, l.tests.map(function (t) {
        var mark = el('span', { cls: 'verdict', 'data-path': t.path, text: '\u2026' });
        marks[t.path] = mark;
        return el('li', {}, [testLink(t.path, t.path), mark]);
      })));
      listMarks = marks;
      verdictsOf(l.tests.map(function (t) { return t.path; }).filter(function (p) { return !inGrid[p]; }), marks);
    });
  }

  /** The marks of the list now shown, by path: a grid's verdicts fill them too. */
  var listMarks = {};

  /** Shows a verdict beside a test of the list. */
  function markVerdict(mark, row) {
    if (!mark) return;
    mark.textContent = row.verdict;
    mark.className = 'verdict ' + row.verdict + (row.matches === false ? ' mismatch' : '');
    mark.title = row.matches === false ? 'Result: ' + row.expected + ' does not match' : (row.expected ? 'Result: ' + row.expected : '');
  }

  /** The list's verdicts, a batch at a time (each batch checked on the server's checking threads). */
  function verdictsOf(paths, marks) {
    if (paths.length === 0) return;
    var batch = paths.slice(0, 32);
    postJSON('/api/verdicts', { paths: batch.join('\n') }).then(function (r) {
      if (listMarks !== marks) return;
      r.rows.forEach(function (row) { markVerdict(marks[row.path], row); });
      verdictsOf(paths.slice(batch.length), marks);
    }).catch(function (e) { batch.forEach(function (p) { if (marks[p]) { marks[p].textContent = '?'; marks[p].title = String(e.message || e); } }); });
  }

  /** A suite's scenario-by-version grid; the verdicts come when the server has checked every test. */
  function suiteGrid(s) {
    var versions = [], scenarios = [];
    s.tests.forEach(function (t) {
      var v = t.meta.version || '', c = t.meta.scenario || '';
      if (versions.indexOf(v) < 0) versions.push(v);
      if (scenarios.indexOf(c) < 0) scenarios.push(c);
    });
    var cells = {};
    var mine = function (v) { return s.underReview !== undefined && v === s.underReview; };
    var table = el('table', { cls: 'grid' }, [el('tr', {}, [el('th', { text: 'scenario \\ version' })].concat(versions.map(function (v) {
      return el('th', mine(v) ? { text: v + ' (under review)', cls: 'under-review' } : { text: v });
    })))]);
    scenarios.forEach(function (c) {
      var row = el('tr', {}, [el('th', { text: c.split(':')[0], title: c })]);
      versions.forEach(function (v) {
        var t = s.tests.filter(function (x) { return (x.meta.version || '') === v && (x.meta.scenario || '') === c; })[0];
        var td = el('td', mine(v) ? { cls: 'under-review' } : {});
        if (t) { td.appendChild(testLink(t.path, '\u2026')); td.setAttribute('data-path', t.path); cells[t.path] = td; }
        row.appendChild(td);
      });
      table.appendChild(row);
    });
    var verdict = el('p', { cls: 'note', text: 'Checking ' + s.tests.length + ' tests\u2026' });
    var head = [el('h3', { text: s.title })];
    if (s.error) head.push(el('pre', { cls: 'error', text: s.error }));
    if (s.tests.length === 0) return el('section', { cls: 'suite' }, head);
    postJSON('/api/suite', { dir: s.dir }).then(function (r) {
      r.rows.forEach(function (row) {
        var td = cells[row.path];
        if (!td) return;
        var a = td.firstChild;
        a.textContent = row.verdict;
        a.className = row.verdict;
        a.title = row.test + (row.expected ? ' (Result: ' + row.expected + ')' : '');
        if (row.matches === false) td.className += ' mismatch';
        markVerdict(listMarks[row.path], row);
      });
      verdict.textContent = r.verdict || '';
    }).catch(function (e) { verdict.textContent = String(e.message || e); verdict.className = 'error'; });
    return el('section', { cls: 'suite' }, head.concat([table, verdict]));
  }

  function showTest(path) {
    where.textContent = path;
    clear(main);
    main.appendChild(el('p', { text: 'Checking ' + path + '\u2026' }));
    return postJSON('/api/test', { path: path }).then(function (t) { drawTest(t.path, t.source, t.view, t.readOnly); });
  }

  var NEW_TEST = 'C MP+new\n\n{}\n\nP0(int *x, int *y)\n{\n\tWRITE_ONCE(*x, 1);\n\tWRITE_ONCE(*y, 1);\n}\n\nP1(int *x, int *y)\n{\n\tint r0;\n\tint r1;\n\n\tr0 = READ_ONCE(*y);\n\tr1 = READ_ONCE(*x);\n}\n\nexists (1:r0=1 /\\ 1:r1=0)\n';

  function showNew() {
    where.textContent = 'new test';
    drawTest(undefined, NEW_TEST, undefined);
  }

  function drawTest(path, source, view, readOnly) {
    clear(main);
    var results = el('div', { id: 'results' });
    var editor = el('textarea', { id: 'editor', spellcheck: 'false' });
    editor.value = source;
    var status = el('span', { cls: 'note', id: 'status' });
    var check = el('button', { id: 'check', text: 'Check' });
    var buttons = el('div', { cls: 'buttons' }, [check]);
    check.addEventListener('click', function () {
      status.textContent = 'checking\u2026';
      postJSON('/api/check', { source: editor.value, path: path }).then(function (r) {
        status.textContent = 'checked the edited text (not saved)';
        drawView(results, r.view);
      }).catch(function (e) { status.textContent = String(e.message || e); });
    });
    if (path && readOnly) buttons.appendChild(el('span', { cls: 'note', text: 'the C this suite test is inlined into: edit and check it here; change the suite in its .ts modules ' }));
    if (path && !readOnly) {
      var save = el('button', { id: 'save', text: 'Save to ' + path });
      save.addEventListener('click', function () {
        postJSON('/api/save', { source: editor.value, path: path }).then(function () { status.textContent = 'saved ' + path; })
          .catch(function (e) { status.textContent = String(e.message || e); });
      });
      buttons.appendChild(save);
    }
    buttons.appendChild(status);
    main.appendChild(el('div', { cls: 'cols' }, [el('div', {}, [el('h3', { text: path ? 'Source: ' + path : 'New test' }), editor, buttons]), results]));
    if (view) drawView(results, view);
  }

  function drawView(box, v) {
    clear(box);
    if (v.error) { box.appendChild(el('p', { cls: 'error', id: 'verdict', text: v.error })); return; }
    box.appendChild(el('h2', { text: v.name }));
    // "NAME: Observation (p of n executions) under MODEL; ...", the observation in colour.
    var rest = v.summary.slice((v.name + ': ' + v.observation).length);
    var sum = el('p', { cls: 'summary', id: 'verdict' }, [el('span', { cls: v.observation, text: v.observation }), rest]);
    if (v.matches === false) sum.className += ' mismatch';
    box.appendChild(sum);
    box.appendChild(el('h3', { text: 'States' }));
    box.appendChild(statesTable(v.states));
    box.appendChild(el('h3', { text: "litmus's output, as herd7 prints it" }));
    box.appendChild(el('pre', { cls: 'herd', text: v.herd }));
    var parent = box.parentNode;
    var old = document.getElementById('explained');
    if (old) old.parentNode.removeChild(old);
    var ex = el('section', { id: 'explained' });
    (v.witnesses || []).forEach(function (w, i) {
      ex.appendChild(el('h3', { text: 'Witness ' + (i + 1) + ' of ' + v.witnesses.length }));
      ex.appendChild(explained(w));
    });
    if (v.forbidden) {
      ex.appendChild(el('h3', { text: 'Why never: the forbidden candidate and its cycle' }));
      ex.appendChild(explained(v.forbidden));
    }
    parent.parentNode.appendChild(ex);
  }

  function explained(w) {
    var pic = el('div', { cls: 'picture' });
    if (w.picture) pic.innerHTML = w.picture;
    else pic.appendChild(el('p', { cls: 'note', text: 'no execution to draw' }));
    return el('div', { cls: 'witness' }, [pic, el('pre', { cls: 'trace', text: w.trace })]);
  }

  function statesTable(states) {
    var names = states.length ? states[0].bindings.map(function (b) { return b[0]; }) : [];
    var t = el('table', { cls: 'states' }, [el('tr', {}, names.map(function (n) { return el('th', { text: n }); }).concat([el('th', { text: 'executions' }), el('th', { text: 'condition' })]))]);
    states.forEach(function (s) {
      t.appendChild(el('tr', {}, s.bindings.map(function (b) { return el('td', { text: b[1] }); })
        .concat([el('td', { text: String(s.count) }), el('td', { text: s.positive ? 'satisfied' : '' })])));
    });
    return t;
  }

  // The token has been kept in a cookie: off the address bar (and out of the history) it goes.
  if (location.search) history.replaceState(null, '', location.pathname + location.hash);
  window.addEventListener('hashchange', route);
  route();
})();
`;
