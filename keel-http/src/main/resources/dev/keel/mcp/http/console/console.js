// The Keel operator console. No framework, no external file: the page renders the snapshot
// the server sends each second and reuses table rows by key, so a focused Cancel button keeps
// its focus while the numbers around it change.
'use strict';
(function () {
  let csrf = '';
  let tools = [];
  const $ = (id) => document.getElementById(id);
  const status = (text) => { $('status').textContent = text; };

  function ms(n) {
    if (n < 1000) return n + ' ms';
    if (n < 60000) return (n / 1000).toFixed(1) + ' s';
    if (n < 3600000) return Math.floor(n / 60000) + ' min ' + Math.floor((n % 60000) / 1000) + ' s';
    return (n / 3600000).toFixed(1) + ' h';
  }

  function post(url, body) {
    return fetch(url, {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
      body: JSON.stringify(body || {})
    }).then((r) => r.json().then((j) => ({ status: r.status, body: j })));
  }

  // rows: objects; key(row) -> string; cells(row) -> [text|Node]; highlighted rows get a class
  function table(id, rows, key, cells, emptyText) {
    const body = $(id).tBodies[0];
    const seen = new Set();
    const byKey = new Map();
    for (const tr of Array.from(body.rows)) byKey.set(tr.dataset.key, tr);
    let before = body.firstChild;
    if (rows.length === 0) {
      body.replaceChildren();
      const tr = body.insertRow();
      const td = tr.insertCell();
      td.colSpan = $(id).tHead.rows[0].cells.length;
      td.className = 'empty';
      td.textContent = emptyText || 'None';
      return;
    }
    for (const row of rows) {
      const k = String(key(row));
      seen.add(k);
      let tr = byKey.get(k);
      const values = cells(row);
      if (!tr) {
        tr = document.createElement('tr');
        tr.dataset.key = k;
        for (let i = 0; i < values.length; i++) tr.insertCell();
      }
      tr.classList.toggle('highlight', row.highlight === true || row.refused === true);
      values.forEach((v, i) => {
        const td = tr.cells[i];
        if (v instanceof Node) {
          if (td.firstChild !== v && !(td.firstChild && td.firstChild.dataset
              && td.firstChild.dataset.for === v.dataset.for)) td.replaceChildren(v);
        } else {
          const text = v === null || v === undefined ? '' : String(v);
          if (td.textContent !== text) td.textContent = text;
        }
      });
      if (tr !== before) body.insertBefore(tr, before); else before = before.nextSibling;
      before = tr.nextSibling;
    }
    for (const tr of Array.from(body.rows)) if (!seen.has(tr.dataset.key)) tr.remove();
  }

  function button(label, aria, forKey, onClick) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'danger';
    b.textContent = label;
    b.setAttribute('aria-label', aria);
    b.dataset.for = forKey;
    b.addEventListener('click', onClick);
    return b;
  }

  function cancelRequest(r) {
    post('api/cancel-request', { handle: r.handle }).then((res) => {
      status(res.body.cancelled ? 'Cancelled ' + r.method + (r.tool ? ' ' + r.tool : '')
        : 'That request had already ended');
    });
  }

  function cancelTask(t) {
    post('api/cancel-task', { taskId: t.taskId }).then((res) => {
      status(res.body.cancelled ? 'Cancelled task ' + t.tool : 'That task had already ended');
    });
  }

  const SVG = 'http://www.w3.org/2000/svg';
  function chart(id, samples, series) {
    const svg = $(id);
    const n = samples.length;
    let max = 1;
    for (const s of series) for (const x of samples) max = Math.max(max, s.value(x));
    const nodes = [];
    for (const f of [0.5, 1]) {
      const line = document.createElementNS(SVG, 'line');
      line.setAttribute('x1', 0); line.setAttribute('x2', 300);
      line.setAttribute('y1', 100 - f * 90); line.setAttribute('y2', 100 - f * 90);
      line.setAttribute('class', 'grid');
      nodes.push(line);
    }
    const label = document.createElementNS(SVG, 'text');
    label.setAttribute('x', 2); label.setAttribute('y', 9); label.setAttribute('class', 'axis');
    label.textContent = (Math.round(max * 10) / 10).toString();
    nodes.push(label);
    for (const s of series) {
      const pts = samples.map((x, i) => (i * 300 / Math.max(1, n - 1)).toFixed(1) + ','
        + (100 - (s.value(x) / max) * 90).toFixed(1)).join(' ');
      const pl = document.createElementNS(SVG, 'polyline');
      pl.setAttribute('points', pts);
      pl.setAttribute('class', s.cls);
      nodes.push(pl);
    }
    svg.replaceChildren(...nodes);
    const last = samples[n - 1] || {};
    svg.setAttribute('aria-label', svg.getAttribute('aria-label').split(':')[0] + ': now '
      + series.map((s) => s.value(last)).join(', '));
  }

  function render(snap) {
    $('server').textContent = snap.server;
    const totals = $('totals');
    totals.replaceChildren();
    for (const [k, label] of [['sessions', 'Sessions'], ['inFlight', 'In flight'],
      ['listeningStreams', 'Listening streams'], ['runningTasks', 'Running tasks'],
      ['cancellations', 'Cancellations']]) {
      const dt = document.createElement('dt'); dt.textContent = label;
      const dd = document.createElement('dd'); dd.textContent = snap.totals[k];
      dd.id = 'total-' + k;
      totals.append(dt, dd);
    }
    table('requests', snap.requests, (r) => r.handle, (r) => [r.method, r.tool || '',
      ms(r.elapsedMillis), r.principal, r.era, r.session || '—',
      button('Cancel', 'Cancel ' + r.method + ' ' + (r.tool || '') + ' by ' + r.principal,
        r.handle, () => cancelRequest(r))], 'No request is running');
    table('tasks', snap.tasks, (t) => t.taskId, (t) => {
      const running = t.status === 'working' || t.status === 'input_required';
      return [t.taskId.slice(0, 10) + '…', t.status, t.tool, t.owner, ms(t.elapsedMillis),
        running ? button('Cancel', 'Cancel task ' + t.tool + ' of ' + t.owner, 'c' + t.taskId,
          () => cancelTask(t)) : ''];
    }, 'No task');
    table('sessions', snap.sessions, (s) => s.fingerprint, (s) => [s.fingerprint, s.owner,
      s.era, ms(s.ageMillis), ms(s.idleMillis), s.openStreams, s.subscriptions], 'No session');
    table('subscriptions', snap.subscriptions, (s) => s.scope, (s) => [s.scope, s.count],
      'No subscription');
    table('errors', Object.entries(snap.errors).map(([code, n]) => ({ code, n })),
      (e) => e.code, (e) => [e.code, e.n], 'No error answered');
    table('actions', snap.actions, (a) => a.at + a.action + a.target, (a) => [
      new Date(a.at).toLocaleTimeString(), a.operator, a.action, a.target, a.outcome],
    'Nothing done yet');
    panels(snap.panels);
    const samples = snap.samples.slice(-300);
    chart('chart-calls', samples, [{ cls: 'l-calls', value: (x) => x.calls }]);
    chart('chart-latency', samples, [
      { cls: 'l-p50', value: (x) => x.p50Micros / 1000 },
      { cls: 'l-p95', value: (x) => x.p95Micros / 1000 },
      { cls: 'l-p99', value: (x) => x.p99Micros / 1000 }]);
    chart('chart-inflight', samples, [{ cls: 'l-inflight', value: (x) => x.inFlight }]);
  }

  function panels(list) {
    const host = $('panels');
    list.forEach((p, i) => {
      const id = 'panel-' + i;
      let section = $(id + '-section');
      const rows = p.rows || [];
      const cols = [];
      for (const r of rows) for (const k of Object.keys(r)) {
        if (k !== 'highlight' && k !== 'refused' && !cols.includes(k)) cols.push(k);
      }
      if (!section || section.dataset.cols !== cols.join('|')) {
        if (section) section.remove();
        section = document.createElement('section');
        section.id = id + '-section';
        section.dataset.cols = cols.join('|');
        const h = document.createElement('h2'); h.id = id + '-h'; h.textContent = p.title;
        section.setAttribute('aria-labelledby', h.id);
        const t = document.createElement('table'); t.id = id;
        const head = t.createTHead().insertRow();
        for (const c of (cols.length ? cols : [''])) {
          const th = document.createElement('th'); th.scope = 'col'; th.textContent = c;
          head.appendChild(th);
        }
        t.createTBody();
        section.append(h, t);
        host.appendChild(section);
      }
      table(id, rows, (r) => JSON.stringify(r), (r) => cols.map((c) => r[c]),
        p.error || 'Nothing yet');
    });
  }

  function field(name, schema, required) {
    const wrap = document.createElement('div');
    const id = 'arg-' + name;
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = name + (required ? ' (required)' : '')
      + (schema.description ? ' — ' + schema.description : '');
    let input;
    if (Array.isArray(schema.enum)) {
      input = document.createElement('select');
      if (!required) input.append(new Option('', ''));
      for (const v of schema.enum) input.append(new Option(String(v), String(v)));
    } else if (schema.type === 'boolean') {
      input = document.createElement('input'); input.type = 'checkbox';
      if (schema.default === true) input.checked = true;
    } else {
      input = document.createElement('input');
      input.type = schema.type === 'integer' || schema.type === 'number' ? 'number' : 'text';
      if (schema.type === 'integer') input.step = '1';
      if (schema.type === 'number') input.step = 'any';
      if (schema.minimum !== undefined) input.min = schema.minimum;
      if (schema.maximum !== undefined) input.max = schema.maximum;
    }
    input.id = id; input.name = name; input.dataset.type = schema.type || 'string';
    if (schema.default !== undefined && input.type !== 'checkbox') input.value = schema.default;
    if (required && input.type !== 'checkbox') input.required = true;
    wrap.append(label, input);
    return wrap;
  }

  function showTool() {
    const tool = tools.find((t) => t.name === $('try-tool').value);
    const fields = $('try-fields');
    fields.replaceChildren(Object.assign(document.createElement('legend'),
      { textContent: 'Arguments' }));
    $('try-description').textContent = tool ? (tool.description || '')
      : 'This server has no read-only tool (annotations.readOnlyHint) to try.';
    $('try-run').disabled = !tool;
    $('try-tool').disabled = !tool;
    fields.hidden = !tool;
    if (!tool) return;
    const schema = tool.inputSchema || {};
    const req = schema.required || [];
    for (const [name, s] of Object.entries(schema.properties || {})) {
      fields.appendChild(field(name, s, req.includes(name)));
    }
  }

  function runTool(ev) {
    ev.preventDefault();
    const args = {};
    for (const input of $('try-fields').querySelectorAll('input, select')) {
      const t = input.dataset.type;
      if (input.type === 'checkbox') { args[input.name] = input.checked; continue; }
      if (input.value === '') continue;
      args[input.name] = t === 'integer' ? parseInt(input.value, 10)
        : t === 'number' ? Number(input.value) : input.value;
    }
    $('try-result').textContent = 'Calling…';
    post('api/try', { tool: $('try-tool').value, arguments: args }).then((res) => {
      $('try-result').textContent = JSON.stringify(res.body.error && !res.body.jsonrpc
        ? res.body : (res.body.result || res.body.error || res.body), null, 2);
    });
  }

  function theme() {
    const saved = localStorage.getItem('keel-theme');
    const dark = saved ? saved === 'dark'
      : window.matchMedia('(prefers-color-scheme: dark)').matches;
    document.documentElement.dataset.theme = dark ? 'dark' : 'light';
    $('theme').setAttribute('aria-pressed', String(dark));
    $('theme').textContent = dark ? 'Light mode' : 'Dark mode';
  }

  function start() {
    theme();
    // follow the system's scheme as it changes, unless the user picked one here
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', theme);
    $('theme').addEventListener('click', () => {
      const dark = document.documentElement.dataset.theme !== 'dark';
      localStorage.setItem('keel-theme', dark ? 'dark' : 'light');
      theme();
    });
    $('logout').addEventListener('click', () => post('logout').then(() => location.reload()));
    $('try-tool').addEventListener('change', showTool);
    $('try').addEventListener('submit', runTool);
    fetch('api/me', { credentials: 'same-origin' }).then((r) => {
      if (r.status === 401) { location.reload(); throw new Error('signed out'); }
      return r.json();
    }).then((me) => {
      csrf = me.csrf;
      $('operator').textContent = me.operator;
      return fetch('api/tools', { credentials: 'same-origin' }).then((r) => r.json());
    }).then((t) => {
      tools = t.tools || [];
      const sel = $('try-tool');
      sel.replaceChildren(...tools.map((x) => new Option(x.title || x.name, x.name)));
      showTool();
    }).catch(() => {});
    const events = new EventSource('events');
    events.addEventListener('snapshot', (e) => {
      render(JSON.parse(e.data));
      document.body.dataset.live = 'yes';
      if ($('status').textContent === 'Connecting…' || $('status').textContent === 'Reconnecting…') {
        status('Live');
      }
    });
    events.onerror = () => status('Reconnecting…');
  }

  document.addEventListener('DOMContentLoaded', start);
})();
