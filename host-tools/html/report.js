/*
 * alphaprof html: the report's script (inline in every report, written for
 * this project).  It reads the data document (host-tools/util/html-data.h
 * describes it) and renders the summary, flame graph, procedure table,
 * listings (with cycle stacks as stacked bars, dcpicalc's columns and
 * bubbles), ProfileMe charts, hot paths, values and diff.  Nothing is
 * fetched.
 *
 * Large profiles stay quick: the flame graph draws only frames at least
 * half a pixel wide, the table shows its first rows until asked for all,
 * and a listing is built only when it is opened.
 *
 * When done, <body> carries data-ready="1", data-render-ms (time from the
 * script's start), data-loaded-ms (from the start of navigation, so
 * reading and parsing the file too) and data-errors (uncaught errors
 * seen), which the tests and the benchmark read.
 */
'use strict';
(function () {
  var started = performance.now();
  var errors = 0;
  window.addEventListener('error', function () {
    errors++;
    document.body.dataset.errors = String(errors);
  });
  document.body.dataset.errors = '0';

  var D = JSON.parse(document.getElementById('alphaprof-data').textContent);
  var S = D.summary;
  var nev = S.events.length;
  var state = {event: 0, zoom: null, sortKey: 2, sortDesc: true, showAll: false};

  /* ------------------------------------------------------------ helpers */
  function el(tag, attrs) {
    var e = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        if (k === 'text') e.textContent = attrs[k];
        else if (k === 'cls') e.className = attrs[k];
        else if (k === 'onclick') e.addEventListener('click', attrs[k]);
        else e.setAttribute(k, attrs[k]);
      }
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined) continue;
      e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return e;
  }
  var SVGNS = 'http://www.w3.org/2000/svg';
  function svg(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) {
      if (k === 'text') e.textContent = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    return e;
  }
  function num(x) { return Number(x).toLocaleString('en-US'); }
  function pct(x, digits) { return (100 * x).toFixed(digits === undefined ? 2 : digits) + '%'; }
  function hashHue(s) {
    var h = 0;
    for (var i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
    return Math.abs(h);
  }
  function td(text, cls) { return el('td', cls ? {cls: cls, text: text} : {text: text}); }
  function hex(x) { return Number(x).toString(16); }

  /* ------------------------------------------------------------ page frame */
  /* the title names the workloads, not the monitor or the samples in no image */
  var title = S.workloads.filter(function (w) { return w !== '[unknown]' && w.indexOf('monitor-') !== 0; }).join(', ') ||
              S.workloads.join(', ') || 'profile';
  var header = el('header', null, el('h1', {text: 'alphaprof: ' + title}),
                  el('span', {cls: 'sub', text: S.db + (S.epoch >= 0 ? ', epoch ' + S.epoch : ', every epoch')}));
  var nav = el('nav');
  document.body.appendChild(header);
  document.body.appendChild(nav);
  function section(id, name) {
    var s = el('section', {id: id}, el('h2', {text: name}));
    document.body.appendChild(s);
    nav.appendChild(el('a', {href: '#' + id, text: name}));
    return s;
  }

  /* ------------------------------------------------------------ summary */
  function renderSummary() {
    var s = section('summary', 'Summary');
    var kv = el('table', {cls: 'kv'});
    function row(k, v) { kv.appendChild(el('tr', null, td(k), el('td', null, v))); }
    row('database', S.db);
    row('epoch', S.epoch >= 0 ? String(S.epoch) : 'every epoch');
    row('workloads', S.workloads.join(', '));
    var boards = {}, cores = 0;
    S.sessions.forEach(function (x) { boards[x.board || '?'] = 1; cores = Math.max(cores, x.cores || 0); });
    row('board', Object.keys(boards).join(', ') || 'unknown');
    row('cores', cores ? String(cores) : 'unknown');
    row('sessions', String(S.sessions.length) + (S.sessions.length ? ' (first began ' + S.sessions[0].started + ')' : ''));
    var stored = 0;
    S.events.forEach(function (e) { stored += e.total; });
    row('samples', num(stored) + (S.pme_samples ? ' + ' + num(S.pme_samples) + ' ProfileMe' : ''));
    var F = D.flame;
    row('flame graph', !D.stacks.length ? 'none: no timer or counter samples' : F.cct
      ? 'call stacks from the calling context tree (' + num(F.sites_in_contexts) + ' of ' + num(F.sites) +
        ' sampled instructions in procedures it knows)'
      : 'image, procedure, inlined calls, line (no calling context tree: see instrument --cct)');
    if (D.paths) row('paths', num(D.paths.samples) + ' paired ProfileMe samples in procedures, ' + num(D.paths.used) +
                     ' on a unique path (section Paths)');
    s.appendChild(kv);

    var ev = el('table', {id: 'events'}, el('tr', null, el('th', {text: 'event'}), el('th', {cls: 'num', text: 'samples'}),
                                   el('th', {cls: 'num', text: 'achieved mean period'}), el('th', {cls: 'num', text: 'estimated count'})));
    S.events.forEach(function (e) {
      var unit = e.name === 'timer' ? ' ns' : ' events';
      ev.appendChild(el('tr', null, td(e.name), td(num(e.total), 'num'),
                        td(e.period ? num(e.period) + unit : 'unknown', 'num'),
                        td(e.period ? num(e.total * e.period) + unit : '?', 'num')));
    });
    if (!nev) ev.appendChild(el('tr', null, el('td', {colspan: '4', text: 'no timer or counter samples (ProfileMe only)'})));
    s.appendChild(el('h2', {text: 'Events'}));
    s.appendChild(ev);

    s.appendChild(el('h2', {text: 'Drops'}));
    var lost = 0;
    S.drops.forEach(function (d) { if (d.reason.indexOf('_frames') < 0) lost += d.count; });
    if (!S.drops.length) {
      s.appendChild(el('p', {id: 'drops-none', text: 'No sample was lost: every sample the board took is in this profile.'}));
    } else {
      var taken = stored + S.pme_samples + lost;
      s.appendChild(el('p', {cls: lost && lost / taken > 0.01 ? 'note' : '',
        text: num(lost) + ' of ' + num(taken) + ' samples taken (' + pct(taken ? lost / taken : 0) +
              ') were lost; frame counts are frames, not samples.' +
              (lost / taken > 0.01 ? ' Losses are not uniform, so shares may be biased.' : '')}));
      var dt = el('table', {id: 'drops'}, el('tr', null, el('th', {text: 'reason'}), el('th', {cls: 'num', text: 'count'}),
                                           el('th', {text: 'what it means'})));
      S.drops.forEach(function (d) { dt.appendChild(el('tr', null, td(d.reason), td(num(d.count), 'num'), td(d.what))); });
      s.appendChild(dt);
    }
  }

  /* ------------------------------------------------------------ event choice */
  var eventSelects = [];
  function eventSelect(onchange) {
    if (nev < 2) return null;
    var sel = el('select');
    S.events.forEach(function (e, i) { sel.appendChild(el('option', {value: String(i), text: e.name})); });
    sel.addEventListener('change', function () {
      state.event = Number(sel.value);
      eventSelects.forEach(function (o) { o.value = sel.value; });
      state.zoom = null;
      drawFlame();
      drawTable();
    });
    eventSelects.push(sel);
    return el('label', null, 'event ', sel);
  }

  /* ------------------------------------------------------------ flame graph */
  var procDelta = null;     /* "image\u0001proc" -> delta of share, in diff mode */
  /* with call stacks, a frame is coloured by its own procedure's delta
   * (callers are procedures too); otherwise by the procedure at depth 2 */
  var procKeys = null;
  if (D.flame.cct) {
    procKeys = new Set();
    D.procs.forEach(function (p) { procKeys.add(p[1] + '\u0001' + p[0]); });
  }
  var flameBox, flameInfo, flameRoot, trees = [];
  function tree(e) {
    if (trees[e]) return trees[e];
    var root = {name: 'all', value: 0, kids: new Map(), parent: null, depth: 0, key: ''};
    D.stacks.forEach(function (st) {
      var v = st[1][e];
      if (!v) return;
      var n = root;
      n.value += v;
      var path = st[0];
      for (var i = 0; i < path.length; i++) {
        var id = path[i];
        var k = n.kids.get(id);
        if (!k) {
          k = {name: D.names[id], value: 0, kids: new Map(), parent: n, depth: n.depth + 1,
               image: i === 0 ? D.names[id] : n.image,
               proc: i === 1 || (procKeys && i > 0 && procKeys.has(n.image + '\u0001' + D.names[id])) ? D.names[id] : n.proc};
          n.kids.set(id, k);
        }
        k.value += v;
        n = k;
      }
    });
    trees[e] = root;
    return root;
  }
  function frameColour(n) {
    if (procDelta && n.proc) {
      var d = procDelta.get(n.image + '\u0001' + n.proc);
      if (d !== undefined && d !== 0) {
        var a = Math.min(1, Math.abs(d) / 0.05);
        return d > 0 ? 'hsl(0,85%,' + (92 - 30 * a) + '%)' : 'hsl(210,80%,' + (92 - 30 * a) + '%)';
      }
      return 'hsl(0,0%,88%)';
    }
    var h = hashHue(n.name);
    if (n.depth === 0) return 'hsl(0,0%,80%)';
    if (n.depth === 1) return 'hsl(' + (200 + h % 30) + ',45%,72%)';
    return 'hsl(' + (h % 50) + ',' + (70 + h % 20) + '%,' + (62 + h % 12) + '%)';
  }
  function renderFlame() {
    var s = section('flamegraph', 'Flame graph');
    var reset = el('button', {id: 'flame-reset', text: 'Reset zoom', onclick: function () { state.zoom = null; drawFlame(); }});
    s.appendChild(el('div', {cls: 'controls'}, eventSelect(), reset,
      el('span', {cls: 'muted', text: (D.flame.cct
        ? 'Call stacks from the calling context tree: image, callers outermost first, procedure, inlined calls, ' +
          'source line; a procedure\'s samples are split among its contexts by their measured exclusive cycles.'
        : 'Stacks: image, procedure, inlined calls, source line.') + ' Click a frame to zoom in' +
        (D.diff ? '; colours: red grew, blue shrank against the base' : '') + '.'})));
    flameInfo = el('div', {id: 'flame-info', cls: 'muted', text: ' '});
    flameBox = el('div', {id: 'flame'});
    s.appendChild(flameInfo);
    s.appendChild(flameBox);
    drawFlame();
  }
  function drawFlame() {
    var root = tree(state.event);
    var focus = state.zoom || root;
    flameRoot = root;
    var W = Math.max(400, flameBox.clientWidth || document.documentElement.clientWidth - 42);
    var H = 18;
    var frag = document.createDocumentFragment();
    var maxDepth = 0, drawn = 0;
    var total = root.value || 1;
    function add(n, x, w, ancestor) {
      var d = el('div', {cls: 'frame' + (ancestor ? ' ancestor' : '')});
      d.style.left = x + 'px';
      d.style.width = Math.max(w - 1, 0.5) + 'px';
      d.style.top = (n.depth * H) + 'px';
      d.style.background = frameColour(n);
      if (w > 30) d.textContent = n.name;
      d.title = n.name + ': ' + num(n.value) + ' samples, ' + pct(n.value / total);
      d.addEventListener('click', function (ev) { ev.stopPropagation(); state.zoom = n.depth ? n : null; drawFlame(); });
      d.addEventListener('mouseenter', function () { flameInfo.textContent = d.title; });
      frag.appendChild(d);
      drawn++;
      if (n.depth > maxDepth) maxDepth = n.depth;
    }
    for (var a = focus.parent; a; a = a.parent) add(a, 0, W, true);
    function walk(n, x, w) {
      add(n, x, w, false);
      var kids = Array.from(n.kids.values()).sort(function (p, q) { return p.name < q.name ? -1 : p.name > q.name ? 1 : 0; });
      var cx = x;
      for (var i = 0; i < kids.length; i++) {
        var kw = w * kids[i].value / n.value;
        if (kw >= 0.5) walk(kids[i], cx, kw);
        cx += kw;
      }
    }
    walk(focus, 0, W);
    flameBox.textContent = '';
    flameBox.style.height = ((maxDepth + 1) * H + 2) + 'px';
    flameBox.appendChild(frag);
    flameBox.dataset.frames = String(drawn);
    flameBox.dataset.zoom = state.zoom ? state.zoom.name : '';
  }

  /* ------------------------------------------------------------ procedures */
  var tableBody, tableHead, tableNote;
  var COLS = [{name: 'procedure'}, {name: 'image'}];
  S.events.forEach(function (e, i) { COLS.push({name: e.name, ev: i, num: true}); });
  if (nev) COLS.push({name: '%', pct: true, num: true});
  if (D.pme) COLS.push({name: 'ProfileMe', pme: true, num: true});
  state.sortKey = nev ? 2 : COLS.length - 1;
  function procValue(p, k) {
    var c = COLS[k];
    if (k === 0) return p[0];
    if (k === 1) return p[1];
    if (c.pct) return p[2][state.event] / (S.events[state.event].total || 1);
    if (c.pme) return p[4];
    return p[2][c.ev];
  }
  function renderTable() {
    var s = section('procedures', 'Procedures');
    tableNote = el('span', {cls: 'muted'});
    s.appendChild(el('div', {cls: 'controls'}, eventSelect(), tableNote));
    var t = el('table', {id: 'proc-table'});
    tableHead = el('tr');
    COLS.forEach(function (c, k) {
      var th = el('th', {cls: 'sortable' + (c.num ? ' num' : ''), text: c.name});
      th.addEventListener('click', function () {
        if (state.sortKey === k) state.sortDesc = !state.sortDesc;
        else { state.sortKey = k; state.sortDesc = !!c.num; }
        drawTable();
      });
      tableHead.appendChild(th);
    });
    t.appendChild(el('thead', null, tableHead));
    tableBody = el('tbody');
    t.appendChild(tableBody);
    s.appendChild(el('div', {cls: 'tablewrap'}, t));
    drawTable();
  }
  var ROWS_FIRST = 300;
  function drawTable() {
    if (!tableBody) return;
    var k = state.sortKey, desc = state.sortDesc;
    var rows = D.procs.slice().sort(function (a, b) {
      var x = procValue(a, k), y = procValue(b, k);
      var c = x < y ? -1 : x > y ? 1 : 0;
      if (c === 0) c = a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
      return desc ? -c : c;
    });
    Array.prototype.forEach.call(tableHead.children, function (th, i) {
      th.className = th.className.replace(/ sorted-(asc|desc)/, '') + (i === k ? (desc ? ' sorted-desc' : ' sorted-asc') : '');
    });
    var shown = state.showAll ? rows.length : Math.min(rows.length, ROWS_FIRST);
    var frag = document.createDocumentFragment();
    var total = nev ? S.events[state.event].total || 1 : 1;
    for (var i = 0; i < shown; i++) {
      var p = rows[i];
      var tr = el('tr');
      var name = p[3] >= 0 ? el('a', {cls: 'proc', text: p[0], onclick: openListing.bind(null, p)}) : document.createTextNode(p[0]);
      tr.appendChild(el('td', null, name));
      tr.appendChild(td(p[1]));
      for (var e = 0; e < nev; e++) tr.appendChild(td(num(p[2][e]), 'num'));
      if (nev) tr.appendChild(td(pct(p[2][state.event] / total), 'num'));
      if (D.pme) tr.appendChild(td(num(p[4]), 'num'));
      frag.appendChild(tr);
    }
    tableBody.textContent = '';
    tableBody.appendChild(frag);
    tableNote.textContent = '';
    tableNote.appendChild(document.createTextNode(num(rows.length) + ' procedures; click a column to sort, a name for its listing' +
      (D.listings.length < rows.length ? ' (listings of the hottest ' + D.listings.length + ')' : '') + '. '));
    if (shown < rows.length) {
      tableNote.appendChild(el('button', {id: 'show-all', text: 'show all ' + num(rows.length),
                                           onclick: function () { state.showAll = true; drawTable(); }}));
    }
  }

  /* ------------------------------------------------------------ cycle stacks */
  /* One colour per cause (hw-model/cycle-causes.h's order, then calc's
   * "unexplained"); the names and meanings come with the data. */
  var CAUSE_COLOURS = ['#b0bec5', '#7e57c2', '#b39ddb', '#e53935', '#5d4037', '#ffb74d', '#ef6c00', '#fdd835',
                       '#42a5f5', '#26a69a', '#66bb6a', '#ec407a', '#8d6e63', '#78909c', '#212121'];
  function causeName(k) { return D.cycles.causes[k]; }
  /* A stacked bar of cycles by cause, width px for `scale` cycles; each
   * segment carries its cause and cycles (data-cause, data-cycles). */
  function stackBar(causes, total, scale, width, id) {
    var bar = el('div', {cls: 'stackbar'});
    if (id) bar.id = id;
    bar.style.width = Math.max(1, width * (scale > 0 ? total / scale : 0)) + 'px';
    bar.dataset.cycles = String(total);
    var tip = [];
    causes.forEach(function (c, k) {
      if (!c) return;
      var seg = el('span', {cls: 'seg'});
      seg.style.width = (total > 0 ? 100 * c / total : 0) + '%';
      seg.style.background = CAUSE_COLOURS[k % CAUSE_COLOURS.length];
      seg.dataset.cause = causeName(k);
      seg.dataset.cycles = String(c);
      bar.appendChild(seg);
      tip.push(causeName(k) + ' ' + num(Math.round(c)) + ' (' + pct(total > 0 ? c / total : 0, 1) + ')');
    });
    bar.title = num(Math.round(total)) + ' cycles: ' + tip.join(', ');
    return bar;
  }
  /* The legend of the causes with cycles, and a table of them. */
  function stackLegend(causes) {
    var lg = el('div', {cls: 'legend'});
    causes.forEach(function (c, k) {
      if (!c) return;
      var sw = el('span', {cls: 'swatch'});
      sw.style.background = CAUSE_COLOURS[k % CAUSE_COLOURS.length];
      lg.appendChild(el('span', {cls: 'legend-item', title: D.cycles.whats[k]}, sw, causeName(k)));
    });
    return lg;
  }
  function stackTable(causes, total, id) {
    var t = el('table', {cls: 'stack-table', id: id},
               el('tr', null, el('th', {text: 'cause'}), el('th', {cls: 'num', text: 'cycles'}),
                  el('th', {cls: 'num', text: 'share'}), el('th', {text: 'what it means'})));
    causes.forEach(function (c, k) {
      if (!c) return;
      var tr = el('tr', null, td(causeName(k)), td(num(Math.round(c)), 'num'), td(pct(total > 0 ? c / total : 0, 1), 'num'),
                  td(D.cycles.whats[k]));
      tr.dataset.cause = causeName(k);
      tr.dataset.cycles = String(c);
      t.appendChild(tr);
    });
    return t;
  }
  /* A procedure's stack: a title, the bar, its legend and table. */
  function stackSummary(id, title, causes, total) {
    return el('div', {cls: 'stack-summary', id: id}, el('p', {text: title}),
              stackBar(causes, total, total, 600, id + '-bar'), stackLegend(causes), stackTable(causes, total, id + '-table'));
  }
  /* ProfileMe's loops (pme --stacks): each natural loop's cycles, inner
   * loops' included and indented under their parent, its header's line and
   * estimated executions, and its stack. */
  function renderLoops(s, P, procCell) {
    if (!P.loops.length) {
      s.appendChild(el('p', {id: 'pme-loops-none', text: 'No loops in the sampled procedures.'}));
      return;
    }
    s.appendChild(el('p', {text: 'Loops (natural loops of each procedure\u2019s control-flow graph, as alphaprof pme ' +
      '--stacks): cycles include inner loops\u2019, executions are the header\u2019s, estimated from its records.' +
      (P.more_loops ? ' ' + num(P.more_loops) + ' more loops are not shown.' : '')}));
    var t = el('table', {id: 'pme-loops'});
    t.appendChild(el('thead', null, el('tr', null, el('th', {cls: 'num', text: 'cycles%'}), el('th', {cls: 'num', text: 'cycles'}),
      el('th', {cls: 'num', text: 'executions'}), el('th', {text: 'procedure'}), el('th', {text: 'header'}),
      el('th', {text: 'line'}), el('th', {text: 'cycle stack'}))));
    var b = el('tbody');
    var lmax = P.loops.length ? P.loops[0][6] : 1;
    P.loops.forEach(function (r) {
      var pc = procCell(r[0], r[1]);
      pc.style.paddingLeft = (0.4 + 1.2 * (r[3] - 1)) + 'em';
      var tr = el('tr', null, td(pct(P.cycles > 0 ? r[6] / P.cycles : 0), 'num'), td(num(Math.round(r[6])), 'num'),
                  td(num(Math.round(r[7])), 'num'), pc, td(r[2]), td(r[5] || '?'),
                  el('td', null, stackBar(r[8], r[6], lmax, 240)));
      tr.dataset.cycles = String(r[6]);
      tr.dataset.depth = String(r[3]);
      b.appendChild(tr);
    });
    t.appendChild(b);
    s.appendChild(el('div', {cls: 'tablewrap'}, t));
  }
  /* Where the cycles went, per procedure: pme --stacks's procedures and
   * calc --summary's, each a table with a stack bar per row. */
  function renderCycles() {
    var s = section('cycles', 'Cycles');
    var listed = new Map();     /* "image\u0001procedure" -> its row of D.procs, when it has a listing */
    D.procs.forEach(function (q) { if (q[3] >= 0) listed.set(q[1] + '\u0001' + q[0], q); });
    function procCell(name, image) {
      var p = listed.get(image + '\u0001' + name);
      return el('td', null, p ? el('a', {cls: 'proc', text: name, onclick: openListing.bind(null, p)})
                              : document.createTextNode(name || '[outside any procedure]'));
    }
    var P = D.cycles.pme;
    if (P) {
      s.appendChild(el('p', {text: 'Cycle stacks estimated from ' + num(P.pairs) + ' ProfileMe pairs (one every ' +
        num(Math.round(P.pair_interval)) + ' fetched instructions) for the core of board ' + D.cycles.board +
        ', as alphaprof pme --stacks: ' + num(Math.round(P.cycles)) + ' cycles in ' + num(P.procedures.length) +
        ' procedures. The listings show them per instruction.'}));
      s.appendChild(stackBar(P.stack, P.cycles, P.cycles, 600, 'pme-all-bar'));
      s.appendChild(stackLegend(P.stack));
      var pt = el('table', {id: 'pme-summary'});
      pt.appendChild(el('thead', null, el('tr', null, el('th', {cls: 'num', text: 'cycles%'}), el('th', {cls: 'num', text: 'cycles'}),
        el('th', {text: 'procedure'}), el('th', {text: 'image'}), el('th', {text: 'cycle stack'}))));
      var pb = el('tbody');
      var pmax = P.procedures.length ? P.procedures[0][2] : 1;
      P.procedures.slice(0, 300).forEach(function (r) {
        var tr = el('tr', null, td(pct(P.cycles > 0 ? r[2] / P.cycles : 0), 'num'), td(num(Math.round(r[2])), 'num'),
                    procCell(r[0], r[1]), td(r[1]), el('td', null, stackBar(r[3], r[2], pmax, 240)));
        tr.dataset.cycles = String(r[2]);
        pb.appendChild(tr);
      });
      pt.appendChild(pb);
      s.appendChild(el('div', {cls: 'tablewrap'}, pt));
      renderLoops(s, P, procCell);
    }
    var X = D.cycles.calc;
    if (!X) return;
    s.appendChild(el('p', {text: 'Where the cycles went (dcpicalc, alphaprof calc --summary, board ' + D.cycles.board + '): ' +
      num(Math.round(X.cycles)) + ' cycles in ' + num(X.procedures.length) + ' procedures, estimated from the cycle samples ' +
      '(and the event samples bounding the culprits). The listings show it per instruction.'}));
    s.appendChild(stackBar(X.stack, X.cycles, X.cycles, 600, 'calc-all-bar'));
    s.appendChild(stackLegend(X.stack));
    var t = el('table', {id: 'calc-summary'});
    t.appendChild(el('thead', null, el('tr', null, el('th', {cls: 'num', text: 'cycles%'}), el('th', {cls: 'num', text: 'stall%'}),
      el('th', {cls: 'num', text: 'unexpl%'}), el('th', {text: 'procedure'}), el('th', {text: 'image'}),
      el('th', {text: 'cycle stack'}))));
    var body = el('tbody');
    var maxc = X.procedures.length ? X.procedures[0][2] : 1;
    X.procedures.slice(0, 300).forEach(function (r) {
      var stall = r[3], unexpl = r[4][r[4].length - 1];
      var tr = el('tr', null, td(pct(X.cycles > 0 ? r[2] / X.cycles : 0), 'num'), td(pct(r[2] > 0 ? stall / r[2] : 0, 1), 'num'),
                  td(pct(stall > 0 ? unexpl / stall : 0, 1), 'num'), procCell(r[0], r[1]), td(r[1]),
                  el('td', null, stackBar(r[4], r[2], maxc, 240)));
      tr.dataset.cycles = String(r[2]);
      body.appendChild(tr);
    });
    t.appendChild(body);
    s.appendChild(el('div', {cls: 'tablewrap'}, t));
  }

  /* ------------------------------------------------------------ listings */
  var listingBox;
  function renderListingSection() {
    var s = section('listing', 'Listing');
    listingBox = el('div', {id: 'listing-box'},
                    el('p', {cls: 'muted', text: 'Click a procedure in the table to see its source and instructions, heat-mapped by samples.'}));
    s.appendChild(listingBox);
  }
  function openListing(p) {
    var L = D.listings[p[3]];
    var ev = state.event;
    /* heat: the chosen event's samples, or ProfileMe's in a ProfileMe-only profile */
    function heat(r) { return nev ? r[1][ev] : (r[3] ? r[3][0] : 0); }
    var max = 0;
    L.rows.forEach(function (r) { if (heat(r) > max) max = heat(r); });
    var procTotal = (nev ? p[2][ev] : p[4]) || 1;
    var pmeOn = L.pme && D.pme;
    var t = el('table', {cls: 'listing', id: 'listing-table'});
    var head = el('tr');
    S.events.forEach(function (e) { head.appendChild(el('th', {cls: 'num', text: e.name})); });
    head.appendChild(el('th', {cls: 'num', text: '%'}));
    if (pmeOn) {
      head.appendChild(el('th', {cls: 'num', text: 'pme'}));
      head.appendChild(el('th', {cls: 'num', text: 'retired'}));
      D.pme.bits.forEach(function (b) { head.appendChild(el('th', {cls: 'num', text: b + '%'})); });
    }
    var valsOn = L.values;
    if (valsOn) {
      head.appendChild(el('th', {cls: 'num', text: 'top value'}));
      head.appendChild(el('th', {cls: 'num', text: 'share'}));
      head.appendChild(el('th', {cls: 'num', text: 'sampled'}));
    }
    var C = D.cycles;
    var stackOn = !!(L.stack && C && C.pme), calcOn = !!(L.calc && C && C.calc);
    var stackMax = 0, calcMax = 0;
    L.rows.forEach(function (r) {
      if (r[5]) stackMax = Math.max(stackMax, r[5][0]);
      if (r[6]) calcMax = Math.max(calcMax, r[6][7].reduce(function (a, b) { return a + b; }, 0));
    });
    if (stackOn) {
      head.appendChild(el('th', {cls: 'num', text: 'cycles'}));
      head.appendChild(el('th', {text: 'cycle stack'}));
    }
    if (calcOn) {
      head.appendChild(el('th', {cls: 'num', text: 'executions'}));
      head.appendChild(el('th', {text: 'conf'}));
      head.appendChild(el('th', {cls: 'num', text: 'CPI'}));
      head.appendChild(el('th', {text: 'culprit'}));
      head.appendChild(el('th', {text: 'calc stack'}));
    }
    head.appendChild(el('th', {text: 'address'}));
    head.appendChild(el('th', {text: 'instruction'}));
    t.appendChild(el('thead', null, head));
    var body = el('tbody');
    var ncols = nev + 3 + (pmeOn ? 2 + D.pme.bits.length : 0) + (valsOn ? 3 : 0) + (stackOn ? 2 : 0) + (calcOn ? 5 : 0);
    L.rows.forEach(function (r, i) {
      if (r[2]) {
        var where = r[2][2] ? r[2][2].split('/').pop() + ':' + r[2][0] : 'line ' + r[2][0];
        var inl = r[2][3].length ? '   [inlined: ' + r[2][3].join(' < ') + ']' : '';
        body.appendChild(el('tr', {cls: 'src'}, el('td', {colspan: String(ncols), cls: 'srctext',
                                                          text: where + '  ' + (r[2][1] || '') + inl})));
      }
      /* dcpicalc's bubbles: a line per stall cycle per execution (at most
       * 3, then the count), the letters of the culprits (calc's listing) */
      var cr = calcOn ? r[6] : null;
      if (cr && cr[5] >= 1 && cr[4]) {
        var lines = cr[5] > 3 ? 3 : Math.floor(cr[5]);
        for (var b = 0; b < lines; b++) body.appendChild(el('tr', {cls: 'bubble'}, el('td', {colspan: String(ncols), text: cr[4]})));
        if (cr[5] > 3) body.appendChild(el('tr', {cls: 'bubble'}, el('td', {colspan: String(ncols), text: cr[4] + ' ... ' + cr[9] + 'cy'})));
      }
      var tr = el('tr', {cls: 'insn-row'});
      tr.dataset.pc = String(L.start + 4 * i);
      var c = heat(r);
      for (var e = 0; e < nev; e++) tr.appendChild(td(r[1][e] ? num(r[1][e]) : '.', 'num'));
      tr.appendChild(td(c ? pct(c / procTotal, 1) : '', 'num'));
      if (pmeOn) {
        var m = r[3];
        tr.appendChild(td(m ? num(m[0]) : '.', 'num'));
        tr.appendChild(td(m ? num(m[1]) : '', 'num'));
        D.pme.bits.forEach(function (b, k) { tr.appendChild(td(m && m[0] ? (100 * m[2][k] / m[0]).toFixed(1) : '', 'num')); });
      }
      if (valsOn) {
        var v = r[4];   /* [top value, share, sampled, kind] (result, else another kind: marked *) */
        tr.appendChild(td(v ? v[0] + (v[3] === 'result' ? '' : '*') : '.', 'num mono'));
        tr.appendChild(td(v ? pct(v[1], 1) : '', 'num'));
        tr.appendChild(td(v ? num(v[2]) : '', 'num'));
      }
      if (stackOn) {
        var ps = r[5];   /* [cycles, pair records, retire share, [by cause]] */
        tr.appendChild(td(ps ? num(Math.round(ps[0])) : '', 'num'));
        tr.appendChild(el('td', {cls: 'stack-cell'}, ps ? stackBar(ps[3], ps[0], stackMax, 160) : null));
      }
      if (calcOn) {     /* [executions, confidence, CPI, culprit pc, letters, bubbles, dynamic stall, [stack],
                           CPI and bubbles as calc prints them] */
        var cs = cr ? cr[7].reduce(function (a, b) { return a + b; }, 0) : 0;
        tr.appendChild(td(cr ? num(Math.round(cr[0])) : '', 'num'));
        tr.appendChild(td(cr ? cr[1] : ''));
        tr.appendChild(td(cr ? (cr[2] === 0 && cr[0] > 0 ? '(paired)' : cr[8] + 'cy') : '', 'num'));
        tr.appendChild(td(cr ? (cr[4] || '') + (cr[3] !== null && cr[5] >= 0.5 ? ' ' + hex(cr[3]) : '') : '', 'mono'));
        tr.appendChild(el('td', {cls: 'stack-cell'}, cr && cs ? stackBar(cr[7], cs, calcMax, 160) : null));
        if (cr) {
          tr.dataset.executions = String(cr[0]);
          tr.dataset.cpi = String(cr[2]);
          tr.dataset.culprit = cr[3] === null ? '' : String(cr[3]);
          tr.dataset.letters = cr[4];
        }
      }
      tr.appendChild(td(hex(L.start + 4 * i)));
      tr.appendChild(td(r[0], 'insn'));
      if (c && max) {
        var f = c / max;
        tr.style.background = 'hsl(' + (48 - 48 * f) + ',100%,' + (94 - 38 * f) + '%)';
        tr.classList.add('hot');
      }
      body.appendChild(tr);
    });
    t.appendChild(body);
    listingBox.textContent = '';
    listingBox.appendChild(el('h3', {id: 'listing-title', text: p[0] + ' in ' + p[1]}));
    var what = nev ? num(p[2][ev]) + ' ' + S.events[ev].name + ' samples here (' + pct(p[2][ev] / (S.events[ev].total || 1)) +
      ' of the profile)' : num(p[4]) + ' ProfileMe samples here';
    listingBox.appendChild(el('p', {cls: 'muted', text: what + '; rows coloured by their share of the hottest instruction.' +
      (L.file ? ' Source: ' + L.file : '')}));
    if (stackOn) {
      listingBox.appendChild(stackSummary('listing-stack', 'Cycle stack of ' + p[0] + ': ' + num(Math.round(L.stack[0])) +
        ' cycles, estimated from ' + num(C.pme.pairs) + ' ProfileMe pairs (one every ' + num(Math.round(C.pme.pair_interval)) +
        ' fetched instructions) for the core of board ' + C.board + ', as alphaprof pme --stacks; per instruction in ' +
        'the columns cycles and cycle stack.', L.stack[1], L.stack[0]));
    }
    if (calcOn) {
      listingBox.appendChild(stackSummary('listing-calc', 'dcpicalc (alphaprof calc, board ' + C.board + '): ' +
        num(Math.round(L.calc.cycles)) + ' cycles, ' + pct(L.calc.cycles > 0 ? L.calc.stall / L.calc.cycles : 0, 1) +
        ' stalls; ' + L.calc.blocks + ' blocks in ' + L.calc.classes + ' frequency classes' +
        (L.calc.missing_edges ? ' (CFG missing edges: an indirect jump)' : '') + '. Per instruction its executions, ' +
        'confidence, cycles per execution and culprits (letters: ' + C.causes.map(function (c, k) {
          return C.letters.charAt(k) + ' ' + c; }).filter(function (x, k) { return k > 0; }).join(', ') +
        '), each stall cycle a bubble line above it.', L.calc.stack, L.calc.cycles));
    }
    listingBox.appendChild(el('div', {cls: 'tablewrap'}, t));
    listingBox.dataset.proc = p[0];
    document.getElementById('listing').scrollIntoView();
  }

  /* ------------------------------------------------------------ ProfileMe */
  function barChart(title, labels, values, cis, fmt, cls) {
    var w = 440, rowH = 18, left = 150, h = labels.length * rowH + 24;
    var vmax = 0;
    values.forEach(function (v, i) { vmax = Math.max(vmax, cis ? cis[i][1] : v); });
    vmax = vmax || 1;
    var g = svg('svg', {width: w, height: h});
    labels.forEach(function (lab, i) {
      var y = i * rowH + 4;
      g.appendChild(svg('text', {x: 2, y: y + 12, text: lab.length > 22 ? lab.slice(0, 21) + '\u2026' : lab}));
      var bw = (w - left - 60) * values[i] / vmax;
      g.appendChild(svg('rect', {x: left, y: y, width: Math.max(bw, 0.5), height: rowH - 5, 'class': 'bar' + (cls ? ' ' + cls : '')}));
      if (cis) {
        var x0 = left + (w - left - 60) * cis[i][0] / vmax, x1 = left + (w - left - 60) * cis[i][1] / vmax;
        g.appendChild(svg('line', {x1: x0, x2: x1, y1: y + 6, y2: y + 6, 'class': 'ci'}));
        g.appendChild(svg('line', {x1: x0, x2: x0, y1: y + 2, y2: y + 10, 'class': 'ci'}));
        g.appendChild(svg('line', {x1: x1, x2: x1, y1: y + 2, y2: y + 10, 'class': 'ci'}));
      }
      g.appendChild(svg('text', {x: w - 56, y: y + 12, text: fmt(values[i])}));
    });
    return el('div', {cls: 'chart'}, el('h3', {text: title}), g);
  }
  /* Wilson's 95 % interval of a proportion k / n. */
  function wilson(k, n) {
    if (!n) return [0, 0];
    var z = 1.959964, p = k / n, d = 1 + z * z / n;
    var c = (p + z * z / (2 * n)) / d, h = z * Math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d;
    return [Math.max(0, c - h), Math.min(1, c + h)];
  }
  function renderProfileMe() {
    var P = D.pme;
    var s = section('profileme', 'ProfileMe');
    s.appendChild(el('p', {text: num(P.samples) + ' ProfileMe samples, ' + num(P.retired) + ' retired, ' + num(P.aborted) +
      ' aborted; one sample per ' + (P.interval ? num(Math.round(P.interval)) : '?') + ' fetched instructions. ' +
      'Rates are per sampled instruction with 95% Wilson intervals.'}));
    var charts = el('div', {cls: 'charts', id: 'pme-charts'});
    s.appendChild(charts);
    /* event rates over the whole profile */
    var tot = P.bits.map(function () { return 0; });
    P.insns.forEach(function (r) { r[4].forEach(function (c, b) { tot[b] += c; }); });
    charts.appendChild(barChart('Event rates, whole profile', P.bits, tot.map(function (c) { return c / P.samples; }),
      tot.map(function (c) { return wilson(c, P.samples); }), function (v) { return pct(v, 1); }));
    /* per procedure: the busiest ones' rates of the most frequent event */
    var byProc = new Map();
    P.insns.forEach(function (r) {
      var a = byProc.get(r[0]);
      if (!a) { a = {n: 0, bits: P.bits.map(function () { return 0; }), lat: P.latencies.map(function () { return 0; })}; byProc.set(r[0], a); }
      a.n += r[2];
      r[4].forEach(function (c, b) { a.bits[b] += c; });
      r[5].forEach(function (c, f) { a.lat[f] += c; });
    });
    var procs = Array.from(byProc.entries()).sort(function (x, y) { return y[1].n - x[1].n; }).slice(0, 12);
    /* the most frequent event other than retiring */
    var top = -1;
    tot.forEach(function (c, b) { if (P.bits[b] !== 'retired' && (top < 0 || c > tot[top])) top = b; });
    if (top >= 0) {
      charts.appendChild(barChart(P.bits[top] + ' rate, busiest procedures', procs.map(function (p) { return p[0]; }),
        procs.map(function (p) { return p[1].bits[top] / p[1].n; }), procs.map(function (p) { return wilson(p[1].bits[top], p[1].n); }),
        function (v) { return pct(v, 1); }, 'alt'));
    }
    /* latency histograms: samples by their instruction's mean latency, log2 bins */
    P.latencies.forEach(function (name, f) {
      var bins = [];
      P.insns.forEach(function (r) {
        if (!r[2]) return;
        var mean = r[5][f] / r[2];
        var b = mean < 1 ? 0 : Math.min(12, 1 + Math.floor(Math.log2(mean)));
        bins[b] = (bins[b] || 0) + r[2];
      });
      var labels = [], values = [];
      for (var b = 0; b < bins.length; b++) {
        var lo = 1 << (b - 1), hi = (1 << b) - 1;
        labels.push(b === 0 ? '< 1 cycle' : lo === hi ? '1 cycle' : lo + '\u2013' + hi + ' cycles');
        values.push(bins[b] || 0);
      }
      if (values.length) {
        charts.appendChild(barChart('Latency ' + name + ': samples by their instruction\'s mean', labels, values, null,
          function (v) { return num(v); }));
      }
    });
  }

  /* ------------------------------------------------------------ values */
  /* Value sampling's profiles: per instruction and value kind the top
   * values with their share of the sampled executions and its 95%
   * interval, semi-invariants first (the order alphaprof values uses). */
  function renderValues() {
    var V = D.values;
    var s = section('values', 'Values');
    s.appendChild(el('p', {text: 'Value sampling: ' + num(V.rows.length + V.more) + ' instructions and value kinds, ' +
      'semi-invariants first (the lower end of the top value\'s 95% interval). Shares are of the executions the ' +
      'interpreter sampled; "accessor" rows are data addresses with the instructions that touched them.' +
      (V.more ? ' The first ' + num(V.rows.length) + ' are shown (alphaprof values lists all).' : '')}));
    var kinds = {};
    V.rows.forEach(function (r) { kinds[r[2]] = 1; });
    var pick = el('select', {id: 'values-kind'});
    pick.appendChild(el('option', {value: '', text: 'every kind'}));
    Object.keys(kinds).sort().forEach(function (k) { pick.appendChild(el('option', {value: k, text: k})); });
    s.appendChild(el('label', {text: 'kind '}, pick));
    var t = el('table', {id: 'values-table'});
    t.appendChild(el('thead', null, el('tr', null, el('th', {text: 'procedure'}), el('th', {text: 'pc'}),
      el('th', {text: 'kind'}), el('th', {cls: 'num', text: 'sampled'}), el('th', {cls: 'num', text: 'top value'}),
      el('th', {cls: 'num', text: 'share'}), el('th', {cls: 'num', text: '95% interval'}), el('th', {text: 'next values (share)'}))));
    var body = el('tbody');
    t.appendChild(body);
    function draw() {
      body.textContent = '';
      V.rows.forEach(function (r) {
        if (pick.value && r[2] !== pick.value) return;
        var top = r[4][0];
        var rest = r[4].slice(1).map(function (x) { return x[0] + ' (' + pct(x[1], 1) + ')'; }).join(', ');
        if (r[5] > r[4].length) rest += (rest ? ', ' : '') + '+' + (r[5] - r[4].length) + ' more';
        var inv = top && top[2] >= 0.5;
        body.appendChild(el('tr', {cls: inv ? 'invariant' : ''}, td(r[0]), td(hex(r[1]), 'mono'), td(r[2]), td(num(r[3]), 'num'),
          td(top ? top[0] : '', 'num mono'), td(top ? pct(top[1], 1) : '', 'num'),
          td(top ? pct(top[2], 1) + '\u2013' + pct(top[3], 1) : '', 'num'), td(rest)));
      });
    }
    pick.addEventListener('change', draw);
    draw();
    s.appendChild(el('div', {cls: 'tablewrap'}, t));
  }

  /* ------------------------------------------------------------ paths */
  /* Hot paths per procedure from paired ProfileMe samples, as alphaprof
   * paths prints them: samples on the path, share of the procedure's
   * samples, estimated executions, blocks oldest first. */
  function renderPaths() {
    var P = D.paths;
    var s = section('paths', 'Paths');
    s.appendChild(el('p', {text: 'Hot paths from ' + num(P.samples) + ' retired paired ProfileMe samples in procedures (' +
      P.bits + ' history bits; ' + num(P.used) + ' with a unique path, ' + num(P.not_retired) + ' aborted, ' +
      num(P.no_code) + ' outside any procedure\'s code). Estimated executions: samples \u00d7 the interval ' +
      Number(P.interval).toFixed(0) + ' / the sampled block\'s length. Samples without a unique path are counted ' +
      'per procedure, never spread over paths; alphaprof check --paths measures the reconstruction.'}));
    var t = el('table', {id: 'paths-table'});
    t.appendChild(el('thead', null, el('tr', null, el('th', {text: 'procedure'}), el('th', {cls: 'num', text: 'samples'}),
      el('th', {cls: 'num', text: 'share'}), el('th', {cls: 'num', text: 'executions'}),
      el('th', {text: 'path (oldest block first)'}))));
    var body = el('tbody');
    P.procs.forEach(function (pr) {
      var o = pr[3];
      body.appendChild(el('tr', {cls: 'path-proc'}, el('td', {colspan: '5'},
        el('a', {cls: 'proc', text: pr[0], onclick: function () {
          var p = D.procs.filter(function (q) { return q[0] === pr[0] && q[1] === pr[1] && q[3] >= 0; })[0];
          if (p) openListing(p);
        }}),
        ' (' + pr[1] + '): ' + num(pr[2]) + ' samples; ' + num(o[0]) + ' on a unique path, ' + num(o[1]) +
        ' ambiguous, ' + num(o[2]) + ' none, ' + num(o[3]) + ' unresolved')));
      pr[5].forEach(function (r) {
        body.appendChild(el('tr', {cls: 'path-row'}, td(pr[0]), td(num(r[0]), 'num'),
          td(pct(pr[2] ? r[0] / pr[2] : 0, 1), 'num'), td(num(Math.round(r[1])), 'num'),
          td((r[2] ? '(entry) ' : '') + r[3], 'mono')));
      });
      if (pr[4]) body.appendChild(el('tr', {cls: 'path-more'}, el('td', {colspan: '5', cls: 'muted',
        text: num(pr[4]) + ' more paths (alphaprof paths --proc ' + pr[0] + ' --limit 0)'})));
    });
    t.appendChild(body);
    s.appendChild(el('div', {cls: 'tablewrap'}, t));
  }

  /* ------------------------------------------------------------ diff */
  function renderDiff() {
    var X = D.diff;
    procDelta = new Map();
    X.rows.forEach(function (r) { procDelta.set(r[1] + '\u0001' + r[0], r[7] ? r[4] : 0); });
    var s = section('diff', 'Diff against the base');
    s.appendChild(el('p', {text: 'Base (A): ' + X.base + ', ' + num(X.total_base) + ' samples. This profile (B): ' + num(X.total) +
      ' samples. Each procedure\'s share tested with the two-proportion z-test; significant at ' + X.alpha +
      ' after Holm\'s correction over ' + X.rows.length + ' rows.'}));
    var t = el('table', {id: 'diff-table'});
    t.appendChild(el('thead', null, el('tr', null, el('th', {text: 'procedure'}), el('th', {text: 'image'}), el('th', {cls: 'num', text: 'A'}),
      el('th', {cls: 'num', text: 'A%'}), el('th', {cls: 'num', text: 'B'}), el('th', {cls: 'num', text: 'B%'}),
      el('th', {cls: 'num', text: 'delta%'}), el('th', {cls: 'num', text: 'z'}), el('th', {cls: 'num', text: 'p (Holm)'}),
      el('th', {text: 'significant'}))));
    var body = el('tbody');
    X.rows.slice(0, 500).forEach(function (r) {
      var tr = el('tr', {cls: r[7] ? (r[4] > 0 ? 'sig-up' : 'sig-down') : ''}, td(r[0]), td(r[1]), td(num(r[2]), 'num'),
        td(pct(r[2] / (X.total_base || 1)), 'num'), td(num(r[3]), 'num'), td(pct(r[3] / (X.total || 1)), 'num'),
        td((r[4] > 0 ? '+' : '') + (100 * r[4]).toFixed(2), 'num'), td(Number(r[5]).toFixed(2), 'num'),
        td(Number(r[6]).toPrecision(3), 'num'), td(r[7] ? 'yes' : 'no'));
      body.appendChild(tr);
    });
    t.appendChild(body);
    s.appendChild(el('div', {cls: 'tablewrap'}, t));
  }

  /* ------------------------------------------------------------ the page */
  renderSummary();
  if (D.diff) renderDiff();
  if (D.stacks.length) renderFlame();
  renderTable();
  renderListingSection();
  if (D.cycles) renderCycles();
  if (D.pme) renderProfileMe();
  if (D.paths) renderPaths();
  if (D.values) renderValues();
  /* A link may say where to start: #proc=NAME (its listing), sort=COLUMN
   * or sort=-COLUMN (the table, descending), zoom=NAME (the flame graph,
   * at the widest frame of that name), joined by '&'. */
  var want = {};
  location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
    var i = kv.indexOf('=');
    if (i > 0) want[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
  });
  if (want.sort) {
    var desc = want.sort.charAt(0) === '-', name = desc ? want.sort.slice(1) : want.sort;
    COLS.forEach(function (c, k) {
      if (c.name === name) { state.sortKey = k; state.sortDesc = desc; }
    });
    drawTable();
  }
  if (want.zoom && flameRoot) {
    var best = null;
    (function find(n) {
      if (n.name === want.zoom && (!best || n.value > best.value)) best = n;
      n.kids.forEach(find);
    })(flameRoot);
    if (best) { state.zoom = best; drawFlame(); }
  }
  if (want.proc) {
    var p = D.procs.filter(function (q) { return q[0] === want.proc && q[3] >= 0; })[0];
    if (p) openListing(p);
  }
  document.body.dataset.renderMs = String(Math.round(performance.now() - started));
  document.body.dataset.loadedMs = String(Math.round(performance.now()));   /* since navigation began */
  document.body.dataset.ready = '1';
})();
