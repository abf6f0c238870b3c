// dpgossip viz: draws the event stream (docs/events.md) pushed by
// `dpgossip viz` over Server-Sent Events. Plain JavaScript, no dependency,
// nothing fetched from elsewhere.
//
// Model: everything but message events is kept per round, so the view can
// show any round (time slider) while new events keep arriving; message
// events are only animated as they come (brief edge flashes).
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const STREAM_VERSION = 1;
  const FLASH_MS = 450;
  const MAX_FLASHES = 4000;

  // ---- State -------------------------------------------------------------
  let S = null;
  function emptyState() {
    return {
      start: null, // the run start body
      n: 0,
      labels: null, // graph.labels: node u is called labels[u] (null: u)
      pos: [], // [x, y] in layout units
      edges: [], // [u, v]
      edgeDown: new Set(), // "u-v" keys currently removed
      nodeLeft: new Set(),
      adj: [],
      degree: [],
      rounds: [], // rounds seen, increasing
      roundTime: new Map(), // round -> t_ns
      loss: new Map(), // round -> Float32Array(n), carried forward (NaN unknown)
      lossRounds: [],
      lossMin: Infinity,
      lossMax: -Infinity,
      avgLoss: [], // [round, mean test loss]
      hasTestLoss: false, // a finite test loss arrived: the stream carries the metric
      hasEps: false, // a privacy event with ε arrived
      privacy: new Map(), // key -> {name, trust, attackers, byRound: Map(round -> rec)}
      lastSeq: -1,
      missed: 0, // seq gaps since the page caught up: events lost on the way
      beforeJoin: 0, // seq gaps until then: message events sent before the page joined (never kept)
      live: false, // the server said this page has the run's whole history
      events: 0,
      messages: 0,
      dropped: 0,
      tNs: 0,
      ended: null,
    };
  }
  const view = {
    follow: true, // show the latest round
    round: null, // the round shown when not following
    paused: false,
    target: null, // run-to-round: the round to stop at when it arrives
    colorPick: 'auto', // the Colour list: 'auto' or the metric the user chose (kept across runs)
    scale: 'round', // colour scale: 'round' (the shown round's range) or 'run'
    attacker: '', // privacy key
    flashes: [],
    transform: null,
    dirtyBase: true,
    nodesDrawn: 0,
    nodeColors: [],
    connected: false,
    serverIdleMs: -1,
    serverSkipped: 0,
    lastEventAt: 0,
    charts: {}, // canvas id -> what drawChart drew
  };

  // ---- Colour maps -------------------------------------------------------
  const VIRIDIS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
  const HEAT = [[255, 247, 188], [254, 196, 79], [236, 112, 20], [189, 0, 38], [103, 0, 13]];
  function ramp(stops, t) {
    t = Math.min(1, Math.max(0, t));
    const x = t * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(x));
    const f = x - i;
    const a = stops[i], b = stops[i + 1];
    return `rgb(${Math.round(a[0] + f * (b[0] - a[0]))},${Math.round(a[1] + f * (b[1] - a[1]))},${Math.round(a[2] + f * (b[2] - a[2]))})`;
  }
  const NO_DATA = 'rgb(190,194,200)';
  const UNPROTECTED = 'rgb(20,20,20)';
  const ATTACKER = 'rgb(43,108,176)'; // in neither ramp: the attacker set stands out in every mode

  // ---- Helpers -----------------------------------------------------------
  function shownRound() {
    if (!S || S.rounds.length === 0) return null;
    return view.follow ? S.rounds[S.rounds.length - 1] : view.round;
  }
  // Largest key of sorted array `keys` that is <= r (or undefined).
  function floorKey(keys, r) {
    let lo = 0, hi = keys.length - 1, best;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (keys[mid] <= r) { best = keys[mid]; lo = mid + 1; } else hi = mid - 1;
    }
    return best;
  }
  function insertSorted(arr, v) {
    if (arr.length === 0 || arr[arr.length - 1] < v) { arr.push(v); return; }
    let i = arr.length;
    while (i > 0 && arr[i - 1] > v) i--;
    if (arr[i - 1] !== v) arr.splice(i, 0, v);
  }
  function fmt(x) {
    if (x === null || x === undefined || Number.isNaN(x)) return '–';
    if (!Number.isFinite(x)) return '∞';
    const a = Math.abs(x);
    if (a !== 0 && (a < 1e-3 || a >= 1e5)) return x.toExponential(2);
    return x.toPrecision(3);
  }
  // Axis ticks: integers as integers, others with few digits.
  function fmtTick(x) {
    if (Number.isInteger(x) && Math.abs(x) < 1e6) return String(x);
    return String(Number(x.toPrecision(3)));
  }
  const count = (k) => k.toLocaleString('en-US');
  // Simulated time in the unit that suits it.
  function fmtTime(ns) {
    const units = [[1e9, 's'], [1e6, 'ms'], [1e3, 'µs']];
    for (const [f, u] of units) if (ns >= f) return `${Number((ns / f).toPrecision(3))} ${u}`;
    return `${ns} ns`;
  }
  function edgeKey(u, v) { return u < v ? `${u}-${v}` : `${v}-${u}`; }
  function toast(text) {
    const t = $('toast');
    t.textContent = text;
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.hidden = true; }, 2600);
  }

  // Node u as the user names it: its label when the run start gave labels.
  function nodeName(u) {
    return S && S.labels ? S.labels[u] : String(u);
  }

  // @s safe inside SVG text (labels are user text).
  function escapeXml(s) {
    return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  }

  // ---- Events --------------------------------------------------------------
  function onRunStart(b) {
    S = emptyState();
    S.start = b;
    const g = b.graph || {};
    S.n = g.n | 0;
    S.edges = Array.isArray(g.edges) ? g.edges.filter((e) => e[0] < S.n && e[1] < S.n) : [];
    if (Array.isArray(g.positions) && g.positions.length === S.n) {
      S.pos = g.positions.map((p) => [Number(p[0]) || 0, Number(p[1]) || 0]);
    } else {
      S.pos = []; // no layout in the stream: a circle
      for (let u = 0; u < S.n; u++) S.pos.push([Math.cos((2 * Math.PI * u) / S.n), Math.sin((2 * Math.PI * u) / S.n)]);
    }
    S.adj = Array.from({ length: S.n }, () => []);
    for (const [u, v] of S.edges) { S.adj[u].push(v); S.adj[v].push(u); }
    S.degree = S.adj.map((a) => a.length);
    // A labelled graph file's names (graph.labels), else the ids.
    S.labels = Array.isArray(g.labels) && g.labels.length === S.n ? g.labels.map(String) : null;
    view.follow = !view.paused;
    view.round = null;
    view.flashes = [];
    view.attacker = '';
    view.dirtyBase = true;
    $('run-name').textContent = b.name || 'run';
    $('rounds').textContent = b.rounds ? ` / ${b.rounds}` : '';
    $('empty').hidden = true;
    refreshAttackers();
    refreshAll();
  }

  function onRunEnd(b) {
    S.ended = b;
    refreshAll();
  }

  function onRound(b) {
    const r = b.round;
    if (!Number.isInteger(r) || S.roundTime.has(r)) return;
    insertSorted(S.rounds, r);
    S.roundTime.set(r, b.t_ns);
    refreshAll();
    checkTarget();
  }

  function onMetric(b) {
    const r = b.round;
    const nodes = b.nodes, test = b.test_loss;
    if (!Number.isInteger(r) || !Array.isArray(nodes) || !Array.isArray(test)) return;
    let arr = S.loss.get(r);
    if (!arr) {
      const prev = floorKey(S.lossRounds, r);
      arr = prev === undefined ? new Float32Array(S.n).fill(NaN) : Float32Array.from(S.loss.get(prev));
      S.loss.set(r, arr);
      insertSorted(S.lossRounds, r);
    }
    for (let i = 0; i < nodes.length; i++) {
      const u = nodes[i], x = test[i];
      if (u >= 0 && u < S.n && typeof x === 'number') {
        arr[u] = x;
        if (Number.isFinite(x)) S.hasTestLoss = true;
        if (x > 0) { S.lossMin = Math.min(S.lossMin, x); }
        S.lossMax = Math.max(S.lossMax, x);
      }
    }
    let sum = 0, k = 0;
    for (let u = 0; u < S.n; u++) if (Number.isFinite(arr[u])) { sum += arr[u]; k++; }
    const idx = S.avgLoss.findIndex((p) => p[0] === r);
    const point = [r, k ? sum / k : NaN];
    if (idx >= 0) S.avgLoss[idx] = point; else { S.avgLoss.push(point); S.avgLoss.sort((a, b2) => a[0] - b2[0]); }
    if (!S.roundTime.has(r) && S.rounds.length === 0) {
      // A stream without round events: metrics define the rounds.
      insertSorted(S.rounds, r);
      S.roundTime.set(r, b.t_ns);
    }
    refreshAll();
  }

  function onPrivacy(b) {
    if (!Array.isArray(b.attackers) || !Array.isArray(b.victims) || !Array.isArray(b.mu)) return;
    const key = `${b.collusion}|${b.trust}`;
    let p = S.privacy.get(key);
    if (!p) {
      p = { key, name: String(b.collusion), trust: String(b.trust), attackers: b.attackers.slice(), byRound: new Map(), rounds: [], hasEps: false };
      S.privacy.set(key, p);
      refreshAttackers();
    }
    const r = Number.isInteger(b.round) ? b.round : 0;
    // null mu/epsilon means infinite (unprotected victim).
    const inf = (x) => (x === null ? Infinity : Number(x));
    p.byRound.set(r, {
      victims: b.victims,
      mu: b.mu.map(inf),
      eps: Array.isArray(b.epsilon) ? b.epsilon.map(inf) : null,
      distance: Array.isArray(b.distance) ? b.distance : null,
      delta: b.delta,
    });
    insertSorted(p.rounds, r);
    if (Array.isArray(b.epsilon)) p.hasEps = S.hasEps = true;
    if (!view.attacker) {
      view.attacker = key;
      $('attacker').value = key;
    }
    refreshAll();
  }

  function onTopology(b) {
    for (const u of b.left || []) S.nodeLeft.add(u);
    for (const u of b.joined || []) S.nodeLeft.delete(u);
    for (const e of b.removed || []) S.edgeDown.add(edgeKey(e[0], e[1]));
    for (const e of b.added || []) {
      const k = edgeKey(e[0], e[1]);
      if (S.edgeDown.has(k)) S.edgeDown.delete(k);
      else if (e[0] < S.n && e[1] < S.n && !S.adj[e[0]].includes(e[1])) {
        S.edges.push([e[0], e[1]]);
        S.adj[e[0]].push(e[1]);
        S.adj[e[1]].push(e[0]);
      }
    }
    view.dirtyBase = true;
  }

  function onMessage(b) {
    S.messages++;
    if (b.dropped !== null && b.dropped !== undefined) S.dropped++;
    if (view.paused || !view.follow || !$('flashes').checked) return;
    if (!(b.from < S.n && b.to < S.n)) return;
    view.flashes.push({ from: b.from, to: b.to, t0: performance.now(), dropped: b.dropped != null });
    if (view.flashes.length > MAX_FLASHES) view.flashes.splice(0, view.flashes.length - MAX_FLASHES);
  }

  function handle(topic, data) {
    let b;
    try { b = JSON.parse(data); } catch (e) { return; }
    if (!b || typeof b !== 'object' || b.v !== STREAM_VERSION) return;
    view.lastEventAt = performance.now();
    if (topic === 'run' && b.event === 'start') { onRunStart(b); }
    if (!S) return; // nothing to draw on before a run start
    S.events++;
    if (Number.isInteger(b.seq)) {
      if (b.seq > S.lastSeq + 1 && S.lastSeq >= 0) S.missed += b.seq - S.lastSeq - 1;
      if (b.seq > S.lastSeq) S.lastSeq = b.seq;
    }
    if (Number.isInteger(b.t_ns) && b.t_ns > S.tNs) S.tNs = b.t_ns;
    switch (topic) {
      case 'run': if (b.event === 'end') onRunEnd(b); break;
      case 'round': onRound(b); break;
      case 'metric': onMetric(b); break;
      case 'privacy': onPrivacy(b); break;
      case 'topology': onTopology(b); break;
      case 'message': onMessage(b); break;
      default: break; // a topic from a newer dpgossip
    }
  }

  // ---- Colour metric -------------------------------------------------------
  // The automatic choice is the first of test loss, ε and μ that the stream
  // carries, so an accounting-only run (or a training run before its first
  // evaluation has arrived) is not left in the "no data" grey while privacy
  // values exist. It depends on the data received only, not on when the page
  // joined, so every page of a run makes the same choice once caught up.
  function autoColorMode() {
    if (!S || S.hasTestLoss) return 'loss';
    if (S.hasEps) return 'epsilon';
    return S.privacy.size ? 'mu' : 'loss';
  }
  function colorMode() {
    return view.colorPick === 'auto' ? autoColorMode() : view.colorPick;
  }
  const METRIC_NAMES = { loss: 'test loss', epsilon: 'privacy loss ε', mu: 'privacy loss μ (GDP)' };
  // The Colour list says what "automatic" stands for and which metrics the
  // stream does not carry (yet).
  function refreshColorList() {
    const sel = $('color-mode');
    const has = { loss: !!(S && S.hasTestLoss), epsilon: !!(S && S.hasEps), mu: !!(S && S.privacy.size) };
    for (const o of sel.options) {
      const text = o.value === 'auto' ? `automatic: ${METRIC_NAMES[autoColorMode()]}`
        : `${METRIC_NAMES[o.value]}${has[o.value] ? '' : ' (none yet)'}`;
      if (o.textContent !== text) o.textContent = text;
    }
    if (sel.value !== view.colorPick) sel.value = view.colorPick;
  }
  // A privacy view asked for by choosing an attacker: ε, or μ when the set has no ε.
  function pickPrivacyColors() {
    if (colorMode() !== 'loss') return;
    const p = S && S.privacy.get(view.attacker);
    view.colorPick = p && !p.hasEps ? 'mu' : 'epsilon';
  }

  // Simulated time is worth showing only when nodes go at their own pace (an
  // asynchronous mode): in sync mode the round is the clock. A stream whose
  // run start does not name its mode shows the time once it moves.
  function showsTime() {
    if (!S) return false;
    const m = S.start && S.start.scenario && S.start.scenario.mode;
    if (typeof m === 'string') return m !== 'sync';
    return S.tNs > 0;
  }

  // ---- Privacy helpers ---------------------------------------------------
  function hopDistances(sources) {
    const d = new Int32Array(S.n).fill(-1);
    const q = [];
    for (const s of sources) if (s < S.n && d[s] < 0) { d[s] = 0; q.push(s); }
    for (let i = 0; i < q.length; i++) {
      const u = q[i];
      for (const v of S.adj[u]) if (d[v] < 0) { d[v] = d[u] + 1; q.push(v); }
    }
    return d;
  }
  // The privacy record of the selected set at round r (latest <= r).
  function privacyAt(r) {
    const p = S && S.privacy.get(view.attacker);
    if (!p) return null;
    const k = r === null ? p.rounds[p.rounds.length - 1] : floorKey(p.rounds, r);
    if (k === undefined) return null;
    const rec = p.byRound.get(k);
    if (!p.dist) p.dist = hopDistances(p.attackers);
    return { set: p, round: k, rec };
  }
  // Victim i's value in colour mode `mode`: μ when asked or when the record has no ε.
  function privacyValue(rec, i, mode) {
    if (mode === 'mu' || !rec.eps) return rec.mu[i];
    return rec.eps[i];
  }

  // ---- Colours of nodes ----------------------------------------------------
  // Log-scale position of x in [lo, hi] (lo > 0); a single value sits mid-ramp.
  function logPos(x, lo, hi) {
    if (!(hi > lo)) return 0.5;
    return (Math.log10(Math.max(x, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo));
  }
  // Range [lo, hi] of the positive finite values of xs, or null.
  function positiveRange(xs) {
    let lo = Infinity, hi = -Infinity;
    for (const x of xs) if (Number.isFinite(x) && x > 0) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
    return lo <= hi ? [lo, hi] : null;
  }
  // The selected attacker set, highlighted in every colour mode, or null.
  function selectedSet() {
    return (S && S.privacy.get(view.attacker)) || null;
  }
  function setLabel(p) {
    const ids = p.attackers.slice(0, 6).join(', ') + (p.attackers.length > 6 ? ', …' : '');
    return `${p.name} {${ids}} (${p.trust})`;
  }
  // The scale's labels: its ends and its middle (geometric: the bar is log).
  function scaleLabels(legend, range) {
    legend.range = range;
    legend.lo = fmt(range[0]);
    legend.mid = range[1] > range[0] ? fmt(Math.sqrt(range[0] * range[1])) : '';
    legend.hi = range[1] > range[0] ? fmt(range[1]) : '';
  }
  // The colour scale is the shown round's own range (default) or the whole
  // run's: over the run, the losses of round 0 dwarf those at the end and
  // every node would end the run in the same colour. Both ramps run from the
  // lowest value (left of the bar) to the highest (right), as axes do.
  function computeColors() {
    const colors = new Array(S.n).fill(NO_DATA);
    const r = shownRound();
    const perRound = view.scale === 'round';
    const mode = colorMode();
    const legend = { title: '', lo: '', mid: '', hi: '', stops: VIRIDIS, range: null, keys: [] };
    let unprotected = false;
    if (mode === 'loss') {
      const k = r === null ? undefined : floorKey(S.lossRounds, r);
      const arr = k === undefined ? null : S.loss.get(k);
      const range = perRound ? (arr ? positiveRange(arr) : null)
        : (S.lossMin <= S.lossMax && S.lossMin > 0 ? [S.lossMin, S.lossMax] : null);
      if (arr && range) {
        for (let u = 0; u < S.n; u++) {
          const x = arr[u];
          if (Number.isFinite(x)) colors[u] = ramp(VIRIDIS, logPos(x, range[0], range[1]));
        }
        scaleLabels(legend, range);
        legend.title = `test loss, log scale over ${perRound ? `round ${k}` : 'the whole run'}`;
      } else {
        legend.title = S.privacy.size ? 'test loss: none in this stream yet' : 'no test loss or privacy loss in this stream yet';
      }
    } else {
      const pa = privacyAt(r);
      legend.stops = HEAT;
      const what = mode === 'mu' || (pa && !pa.rec.eps) ? 'μ' : `ε (δ = ${pa ? fmt(pa.rec.delta) : '–'})`;
      if (pa) {
        const vals = pa.rec.victims.map((v, i) => privacyValue(pa.rec, i, mode));
        let range = positiveRange(vals);
        if (!perRound) {
          // The selected set over every round received.
          const all = [];
          for (const rec of pa.set.byRound.values()) rec.victims.forEach((v, i) => all.push(privacyValue(rec, i, mode)));
          range = positiveRange(all);
        }
        // Privacy losses span decades (they fall fast with distance): log scale.
        pa.rec.victims.forEach((v, i) => {
          if (v >= S.n) return;
          const x = vals[i];
          if (!Number.isFinite(x)) unprotected = true;
          colors[v] = !Number.isFinite(x) ? UNPROTECTED : range ? ramp(HEAT, x > 0 ? logPos(x, range[0], range[1]) : 0) : ramp(HEAT, 0);
        });
        for (const a of pa.set.attackers) if (a < S.n) colors[a] = ATTACKER;
        legend.title = `${what} of each victim, log scale over ${perRound ? `round ${pa.round}` : 'the whole run'}`;
        if (range) scaleLabels(legend, range);
      } else {
        legend.title = S.privacy.size ? `${what}: no value yet at this round` : `${what}: no privacy events in this stream yet`;
      }
    }
    const set = selectedSet();
    if (set) legend.keys.push({ kind: 'attacker', text: `attacker set ${setLabel(set)}` });
    if (unprotected) legend.keys.push({ kind: 'unprotected', text: 'unprotected victim (∞)' });
    const attackers = new Set(set ? set.attackers : []);
    if (colors.some((c, u) => c === NO_DATA && !attackers.has(u))) {
      legend.keys.push({ kind: 'nodata', text: 'no value' });
    }
    return { colors, legend };
  }

  // ---- Drawing -------------------------------------------------------------
  const canvas = $('graph');
  const ctx = canvas.getContext('2d');
  const base = document.createElement('canvas');
  const bctx = base.getContext('2d');

  function resize() {
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
      base.width = canvas.width;
      base.height = canvas.height;
      view.dirtyBase = true;
    }
  }

  function fitTransform() {
    const dpr = window.devicePixelRatio || 1;
    let minx = Infinity, miny = Infinity, maxx = -Infinity, maxy = -Infinity;
    for (const [x, y] of S.pos) {
      minx = Math.min(minx, x); maxx = Math.max(maxx, x);
      miny = Math.min(miny, y); maxy = Math.max(maxy, y);
    }
    const w = canvas.width, h = canvas.height, m = 30 * dpr;
    const sx = (w - 2 * m) / Math.max(maxx - minx, 1e-9);
    const sy = (h - 2 * m) / Math.max(maxy - miny, 1e-9);
    const s = Math.min(sx, sy);
    const ox = (w - s * (maxx - minx)) / 2 - s * minx;
    const oy = (h - s * (maxy - miny)) / 2 - s * miny;
    return { s, ox, oy, dpr };
  }
  function screen(u) {
    const t = view.transform;
    return [t.ox + t.s * S.pos[u][0], t.oy + t.s * S.pos[u][1]];
  }
  function nodeRadius() {
    const dpr = window.devicePixelRatio || 1;
    return Math.max(1.5, Math.min(11, 160 / Math.sqrt(Math.max(S.n, 1)))) * dpr;
  }

  function drawBase() {
    view.transform = fitTransform();
    bctx.clearRect(0, 0, base.width, base.height);
    bctx.lineWidth = Math.max(0.5, Math.min(1.5, 40 / Math.sqrt(S.edges.length + 1))) * view.transform.dpr;
    bctx.strokeStyle = 'rgba(90,100,115,0.35)';
    bctx.beginPath();
    const down = [];
    for (const [u, v] of S.edges) {
      if (S.edgeDown.has(edgeKey(u, v))) { down.push([u, v]); continue; }
      const a = screen(u), b = screen(v);
      bctx.moveTo(a[0], a[1]);
      bctx.lineTo(b[0], b[1]);
    }
    bctx.stroke();
    if (down.length) {
      bctx.setLineDash([4, 4]);
      bctx.strokeStyle = 'rgba(197,48,48,0.35)';
      bctx.beginPath();
      for (const [u, v] of down) {
        const a = screen(u), b = screen(v);
        bctx.moveTo(a[0], a[1]);
        bctx.lineTo(b[0], b[1]);
      }
      bctx.stroke();
      bctx.setLineDash([]);
    }
    view.dirtyBase = false;
  }

  function drawFlashes(now) {
    const keep = [];
    const dpr = view.transform.dpr;
    ctx.lineWidth = 2 * dpr;
    for (const f of view.flashes) {
      const age = (now - f.t0) / FLASH_MS;
      if (age >= 1) continue;
      keep.push(f);
      const a = screen(f.from), b = screen(f.to);
      ctx.strokeStyle = f.dropped ? `rgba(197,48,48,${1 - age})` : `rgba(43,108,176,${0.9 * (1 - age)})`;
      ctx.beginPath();
      ctx.moveTo(a[0], a[1]);
      ctx.lineTo(b[0], b[1]);
      ctx.stroke();
      // the message travelling from sender to receiver
      const t = f.dropped ? Math.min(age, 0.5) : age;
      ctx.fillStyle = f.dropped ? 'rgb(197,48,48)' : 'rgb(43,108,176)';
      ctx.beginPath();
      ctx.arc(a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), 2.5 * dpr, 0, 2 * Math.PI);
      ctx.fill();
    }
    if (keep.length === 0 && view.flashes.length) frameDirty = true; // clear the last trace
    view.flashes = keep;
  }

  // A diamond of half-diagonal h around (x, y), as a path.
  function diamond(c, x, y, h) {
    c.moveTo(x, y - h);
    c.lineTo(x + h, y);
    c.lineTo(x, y + h);
    c.lineTo(x - h, y);
    c.closePath();
  }
  // Radius of the ring around an attacker node of radius r.
  function attackerRing(r, dpr) {
    return r * 1.25 + 4 * dpr;
  }

  let hover = -1;
  let lastMouse = null; // the last mouse position over the graph, for the tooltip
  function draw(now) {
    resize();
    if (!S) { ctx.clearRect(0, 0, canvas.width, canvas.height); canvas.dataset.nodesDrawn = '0'; return; }
    if (view.dirtyBase) drawBase();
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(base, 0, 0);
    if (!view.paused) drawFlashes(now);
    if (colorsDirty || !view.colorCache) {
      view.colorCache = computeColors();
      colorsDirty = false;
    }
    const { colors, legend } = view.colorCache;
    view.nodeColors = colors;
    const r = nodeRadius();
    const dpr = view.transform.dpr;
    ctx.lineWidth = Math.max(0.5, r / 6);
    let drawn = 0;
    const set = selectedSet();
    const isAttacker = new Uint8Array(S.n);
    if (set) for (const a of set.attackers) if (a < S.n) isAttacker[a] = 1;
    for (let u = 0; u < S.n; u++) {
      const [x, y] = screen(u);
      ctx.fillStyle = colors[u];
      ctx.beginPath();
      if (isAttacker[u]) diamond(ctx, x, y, r * 1.25); else ctx.arc(x, y, r, 0, 2 * Math.PI);
      ctx.fill();
      if (r > 3) {
        ctx.strokeStyle = S.nodeLeft.has(u) ? 'rgba(197,48,48,0.9)' : 'rgba(255,255,255,0.9)';
        ctx.stroke();
      }
      drawn++;
    }
    // The attacker set: a diamond in a ring, in every colour mode (its fill
    // is its own value in the loss view), so the eye finds it at once.
    ctx.strokeStyle = ATTACKER;
    ctx.lineWidth = 2.5 * dpr;
    for (let u = 0; u < S.n; u++) {
      if (!isAttacker[u]) continue;
      const [x, y] = screen(u);
      ctx.beginPath();
      ctx.arc(x, y, attackerRing(r, dpr), 0, 2 * Math.PI);
      ctx.stroke();
    }
    if (hover >= 0 && hover < S.n) {
      const [x, y] = screen(hover);
      ctx.strokeStyle = '#1d232a';
      ctx.lineWidth = 1.5 * dpr;
      ctx.beginPath();
      ctx.arc(x, y, r + 1.5 * dpr, 0, 2 * Math.PI);
      ctx.stroke();
    }
    if (S.n <= 60 && r >= 6) {
      ctx.fillStyle = '#1d232a';
      ctx.font = `${10 * dpr}px system-ui, sans-serif`;
      ctx.textAlign = 'center';
      for (let u = 0; u < S.n; u++) {
        const [x, y] = screen(u);
        ctx.fillText(String(u), x, y - (isAttacker[u] ? attackerRing(r, dpr) + dpr : r) - 3 * dpr);
      }
    }
    view.nodesDrawn = drawn;
    canvas.dataset.nodesDrawn = String(drawn);
    drawLegend(legend);
  }

  // The legend's marks, as small inline SVGs in the page's own colours.
  const KEY_MARKS = {
    attacker: `<circle cx="8" cy="8" r="6.6" fill="none" stroke="${ATTACKER}" stroke-width="1.8"/>`
      + `<path d="M8 3.6 L12.4 8 L8 12.4 L3.6 8 Z" fill="${ATTACKER}"/>`,
    unprotected: `<circle cx="8" cy="8" r="5" fill="${UNPROTECTED}"/>`,
    nodata: `<circle cx="8" cy="8" r="5" fill="${NO_DATA}"/>`,
  };
  function drawLegend(legend) {
    const bar = $('legend-bar');
    const c = bar.getContext('2d');
    // Low values on the left, high on the right.
    for (let x = 0; x < bar.width; x++) {
      c.fillStyle = ramp(legend.stops, x / (bar.width - 1));
      c.fillRect(x, 0, 1, bar.height);
    }
    bar.style.visibility = legend.range ? 'visible' : 'hidden';
    $('legend-title').textContent = legend.title;
    $('legend-min').textContent = legend.lo;
    $('legend-mid').textContent = legend.mid;
    $('legend-max').textContent = legend.hi;
    const keys = $('legend-keys');
    const sig = legend.keys.map((k) => `${k.kind}:${k.text}`).join('|');
    if (keys.dataset.sig !== sig) {
      keys.dataset.sig = sig;
      keys.replaceChildren(...legend.keys.map((k) => {
        const item = document.createElement('span');
        item.className = `key ${k.kind}`;
        item.innerHTML = `<svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true">${KEY_MARKS[k.kind]}</svg>`;
        item.appendChild(document.createTextNode(k.text));
        return item;
      }));
    }
  }

  // ---- Charts --------------------------------------------------------------
  function niceTicks(lo, hi, count) {
    const span = hi - lo || 1;
    const step0 = span / count;
    const mag = Math.pow(10, Math.floor(Math.log10(step0)));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => span / s <= count) || 10 * mag;
    const ticks = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9 * span; t += step) ticks.push(t);
    return ticks;
  }

  // series: [{points: [[x, y]...], color, dots}], opts: {logY, marker, xLabel, yLabel}
  // Records what it drew in view.charts[cv.id] (axis, ticks, points in CSS
  // pixels) for tests and the SVG export.
  function drawChart(cv, series, opts) {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.round(cv.clientWidth * dpr), h = Math.round(cv.clientHeight * dpr);
    if (cv.width !== w || cv.height !== h) { cv.width = w; cv.height = h; }
    const c = cv.getContext('2d');
    c.clearRect(0, 0, w, h);
    const pts = series.flatMap((s) => s.points).filter((p) => Number.isFinite(p[0]) && Number.isFinite(p[1]) && (!opts.logY || p[1] > 0));
    c.font = `${10 * dpr}px system-ui, sans-serif`;
    c.fillStyle = '#6b7480';
    const info = { logY: !!opts.logY, yLabel: opts.yLabel || '', xLabel: opts.xLabel || '', yTicks: [], series: [], note: opts.note || '' };
    view.charts[cv.id] = info;
    if (pts.length === 0) {
      c.textAlign = 'center';
      c.fillText(opts.empty || 'no data yet', w / 2, h / 2);
      info.empty = opts.empty || 'no data yet';
      return;
    }
    const L = (opts.yLabel ? 56 : 44) * dpr, R = 12 * dpr, T = 8 * dpr, B = 30 * dpr;
    let x0 = Math.min(...pts.map((p) => p[0])), x1 = Math.max(...pts.map((p) => p[0]));
    if (opts.xMin !== undefined) x0 = Math.min(x0, opts.xMin);
    if (x1 === x0) x1 = x0 + 1;
    const fy = opts.logY ? (y) => Math.log10(y) : (y) => y;
    let y0 = Math.min(...pts.map((p) => fy(p[1]))), y1 = Math.max(...pts.map((p) => fy(p[1])));
    if (!opts.logY) y0 = Math.min(0, y0);
    if (y1 - y0 < 1e-12) { y1 += 0.5; y0 -= 0.5; }
    const X = (x) => L + ((x - x0) / (x1 - x0)) * (w - L - R);
    const Y = (y) => h - B - ((fy(y) - y0) / (y1 - y0)) * (h - T - B);
    c.strokeStyle = '#d9dde2';
    c.lineWidth = 1;
    c.textAlign = 'right';
    c.textBaseline = 'middle';
    // Log axes: ticks at powers of ten, or plain ticks within one decade.
    let yt = niceTicks(y0, y1, 4);
    if (opts.logY) { // a tick per decade, or per few decades on a tall range
      const d0 = Math.ceil(y0 - 1e-9), d1 = Math.floor(y1 + 1e-9), step = Math.max(1, Math.ceil((d1 - d0) / 6));
      yt = [];
      for (let d = d0; d <= d1; d += step) yt.push(Math.pow(10, d));
    }
    if (opts.logY && yt.length < 2) yt = niceTicks(Math.pow(10, y0), Math.pow(10, y1), 3).filter((t) => t > 0);
    for (const y of yt) {
      const py = Y(y);
      c.beginPath(); c.moveTo(L, py); c.lineTo(w - R, py); c.stroke();
      c.fillText(fmtTick(y), L - 4 * dpr, py);
      info.yTicks.push(y);
    }
    if (opts.yLabel) {
      c.save();
      c.translate(11 * dpr, (T + h - B) / 2);
      c.rotate(-Math.PI / 2);
      c.textAlign = 'center';
      c.textBaseline = 'middle';
      c.fillText(opts.yLabel, 0, 0);
      c.restore();
    }
    c.textAlign = 'center';
    c.textBaseline = 'top';
    for (const t of niceTicks(x0, x1, 6)) {
      if (opts.integerX && Math.abs(t - Math.round(t)) > 1e-9) continue;
      c.fillText(fmtTick(t), X(t), h - B + 3 * dpr);
    }
    c.fillText(opts.xLabel || '', (L + w - R) / 2, h - 12 * dpr);
    if (opts.note) {
      c.textAlign = 'right';
      c.fillText(opts.note, w - R - 2 * dpr, T + 2 * dpr);
    }
    if (opts.marker !== undefined && opts.marker !== null) {
      c.strokeStyle = 'rgba(43,108,176,0.5)';
      c.setLineDash([3 * dpr, 3 * dpr]);
      c.beginPath(); c.moveTo(X(opts.marker), T); c.lineTo(X(opts.marker), h - B); c.stroke();
      c.setLineDash([]);
    }
    for (const s of series) {
      const ps = s.points.filter((p) => Number.isFinite(p[0]) && Number.isFinite(p[1]) && (!opts.logY || p[1] > 0));
      c.strokeStyle = s.color;
      c.fillStyle = s.color;
      c.lineWidth = 1.6 * dpr;
      if (s.line !== false) {
        c.beginPath();
        ps.forEach((p, i) => (i ? c.lineTo(X(p[0]), Y(p[1])) : c.moveTo(X(p[0]), Y(p[1]))));
        c.stroke();
      }
      if (s.dots) for (const p of ps) { c.beginPath(); c.arc(X(p[0]), Y(p[1]), s.dots * dpr, 0, 2 * Math.PI); c.fill(); }
      info.series.push(ps.map((p) => [p[0], p[1], X(p[0]) / dpr, Y(p[1]) / dpr]));
    }
  }

  function drawCharts() {
    if (!S) { drawChart($('loss-chart'), [], {}); drawChart($('privacy-chart'), [], {}); return; }
    const r = shownRound();
    const shown = S.avgLoss;
    const lossPositive = shown.every((p) => !(p[1] <= 0));
    drawChart($('loss-chart'), [{ points: shown, color: '#2b6cb0', dots: shown.length < 60 ? 2.2 : 0 }],
      { logY: lossPositive, marker: r, xLabel: 'round', yLabel: lossPositive ? 'test loss (log)' : 'test loss', integerX: true, empty: 'no test loss in this stream' });
    const pa = privacyAt(r);
    if (!pa) {
      $('privacy-who').textContent = '';
      drawChart($('privacy-chart'), [], { empty: S.privacy.size ? 'no value yet at this round' : 'no privacy events in this stream' });
      return;
    }
    const scatter = [], byD = new Map(), mode = colorMode();
    let unprotected = 0, zero = 0;
    pa.rec.victims.forEach((v, i) => {
      let d = pa.rec.distance ? pa.rec.distance[i] : null;
      if (d === null || d === undefined) d = v < S.n ? pa.set.dist[v] : -1;
      const x = privacyValue(pa.rec, i, mode);
      if (x === Infinity) unprotected++;
      if (d < 0 || !Number.isFinite(x)) return;
      if (x <= 0) { zero++; return; } // no loss at all: off a log axis, counted in the note
      scatter.push([d, x]);
      if (!byD.has(d)) byD.set(d, []);
      byD.get(d).push(x);
    });
    const mean = [...byD.entries()].sort((a, b) => a[0] - b[0]).map(([d, xs]) => [d, xs.reduce((s, x) => s + x, 0) / xs.length]);
    const mu = mode === 'mu' || !pa.rec.eps;
    const what = mu ? 'μ' : `ε(δ=${fmt(pa.rec.delta)})`;
    const notes = [];
    if (unprotected) notes.push(`${unprotected} unprotected (∞)`);
    if (zero) notes.push(`${zero} at 0`);
    $('privacy-who').textContent = `— ${pa.set.name} (${pa.set.trust}), ${what}, round ${pa.round}`;
    drawChart($('privacy-chart'), [
      { points: scatter, color: 'rgba(236,112,20,0.35)', line: false, dots: 2 },
      { points: mean, color: '#bd0026', dots: 3 },
    ], { xLabel: 'hop distance to the attacker set', integerX: true, xMin: 0, logY: true,
      yLabel: `${mu ? 'μ' : 'ε'} (log scale)`,
      note: notes.length ? `${notes.join(', ')}: not drawn` : '' });
  }

  // ---- Text and controls ---------------------------------------------------
  function refreshText() {
    const r = shownRound();
    $('round').textContent = r === null ? '–' : String(r);
    if (!S) return;
    const t = r !== null && !view.follow ? S.roundTime.get(r) : S.tNs;
    $('simtime').hidden = !showsTime();
    $('simtime').textContent = `t = ${fmtTime(t || 0)}`;
    refreshColorList();
    $('c-graph').textContent = `${S.n} / ${S.edges.length}`;
    const every = S.start && S.start.messages_every;
    const sampling = every === 0 ? ' (not published)' : every > 1 ? ` (1 in ${every} published)` : '';
    $('c-messages').textContent = `${count(S.messages)} shown live, ${count(S.dropped)} of them lost in the simulated network${sampling}`;
    $('c-events').textContent = count(S.events);
    $('c-before').textContent = S.beforeJoin
      ? `joined after ${count(S.beforeJoin)} messages had been sent (messages are shown live only, not kept)`
      : 'joined at the start of the run';
    // Gaps in seq after the page caught up: dropped by a slow publisher or
    // skipped by the server for a slow page.
    $('c-missed').textContent = S.missed ? `${count(S.missed)} events did not reach this page (run or page too slow)` : '0';
    const slider = $('slider');
    if (S.rounds.length) {
      slider.disabled = false;
      slider.min = 0;
      slider.max = S.rounds.length - 1;
      const idx = r === null ? 0 : Math.max(0, S.rounds.indexOf(r));
      if (document.activeElement !== slider || view.follow) slider.value = idx;
      $('slider-label').textContent = `round ${r}${view.follow ? ' (live)' : ''}`;
    } else {
      slider.disabled = true;
      $('slider-label').textContent = 'no rounds yet';
    }
    $('live').classList.toggle('on', view.follow);
    $('pause').textContent = view.paused ? 'Resume' : 'Pause';
    $('pause').classList.toggle('on', view.paused);
    refreshStatus();
  }

  function refreshStatus() {
    const badge = $('status');
    let cls = 'idle', text = 'waiting for a run';
    if (!view.connected) { cls = 'down'; text = 'disconnected from the viz server'; }
    else if (S && S.ended) { cls = 'ended'; text = `run ended (${S.ended.status || 'ok'})`; }
    else if (S && performance.now() - view.lastEventAt < 3000) { cls = 'live'; text = 'live'; }
    else if (S) { cls = 'idle'; text = 'no events for a while'; }
    badge.className = `badge ${cls}`;
    badge.textContent = text;
  }

  function refreshAttackers() {
    const sel = $('attacker');
    const keep = view.attacker;
    sel.innerHTML = '';
    const none = document.createElement('option');
    none.value = '';
    none.textContent = S && S.privacy.size ? '— choose —' : '— no privacy data —';
    sel.appendChild(none);
    if (S) {
      for (const p of S.privacy.values()) {
        const o = document.createElement('option');
        o.value = p.key;
        o.textContent = `${p.name} {${p.attackers.slice(0, 4).join(',')}${p.attackers.length > 4 ? ',…' : ''}} ${p.trust}`;
        sel.appendChild(o);
      }
    }
    sel.value = keep;
  }

  let chartsDirty = true;
  let colorsDirty = true; // node colours depend on the round shown, the mode, the data
  let frameDirty = true;  // something on the canvas changed
  function refreshAll() {
    chartsDirty = true;
    colorsDirty = true;
    frameDirty = true;
    refreshText();
    if (lastMouse && S) showTooltip(lastMouse);
  }

  function setRoundIndex(i) {
    if (!S || !S.rounds.length) return;
    i = Math.max(0, Math.min(S.rounds.length - 1, i));
    view.follow = false;
    view.round = S.rounds[i];
    refreshAll();
  }

  // Step and run-to-round: a target not received yet is where the view
  // stops when it arrives (the run goes on; Live follows it again).
  function step(d) {
    if (!S || !S.rounds.length) return;
    const cur = S.rounds.indexOf(shownRound());
    setRoundIndex(cur + d);
  }
  function runTo(r) {
    if (!S || !Number.isInteger(r) || r < 0) return;
    const i = S.rounds.indexOf(r);
    if (i >= 0) { view.target = null; setRoundIndex(i); return; }
    view.target = r;
    view.follow = true;
    toast(`will stop at round ${r}`);
    refreshAll();
  }
  function checkTarget() {
    if (view.target === null || !S) return;
    const i = S.rounds.findIndex((x) => x >= view.target);
    if (i < 0) return;
    view.target = null;
    setRoundIndex(i);
  }
  $('step-back').addEventListener('click', () => step(-1));
  $('step-fwd').addEventListener('click', () => step(1));
  $('goto').addEventListener('click', () => runTo(Number($('goto-round').value)));

  // Export: the graph as drawn, PNG from the canvas or SVG rebuilt from the
  // same positions and colours.
  function download(blob, name) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }
  function fileStem() {
    const name = (S && S.start && S.start.name ? S.start.name : 'run').replace(/[^A-Za-z0-9_.-]+/g, '_');
    return `${name}-round${shownRound() ?? 0}`;
  }
  function viewSvg() {
    if (!S || !view.transform) return null;
    const t = view.transform, W = canvas.width / t.dpr, H = canvas.height / t.dpr;
    const p = (u) => { const [x, y] = screen(u); return [(x / t.dpr).toFixed(2), (y / t.dpr).toFixed(2)]; };
    const esc = (x) => String(x).replace(/&/g, '&amp;').replace(/</g, '&lt;');
    const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">`,
      `<title>${esc(S.start && S.start.name || 'run')}, round ${shownRound()}</title>`,
      `<rect width="${W}" height="${H}" fill="#ffffff"/>`, '<g stroke="rgb(90,100,115)" stroke-opacity="0.35">'];
    for (const [u, v] of S.edges) {
      if (S.edgeDown.has(edgeKey(u, v))) continue;
      const a = p(u), b = p(v);
      out.push(`<line x1="${a[0]}" y1="${a[1]}" x2="${b[0]}" y2="${b[1]}"/>`);
    }
    out.push('</g><g stroke="#ffffff">');
    const rad = nodeRadius() / t.dpr, r = rad.toFixed(2);
    const set = selectedSet();
    const attackers = new Set(set ? set.attackers : []);
    for (let u = 0; u < S.n; u++) {
      const a = p(u), fill = view.nodeColors[u] || NO_DATA;
      if (attackers.has(u)) {
        const [x, y] = a.map(Number), h = rad * 1.25;
        out.push(`<path d="M${x} ${(y - h).toFixed(2)} L${(x + h).toFixed(2)} ${y} L${x} ${(y + h).toFixed(2)} L${(x - h).toFixed(2)} ${y} Z" fill="${fill}"><title>node ${escapeXml(nodeName(u))} (attacker)</title></path>`);
        out.push(`<circle cx="${a[0]}" cy="${a[1]}" r="${attackerRing(rad, 1).toFixed(2)}" fill="none" stroke="${ATTACKER}" stroke-width="2.5"/>`);
      } else {
        out.push(`<circle cx="${a[0]}" cy="${a[1]}" r="${r}" fill="${fill}"><title>node ${escapeXml(nodeName(u))}</title></circle>`);
      }
    }
    out.push('</g>');
    const lg = view.colorCache ? view.colorCache.legend : null;
    if (lg) {
      const scale = lg.range ? `: ${lg.lo} (low) .. ${lg.hi || lg.lo} (high)` : '';
      const keys = lg.keys.map((k) => k.text).join('; ');
      out.push(`<text x="8" y="${H - 8}" font-family="sans-serif" font-size="12" fill="#1d232a">${esc(lg.title)}${esc(scale)}${keys ? `; ${esc(keys)}` : ''}</text>`);
    }
    out.push('</svg>');
    return out.join('\n');
  }
  function exportPng() {
    if (!S) return;
    canvas.toBlob((b) => { if (b) download(b, `${fileStem()}.png`); }, 'image/png');
  }
  function exportSvg() {
    const text = viewSvg();
    if (text) download(new Blob([text], { type: 'image/svg+xml' }), `${fileStem()}.svg`);
  }
  $('export-png').addEventListener('click', exportPng);
  $('export-svg').addEventListener('click', exportSvg);

  $('slider').addEventListener('input', (e) => setRoundIndex(Number(e.target.value)));
  $('live').addEventListener('click', () => { view.follow = true; view.paused = false; refreshAll(); });
  $('pause').addEventListener('click', togglePause);
  function togglePause() {
    view.paused = !view.paused;
    if (view.paused) { view.follow = false; view.round = shownRound(); view.flashes = []; }
    else view.follow = true;
    refreshAll();
  }
  $('color-mode').addEventListener('change', (e) => { view.colorPick = e.target.value; refreshAll(); });
  $('scale').addEventListener('change', (e) => { view.scale = e.target.value; refreshAll(); });
  $('attacker').addEventListener('change', (e) => {
    view.attacker = e.target.value;
    if (view.attacker) pickPrivacyColors();
    refreshAll();
  });
  document.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'SELECT' || e.target.tagName === 'INPUT') return;
    if (e.key === ' ') { e.preventDefault(); togglePause(); }
    if (S && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) {
      const cur = S.rounds.indexOf(shownRound());
      setRoundIndex(cur + (e.key === 'ArrowLeft' ? -1 : 1));
    }
  });

  function nodeAt(ev) {
    if (!S || !view.transform) return -1;
    const rect = canvas.getBoundingClientRect();
    const dpr = view.transform.dpr;
    const x = (ev.clientX - rect.left) * dpr, y = (ev.clientY - rect.top) * dpr;
    const r = nodeRadius() + 3 * dpr;
    let best = -1, bd = r * r;
    for (let u = 0; u < S.n; u++) {
      const [sx, sy] = screen(u);
      const d = (sx - x) * (sx - x) + (sy - y) * (sy - y);
      if (d <= bd) { bd = d; best = u; }
    }
    return best;
  }

  canvas.addEventListener('mousemove', (ev) => { lastMouse = ev; showTooltip(ev); });
  function showTooltip(ev) {
    const u = nodeAt(ev);
    const tip = $('tooltip');
    if (u !== hover) frameDirty = true;
    hover = u;
    if (u < 0) { tip.hidden = true; return; }
    const r = shownRound();
    const k = r === null ? undefined : floorKey(S.lossRounds, r);
    const loss = k === undefined ? NaN : S.loss.get(k)[u];
    const lines = [`node ${nodeName(u)}  (degree ${S.degree[u] || 0})`, `test loss ${fmt(loss)}`];
    const pa = privacyAt(r);
    if (pa) {
      const i = pa.rec.victims.indexOf(u);
      if (pa.set.attackers.includes(u)) lines.push(`attacker (${pa.set.name})`);
      else if (i >= 0) lines.push(`μ ${fmt(pa.rec.mu[i])}   ε ${pa.rec.eps ? fmt(pa.rec.eps[i]) : '–'}`, `distance ${pa.set.dist[u]}`);
    }
    tip.textContent = lines.join('\n');
    const rect = canvas.getBoundingClientRect();
    tip.style.left = `${ev.clientX - rect.left + 14}px`;
    tip.style.top = `${ev.clientY - rect.top + 10}px`;
    tip.hidden = false;
  }
  canvas.addEventListener('mouseleave', () => { hover = -1; lastMouse = null; frameDirty = true; $('tooltip').hidden = true; });
  canvas.addEventListener('click', (ev) => {
    const u = nodeAt(ev);
    if (u < 0 || !S) return;
    // Prefer the set that is exactly {u}, then any set holding u.
    let pick = null;
    for (const p of S.privacy.values()) {
      if (p.attackers.length === 1 && p.attackers[0] === u) { pick = p; break; }
      if (!pick && p.attackers.includes(u)) pick = p;
    }
    if (!pick) { toast(`no privacy data with node ${nodeName(u)} as attacker in this stream`); return; }
    view.attacker = pick.key;
    $('attacker').value = pick.key;
    pickPrivacyColors();
    toast(`attacker: ${pick.name} (${pick.trust})`);
    refreshAll();
  });

  // ---- Stream ---------------------------------------------------------------
  const TOPICS = ['run', 'round', 'message', 'metric', 'privacy', 'topology'];
  function connect() {
    const es = new EventSource('events');
    es.onopen = () => { view.connected = true; refreshStatus(); };
    es.onerror = () => { view.connected = false; refreshStatus(); };
    for (const t of TOPICS) es.addEventListener(t, (e) => handle(t, e.data));
    es.addEventListener('viz', (e) => {
      try {
        const st = JSON.parse(e.data);
        view.serverSkipped = st.skipped || 0;
        if (st.caught_up === true && S && !S.live) {
          S.live = true;
          S.beforeJoin = S.missed;
          S.missed = 0;
        }
        view.serverIdleMs = st.idle_ms;
      } catch (err) { /* ignore */ }
      view.connected = true;
      refreshText();
    });
  }

  function frame(now) {
    // Redraw only when something changed or messages are flashing: a big
    // graph costs nothing while the run is idle.
    if (frameDirty || view.flashes.length || view.dirtyBase) {
      frameDirty = false;
      draw(now);
    }
    if (chartsDirty) { drawCharts(); chartsDirty = false; }
    requestAnimationFrame(frame);
  }
  window.addEventListener('resize', () => { view.dirtyBase = true; chartsDirty = true; frameDirty = true; });
  setInterval(refreshStatus, 1000);

  // For tests and for the curious: a read-only window on the view.
  window.dpgViz = {
    get nodesDrawn() { return view.nodesDrawn; },
    get round() { return shownRound(); },
    get n() { return S ? S.n : 0; },
    get privacySets() { return S ? [...S.privacy.keys()] : []; },
    get attacker() { return view.attacker; },
    get colorMode() { return colorMode(); }, // the metric drawn
    get colorPick() { return view.colorPick; }, // the Colour list: 'auto' or a metric
    get legend() { // the node colour scale as drawn
      const l = view.colorCache && view.colorCache.legend;
      return l ? { title: $('legend-title').textContent, lo: l.lo, mid: l.mid, hi: l.hi, range: l.range, keys: l.keys.map((k) => k.text) } : null;
    },
    setScale(v) { $('scale').value = v; view.scale = v; refreshAll(); },
    nodeColor(u) { return view.nodeColors[u]; },
    chart(id) { return view.charts[id] || null; },
    get following() { return view.follow; },
    svg() { return viewSvg(); },
    get nodeRadius() { return S && view.transform ? nodeRadius() / view.transform.dpr : 0; }, // CSS pixels
    get attackerRing() { return S && view.transform ? attackerRing(nodeRadius(), view.transform.dpr) / view.transform.dpr : 0; },
    nodeScreen(u) { // CSS pixels relative to the canvas
      if (!S || !view.transform || u >= S.n) return null;
      const [x, y] = screen(u);
      return [x / view.transform.dpr, y / view.transform.dpr];
    },
  };

  refreshAll();
  connect();
  requestAnimationFrame(frame);
})();
