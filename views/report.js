/* report.js -- the script of pal-view's HTML report (embedded into the page
 * by views/html.c; no network, no library). Two parts:
 * 1. the interactive timeline: a row per rank and thread coloured by the
 *    region that dominates each pixel (from the multi-resolution summary the C
 *    side computed), the longest slices whole, message lines, markers and
 *    counter plots; wheel zooms, drag selects a window (zoom + its profile),
 *    shift+wheel / arrow keys pan, reset; hover and click show fields;
 * 2. the ParaGraph animator: utilization, space-time and communication
 *    redrawn up to a time cursor (play, pause, step, replay, speed), opening
 *    on the whole run.
 * Tables with class "sortable" sort by a click on a column header. */
(function () {
'use strict';
var ALL = JSON.parse(document.getElementById('data').textContent);
var T = ALL.tl, A = ALL.anim;
var body = document.body;

/* ---------- shared: round ticks (1-2-5) and time labels ---------- */
function niceStep(span, n) {
  var raw = span / Math.max(1, n), p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}
function unitOf(step) {
  if (step >= 1) return [1, 's'];
  if (step >= 1e-3) return [1e3, 'ms'];
  if (step >= 1e-6) return [1e6, '\u00b5s'];
  return [1e9, 'ns'];
}
function fmtT(t, step) {
  var u = unitOf(step), v = t * u[0], s = step * u[0];
  var dec = Math.max(0, -Math.floor(Math.log10(s) + 1e-9));
  return v.toFixed(Math.min(dec, 6)) + ' ' + u[1];
}
function fmtDur(d) { return fmtT(d, d > 0 ? d / 100 : 1e-9); }
/* draws a time axis under/over a plot: x0..x0+w covers [a, b] */
function timeAxis(g, x0, y, w, a, b, up) {
  var step = niceStep(b - a, Math.max(2, Math.floor(w / 90)));
  g.strokeStyle = '#444'; g.fillStyle = '#222'; g.lineWidth = 1;
  g.beginPath(); g.moveTo(x0, y + 0.5); g.lineTo(x0 + w, y + 0.5); g.stroke();
  g.font = '11px sans-serif'; g.textBaseline = up ? 'bottom' : 'top';
  for (var t = Math.ceil(a / step - 1e-9) * step; t <= b + step * 1e-9; t += step) {
    var x = x0 + (t - a) / (b - a) * w;
    g.beginPath(); g.moveTo(Math.round(x) + 0.5, y); g.lineTo(Math.round(x) + 0.5, y + (up ? -4 : 4)); g.stroke();
    var lab = fmtT(t, step), tw = g.measureText(lab).width;
    var lx = Math.min(Math.max(x - tw / 2, x0 - 20), x0 + w - tw);  /* the last label is not clipped */
    g.fillText(lab, lx, up ? y - 5 : y + 5);
  }
  return step;
}
function kindName(k) { return k === 1 ? 'MPI' : k === 0 ? 'user' : 'set-up'; }
function esc(s) {
  return String(s).replace(/[&<>"]/g, function (c) { return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]; });
}
var threadsOf = {};
T.rows.forEach(function (r) { threadsOf[r.p] = (threadsOf[r.p] || 0) + 1; });
/* "rank P" for a rank with one thread, else "rP.T" (and the thread's name) */
function rowName(r) { return (threadsOf[r.p] > 1 ? 'r' + r.p + '.' + r.t : 'rank ' + r.p) + (r.name ? ' ' + r.name : ''); }

/* ---------- sortable tables ---------- */
function sortable(tab) {
  var ths = tab.querySelectorAll('th');
  Array.prototype.forEach.call(ths, function (th, col) {
    th.style.cursor = 'pointer'; th.title = 'sort';
    th.addEventListener('click', function () {
      var tb = tab.tBodies[0], rows = Array.prototype.slice.call(tb.rows);
      var dir = th.getAttribute('data-dir') === 'desc' ? 1 : -1;
      Array.prototype.forEach.call(ths, function (h) { h.removeAttribute('data-dir'); });
      th.setAttribute('data-dir', dir < 0 ? 'desc' : 'asc');
      rows.sort(function (x, y) {
        var a = x.cells[col].getAttribute('data-v') || x.cells[col].textContent;
        var b = y.cells[col].getAttribute('data-v') || y.cells[col].textContent;
        var na = parseFloat(a), nb = parseFloat(b);
        var c = (!isNaN(na) && !isNaN(nb)) ? na - nb : a < b ? -1 : a > b ? 1 : 0;
        return dir * c;
      });
      rows.forEach(function (r) { tb.appendChild(r); });
    });
  });
}
function initSortable() { Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), sortable); }

/* ---------- timeline ---------- */
var cv = document.getElementById('tl'), info = document.getElementById('tl-info');
/* a canvas drawn in this process's memory: the bars are put as pixels and
   the tests read pixels back, and each frame then costs no round trip to a
   GPU process (which took most of a zoom frame on a loaded machine) */
var cvg = cv.getContext('2d', {willReadFrequently: true});
var LM = 150, TM = 26, RM = 10;
var nrow = T.rows.length, dur = T.dur > 0 ? T.dur : 1e-9;
var CH = 40;  /* a counter plot's height */
var counters = T.counters;
var W = cv.width - LM - RM;
function decode(rle, n) {
  var a = new Int32Array(n), k = 0;
  for (var i = 0; i + 1 < rle.length; i += 2) for (var j = 0; j < rle[i + 1] && k < n; j++) a[k++] = rle[i] - 1;
  for (; k < n; k++) a[k] = -1;
  return a;
}
function decodeN(rle, n) {
  var a = new Uint32Array(n), k = 0;
  for (var i = 0; i + 1 < rle.length; i += 2) for (var j = 0; j < rle[i + 1] && k < n; j++) a[k++] = rle[i];
  return a;
}
var nb = T.nb, ncoarse = Math.ceil(nb / T.coarse);
var fine = T.lv1.map(function (r) { return decode(r, nb); });
var coarse = T.lv0.map(function (r) { return decode(r, ncoarse); });
var counts = T.counts.map(function (r) { return decodeN(r, nb); });
var slices = T.slices;   /* by depth, then start (the C side sorted them) */
/* a report with a window (--from/--to) keeps every slice that overlaps it
   when they fit: T.wslices = [from, to, all kept, how many] */
var WS = T.wslices && T.wslices[2] ? T.wslices : null;
function exact(s) { return T.complete || (WS !== null && s[4] > WS[0] && s[3] < WS[1]); }
/* per thread, its call-stack levels (the region open at each depth per fine
   bucket; the last level: that depth and deeper), and whether its row
   shows them as sub-rows (open: at load when at most 32 threads) */
var dlnb = T.dlnb || nb, dlw = T.dlw || T.width;
var levels = (T.dl || []).map(function (ls) { return ls.map(function (r) { return decode(r, dlnb); }); });
var stackOpen = new Uint8Array(nrow);
for (var li = 0; li < nrow; li++) stackOpen[li] = nrow <= 32 && levels[li] && levels[li].length > 1 ? 1 : 0;
function nsubOf(d) { return !d.group && stackOpen[d.lane] && levels[d.lane] ? Math.max(1, levels[d.lane].length) : 1; }
/* the sub-row of a kept slice in an open row */
function subOf(s, d) { return Math.min(s[2], nsubOf(d) - 1); }
var v0 = 0, v1 = dur, sel = null, pinned = null;
function x2t(x) { return v0 + (x - LM) / W * (v1 - v0); }
function t2x(t) { return LM + (t - v0) / (v1 - v0) * W; }

/* ---------- rows: threads, ranks with several threads, blocks of ranks ----------
   A display row is a thread (a lane of T.rows) or a group's summary row
   (T.groups: the dominant region per bucket over its threads, computed by
   the C side); an open group shows its members under its summary row. */
var MAXROWS = 64;
var groups = (T.groups || []).map(function (g, i) {
  var n = g.nb;
  return {i: i, kind: g.kind, name: g.name, a: g.a, b: g.b, width: g.width, nb: n,
    fine: decode(g.lv1, n), coarse: decode(g.lv0, Math.ceil(n / T.coarse)), counts: decodeN(g.counts, n),
    open: false, kids: []};
});
function laneNode(l) { return {lane: l}; }
/* the nodes of lanes [a, b): rank groups where a rank has one, else lanes */
function rankNodes(a, b) {
  var out = [], l = a;
  while (l < b) {
    var g = null;
    groups.forEach(function (x) { if (x.kind === 'rank' && x.a === l) g = x; });
    if (g) { for (var k = g.a; k < g.b; k++) g.kids.push(laneNode(k)); out.push({group: g}); l = g.b; }
    else out.push(laneNode(l++));
  }
  return out;
}
var top = [];
(function () {
  var blocks = groups.filter(function (g) { return g.kind === 'block'; });
  if (blocks.length) blocks.forEach(function (g) { g.kids = rankNodes(g.a, g.b); top.push({group: g}); });
  else top = rankNodes(0, nrow);
  /* open everything when every thread fits, else show the groups */
  if (nrow <= MAXROWS) groups.forEach(function (g) { g.open = true; });
})();
var disp = [], dispOf = new Int32Array(nrow), rh = 12, cur = -1, rowsH = 0;
function layout() {
  disp = [];
  function visit(nd, depth) {
    var i = disp.length;
    if (nd.group) {
      disp.push({group: nd.group, depth: depth});
      for (var l = nd.group.a; l < nd.group.b; l++) dispOf[l] = i;
      if (nd.group.open) nd.group.kids.forEach(function (k) { visit(k, depth + 1); });
    } else { disp.push({lane: nd.lane, depth: depth}); dispOf[nd.lane] = i; }
  }
  top.forEach(function (nd) { visit(nd, 0); });
  var n = disp.length, nsubs = 0;
  /* the height of a row (or of a call-stack sub-row): the rows in about
     800 pixels, so that a run with open stacks fits a screen */
  disp.forEach(function (d) { nsubs += nsubOf(d); });
  rh = Math.max(4, Math.min(22, Math.floor(800 / Math.max(1, nsubs))));
  if (n <= MAXROWS) rh = Math.max(12, rh);
  var yy = TM;   /* each display row: its top and height (open call stacks: a sub-row per level) */
  disp.forEach(function (d) { d.y = yy; d.h = nsubOf(d) * rh; yy += d.h; });
  rowsH = yy - TM;
  cv.height = TM + rowsH + 8 + counters.length * (CH + 6) + 20;
  if (cur >= n) cur = n - 1;
  body.setAttribute('data-tl-display', n);
  body.setAttribute('data-tl-open', groups.filter(function (g) { return g.open; }).length);
}
function rowAt(y) {
  for (var r = 0; r < disp.length; r++) if (y >= disp[r].y && y < disp[r].y + disp[r].h) return r;
  return -1;
}
/* a display row's summary source */
function srcOf(d) {
  if (d.group) return d.group;
  return {width: T.width, nb: nb, fine: fine[d.lane], coarse: coarse[d.lane], counts: counts[d.lane]};
}
function dispName(d) {
  if (!d.group) return (levels[d.lane] && levels[d.lane].length > 1 ? (stackOpen[d.lane] ? '\u25be ' : '\u25b8 ') : '') + rowName(T.rows[d.lane]);
  return (d.group.open ? '\u25be ' : '\u25b8 ') + d.group.name;
}
function toggle(g, open) { g.open = open === undefined ? !g.open : open; layout(); drawTimeline(); }
/* a thread's call stack: sub-rows per depth, or one row */
function toggleStack(lane, open) {
  stackOpen[lane] = (open === undefined ? !stackOpen[lane] : open) ? 1 : 0; layout(); drawTimeline();
}
function setStacks(open) { for (var l = 0; l < nrow; l++) stackOpen[l] = open && levels[l] && levels[l].length > 1 ? 1 : 0; layout(); drawTimeline(); }
function setAll(open) {
  groups.forEach(function (g) { g.open = open; }); layout(); drawTimeline();
}
/* rank -> its first and last lane (collective instances span members) */
var rankLo = {}, rankHi = {};
T.rows.forEach(function (r, i) { if (!(r.p in rankLo)) rankLo[r.p] = i; rankHi[r.p] = i; });
function laneOfRank(p, hi) {
  var m = hi ? rankHi : rankLo;
  if (p in m) return m[p];
  var best = -1;   /* a rank without a row: the nearest one */
  T.rows.forEach(function (r, i) { if (best < 0 || Math.abs(r.p - p) < Math.abs(T.rows[best].p - p)) best = i; });
  return best;
}
/* the kept collective instances that overlap [v0, v1]; at most MAXCOLL drawn,
   those with the largest entry spread, and the page says so */
var colls = (T.colls || []).map(function (c) {
  return {region: c[0], lo: c[1], hi: c[2], first: c[3], last: c[4], end: c[5], members: c[6], size: c[7],
    comm: c[8], root: c[9], bytes: c[10], late: c[11]};
});
var MAXCOLL = 300, drawnColls = [];
function collsInView() {
  var v = colls.filter(function (c) { return c.end >= v0 && c.first <= v1; });
  var inView = 0;   /* instances that begin in the view, from the C side's per-bucket counts */
  (T.ctrack || []).forEach(function (e) { var ta = e[0] * T.width; if (ta + T.width >= v0 && ta <= v1) inView += e[1]; });
  /* at most one per 12 pixels of plot: more make a wall of bands at coarse zoom */
  var cap = Math.min(MAXCOLL, Math.max(20, Math.floor(W / 12)));
  if (v.length > cap) v = v.slice().sort(function (a, b) { return (b.last - b.first) - (a.last - a.first); }).slice(0, cap);
  return {list: v, inView: Math.max(inView, v.length), cap: cap};
}
function collBox(c) {
  var ra = dispOf[laneOfRank(c.lo, false)], rb = dispOf[laneOfRank(c.hi, true)];
  var xa = t2x(c.first), xb = t2x(c.end);
  var da = disp[Math.min(ra, rb)], db = disp[Math.max(ra, rb)];
  return {x: xa, w: Math.max(2, xb - xa), y: da.y, h: db.y + db.h - da.y - 1, xl: t2x(c.last)};
}

/* a name inside a box of width w from x (clipped to the plot), cut with "…" */
var labelW = {};   /* names' widths in the timeline's font (10px sans-serif) */
function label(g, nm, x, w, y) {
  var x0 = Math.max(x, LM), room = Math.min(x + w, LM + W) - x0 - 6;
  if (room < 12) return;
  var tw = labelW[nm];
  if (tw === undefined) tw = labelW[nm] = g.measureText(nm).width;
  if (tw > room) {   /* cut in proportion, then a character at a time */
    var k = Math.max(1, Math.floor(nm.length * room / tw)), cut = nm.slice(0, k) + '\u2026';
    while (k > 1 && g.measureText(cut).width > room) cut = nm.slice(0, --k) + '\u2026';
    nm = cut;
  }
  g.fillStyle = '#fff'; g.fillText(nm, x0 + 3, y);
}
var picked = null;   /* the selected slice, outlined */
var MAXMSG = 300, msgsOn = true, msgState = {mode: 'lines', lines: 0, pairs: 0, inView: 0};
/* whether message m is sent or received inside slice s (its send on s's
   thread within s, or its receive) */
function msgOfSlice(m, s) {
  return (m[0] === s[0] && m[2] >= s[3] && m[2] <= s[4]) || (m[1] === s[0] && m[3] >= s[3] && m[3] <= s[4]);
}
/* The rows' summary bars are written as pixels into one image (a
   rectangle per run of equal pixel columns would be tens of thousands of
   canvas operations at coarse zoom, each recorded and then rasterised by
   the browser in the frame), put on the canvas at once. */
var bars = null, bars32 = null;
var LITTLE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
function px32(c) {   /* "#rrggbb" as an opaque RGBA pixel of a Uint32Array (little or big endian) */
  var n = parseInt(c.slice(1), 16), r = n >> 16 & 255, gg = n >> 8 & 255, b = n & 255;
  return LITTLE ? (0xff000000 | b << 16 | gg << 8 | r) >>> 0 : ((r << 24 | gg << 16 | b << 8 | 255) >>> 0);
}
var regionPx = T.regions.map(function (g) { return px32(g.c); });
var barLine = null;   /* one pixel row of a bar, copied into its rows */
function barRows(y, h) {   /* barLine into canvas rows [y, y + h) */
  for (var yy = Math.max(0, y - TM), ye = Math.min(bars.height, y - TM + h); yy < ye; yy++) bars32.set(barLine, yy * W);
}
function drawTimeline() {
  var g = cvg;
  var ndisp = disp.length;
  g.clearRect(0, 0, cv.width, cv.height);
  g.fillStyle = '#fff'; g.fillRect(0, 0, cv.width, cv.height);
  var anyFine = false, labels = [], stripes = [];
  var bh0 = Math.max(1, rowsH);
  if (!bars || bars.width !== W || bars.height !== bh0) {
    bars = g.createImageData(W, bh0); bars32 = new Uint32Array(bars.data.buffer); barLine = new Uint32Array(W);
  }
  var white = px32('#ffffff'), groupBg = px32('#f3f3f6');
  bars32.fill(white);
  for (var r = 0; r < ndisp; r++) {
    var d = disp[r], S = srcOf(d), nsub = nsubOf(d), bg = d.group ? groupBg : white;
    for (var L = 0; L < nsub; L++) {
    var bw = S.width / (v1 - v0) * W;   /* a fine bucket in pixels */
    var useFine = bw >= 0.9 || nsub > 1, ids = nsub > 1 ? levels[d.lane][L] : useFine ? S.fine : S.coarse;
    var bwid = nsub > 1 ? dlw : useFine ? S.width : S.width * T.coarse;
    var nbl = ids.length, prev = -2, px0 = 0, y = d.y + L * rh, hh = rh - 1;
    if (bw >= 0.9) anyFine = true;
    for (var x = 0; x <= W; x++) {
      var id = -2;
      if (x < W) {
        var ta = v0 + x / W * (v1 - v0), tb = v0 + (x + 1) / W * (v1 - v0);
        var ia = Math.floor(ta / bwid), ib = Math.max(ia, Math.ceil(tb / bwid) - 1);
        id = -1;
        if (ia < nbl) { id = ids[Math.max(0, ia)]; if (id < 0 && ib > ia && ib < nbl) id = ids[ib]; }
        if (ta > dur) id = -1;
        barLine[x] = id >= 0 ? regionPx[id] : bg;
      }
      if (id !== prev) {
        if (prev >= 0 && x - px0 > 50 && rh >= 10) labels.push([prev, px0, x - px0, y + hh / 2]);
        prev = id; px0 = x;
      }
    }
    barRows(y, hh);
    }
    if (d.group && rh >= 6) stripes.push(y + hh - 2);
  }
  g.putImageData(bars, LM, TM);
  g.font = '10px sans-serif'; g.textBaseline = 'middle';
  labels.forEach(function (l) { label(g, T.regions[l[0]].n, LM + l[1], l[2], l[3]); });
  g.fillStyle = 'rgba(255,255,255,0.55)';
  stripes.forEach(function (y) { g.fillRect(LM, y, W, 2); });
  /* slices (shown threads only): filled when every slice is here, else outlined */
  g.save(); g.beginPath(); g.rect(LM, TM, W, rowsH); g.clip();
  g.font = '10px sans-serif'; g.textBaseline = 'middle';
  for (var i = 0; i < slices.length; i++) {
    var s = slices[i];
    if (s[4] < v0 || s[3] > v1) continue;
    var dd0 = disp[dispOf[s[0]]];
    if (dd0.group) continue;
    var xa = t2x(s[3]), xb = t2x(s[4]), open = nsubOf(dd0) > 1;
    /* narrower than a pixel in an open stack: its sub-row's bar shows it */
    var ex = exact(s);
    if (xb - xa < (open ? 1 : ex ? 0.5 : 3)) continue;
    /* an open stack: the slice on its depth's sub-row, filled (it is exact);
       one row: inset by depth, filled when every slice is here */
    var inset = open ? 0 : Math.min(s[2] * 2, Math.floor(rh / 3)), yy = dd0.y + (open ? subOf(s, dd0) * rh : 0) + inset, sh = rh - 1 - inset;
    if (ex || open) { g.fillStyle = T.regions[s[1]].c; g.fillRect(xa, yy, Math.max(1, xb - xa), sh); }
    if (xb - xa > 4 && rh >= 8) { g.strokeStyle = s === picked ? '#000' : 'rgba(0,0,0,0.35)'; g.lineWidth = s === picked ? 2 : 1; g.strokeRect(xa + 0.5, yy + 0.5, xb - xa - 1, sh - 1); g.lineWidth = 1; }
    if (xb - xa > 40 && rh >= 10) label(g, T.regions[s[1]].n, xa, xb - xa, yy + sh / 2);
  }
  /* collective instances: one band per instance over its members' rows, from
     the first entry to the last exit; the bar on top is the entry spread */
  var cvw = collsInView();
  drawnColls = cvw.list;
  drawnColls.forEach(function (c) {
    var b = collBox(c);
    g.fillStyle = 'rgba(30,30,90,0.16)'; g.fillRect(b.x, b.y, b.w, b.h);
    g.strokeStyle = 'rgba(25,20,80,0.9)'; g.lineWidth = 1.5;
    g.beginPath();
    g.moveTo(b.x + 0.5, b.y); g.lineTo(b.x + 0.5, b.y + b.h);
    g.moveTo(b.x + b.w - 0.5, b.y); g.lineTo(b.x + b.w - 0.5, b.y + b.h);
    g.moveTo(b.x, b.y + 0.5); g.lineTo(b.x + 3, b.y + 0.5); g.moveTo(b.x, b.y + b.h - 0.5); g.lineTo(b.x + 3, b.y + b.h - 0.5);
    g.moveTo(b.x + b.w, b.y + 0.5); g.lineTo(b.x + b.w - 3, b.y + 0.5); g.moveTo(b.x + b.w, b.y + b.h - 0.5); g.lineTo(b.x + b.w - 3, b.y + b.h - 0.5);
    g.stroke();
    g.lineWidth = 1; g.fillStyle = 'rgba(25,20,80,0.9)'; g.fillRect(b.x, b.y, Math.max(1, b.xl - b.x), 3);
  });
  /* messages on demand (the "messages" control): a line per message when
     at most MAXMSG of them are in the view, else one line per pair of rows
     with its count; the picked slice's own messages always */
  var inView = [], mine = [];
  for (var k = 0; k < T.msgs.length; k++) {
    var m = T.msgs[k];
    if (m[3] < v0 || m[2] > v1) continue;
    var ra = dispOf[m[0]], rb = dispOf[m[1]];
    if (ra === rb && disp[ra].group) continue;
    if (picked && msgOfSlice(m, picked)) mine.push(m); else inView.push(m);
  }
  msgState.inView = inView.length + mine.length; msgState.lines = 0; msgState.pairs = 0;
  msgState.mode = !msgsOn ? 'off' : inView.length > MAXMSG ? 'pairs' : 'lines';
  function arrow(m, col, wd) {
    var x1 = t2x(m[2]), y1 = disp[dispOf[m[0]]].y + rh / 2, x2 = t2x(m[3]), y2 = disp[dispOf[m[1]]].y + rh / 2;
    g.strokeStyle = col; g.fillStyle = col; g.lineWidth = wd;
    g.beginPath(); g.moveTo(x1, y1); g.lineTo(x2, y2); g.stroke();
    var an = Math.atan2(y2 - y1, x2 - x1);
    g.beginPath(); g.moveTo(x2, y2); g.lineTo(x2 - 6 * Math.cos(an - 0.4), y2 - 6 * Math.sin(an - 0.4));
    g.lineTo(x2 - 6 * Math.cos(an + 0.4), y2 - 6 * Math.sin(an + 0.4)); g.fill();
    g.lineWidth = 1; msgState.lines++;
  }
  if (msgState.mode === 'lines') inView.forEach(function (m) { arrow(m, 'rgba(20,40,120,0.75)', 1); });
  else if (msgState.mode === 'pairs') {
    var pairs = {};
    inView.forEach(function (m) {
      var key = dispOf[m[0]] + ',' + dispOf[m[1]], p = pairs[key] || (pairs[key] = {a: dispOf[m[0]], b: dispOf[m[1]], n: 0, t: 0});
      p.n++; p.t += (m[2] + m[3]) / 2;
    });
    g.font = '10px sans-serif'; g.textBaseline = 'middle';
    var placed = [];
    Object.keys(pairs).forEach(function (key) {
      var p = pairs[key], x = t2x(p.t / p.n), ya = disp[p.a].y + rh / 2, yb = disp[p.b].y + rh / 2;
      g.strokeStyle = 'rgba(20,40,120,0.55)'; g.lineWidth = Math.min(6, 1 + Math.log(p.n) / Math.LN2 / 2);
      g.setLineDash([4, 3]); g.beginPath(); g.moveTo(x, ya); g.lineTo(x + 12, yb); g.stroke(); g.setLineDash([]);
      g.lineWidth = 1;
      var lab = p.n + (T.msgs.length < T.nmatched ? ' (sample)' : ''), tw = g.measureText(lab).width;
      /* the count beside its line, moved up or down a line when it would
         cover another pair's (pairs a->b and b->a share a middle) */
      var ym = (ya + yb) / 2, at = null;
      [0, -13, 13, -26, 26].some(function (dy) {
        var bx = {x: x + 8, y: ym + dy - 6, w: tw + 4};
        if (bx.y < TM || bx.y + 12 > TM + rowsH) return false;
        if (placed.some(function (q) { return bx.x < q.x + q.w && q.x < bx.x + bx.w && bx.y < q.y + 12 && q.y < bx.y + 12; })) return false;
        at = bx; return true;
      });
      if (at) {
        placed.push(at);
        g.fillStyle = 'rgba(255,255,255,0.85)'; g.fillRect(at.x, at.y, at.w, 12);
        g.fillStyle = '#14287a'; g.fillText(lab, at.x + 2, at.y + 6);
      }
      msgState.pairs++;
    });
  }
  mine.forEach(function (m) { arrow(m, '#e0218a', 2); });
  /* calls -> the device work they started (records linked by role
     correlation: a CUDA launch and its kernel), with the messages: one
     arrow each when at most MAXMSG are in the view */
  var linksIn = (T.links || []).filter(function (l) { return l[3] >= v0 && l[2] <= v1; });
  var linksDrawn = 0;
  if (msgsOn && linksIn.length <= MAXMSG) linksIn.forEach(function (l) {
    var ra = dispOf[l[0]], rb = dispOf[l[1]];
    if (ra === undefined || rb === undefined || ra === rb) return;
    var x1 = t2x(l[2]), y1 = disp[ra].y + rh / 2, x2 = t2x(l[3]), y2 = disp[rb].y + rh / 2;
    var an = Math.atan2(y2 - y1, x2 - x1);
    g.strokeStyle = g.fillStyle = 'rgba(0,120,70,0.8)';
    g.beginPath(); g.moveTo(x1, y1); g.lineTo(x2, y2); g.stroke();
    g.beginPath(); g.moveTo(x2, y2); g.lineTo(x2 - 6 * Math.cos(an - 0.4), y2 - 6 * Math.sin(an - 0.4));
    g.lineTo(x2 - 6 * Math.cos(an + 0.4), y2 - 6 * Math.sin(an + 0.4)); g.fill();
    linksDrawn++;
  });
  document.body.setAttribute('data-tl-links', linksDrawn + ',' + linksIn.length);
  /* markers */
  g.fillStyle = '#111';
  T.markers.forEach(function (mk) {
    if (mk[1] < v0 || mk[1] > v1) return;
    var x = t2x(mk[1]), y = disp[dispOf[mk[0]]].y;
    g.beginPath(); g.moveTo(x - 4, y); g.lineTo(x + 4, y); g.lineTo(x, y + Math.min(7, rh)); g.fill();
  });
  g.restore();
  /* selection */
  if (sel) { g.fillStyle = 'rgba(60,120,255,0.18)'; g.fillRect(t2x(sel[0]), TM, t2x(sel[1]) - t2x(sel[0]), rowsH); }
  /* row labels: every group's, threads' when there is room */
  g.textBaseline = 'middle';
  var every = Math.ceil(10 / rh), fs = rh >= 12 ? 11 : rh >= 9 ? 9 : 8;
  for (var r2 = 0; r2 < ndisp; r2++) {
    var dd = disp[r2];
    if (!dd.group && r2 % every && r2 !== cur) continue;
    if (dd.group && rh < 8 && r2 % every) continue;
    var ind = 4 + 10 * dd.depth, lab = dispName(dd);
    g.font = (dd.group ? 'bold ' : '') + fs + 'px sans-serif';
    while (lab.length > 2 && g.measureText(lab).width > LM - 6 - ind) lab = lab.slice(0, -2) + '\u2026';
    if (r2 === cur) { g.fillStyle = '#dde6ff'; g.fillRect(0, dd.y, LM - 2, dd.h - 1); }
    g.fillStyle = dd.group ? '#123' : '#222';
    g.fillText(lab, ind, dd.y + rh / 2);
  }
  /* group brackets in the margin: an open group's extent */
  g.strokeStyle = '#99a'; g.lineWidth = 1;
  for (var r3 = 0; r3 < ndisp; r3++) {
    var dg = disp[r3];
    if (!dg.group || !dg.group.open) continue;
    var e3 = r3 + 1;
    while (e3 < ndisp && disp[e3].depth > dg.depth) e3++;
    var bx = 1.5 + 10 * dg.depth;
    var by0 = dg.y + dg.h, by1 = disp[e3 - 1].y + disp[e3 - 1].h - 1;
    g.beginPath(); g.moveTo(bx + 3, by0); g.lineTo(bx, by0); g.lineTo(bx, by1); g.lineTo(bx + 3, by1); g.stroke();
  }
  /* counters */
  var cy = TM + rowsH + 8;
  counters.forEach(function (c) {
    /* a count (samples never decrease) as its rate per second, a gauge as its values */
    var series = c.cum && c.r ? c.r : c.v, unit = counterUnit(c);
    var mn = Infinity, mx = -Infinity;
    series.forEach(function (b) { if (b) { mn = Math.min(mn, b[0]); mx = Math.max(mx, b[1]); } });
    if (!(mx >= mn)) { cy += CH + 6; return; }
    if (mx === mn) { mx += 1; mn -= 1; }
    g.strokeStyle = '#ccc'; g.strokeRect(LM + 0.5, cy + 0.5, W, CH);
    g.fillStyle = 'rgba(120,60,160,0.25)'; g.strokeStyle = '#6b3fa0';
    var y = function (v) { return cy + CH - (v - mn) / (mx - mn) * (CH - 2) - 1; };
    g.beginPath(); var first = true;
    for (var b = 0; b < nb; b++) {
      var e = series[b]; if (!e) continue;
      var ta = b * T.width, tb = ta + T.width;
      if (tb < v0 || ta > v1) continue;
      var xa = Math.max(LM, t2x(ta)), xb = Math.min(LM + W, t2x(tb));
      g.fillRect(xa, y(e[1]), Math.max(1, xb - xa), Math.max(1, y(e[0]) - y(e[1])));
      if (first) { g.moveTo(xa, y(e[2])); first = false; } else g.lineTo(xb, y(e[2]));
    }
    g.stroke();
    g.fillStyle = '#222'; g.font = '10px sans-serif'; g.textBaseline = 'top';
    var nm = c.name; while (nm.length > 2 && g.measureText(nm).width > LM - 8) nm = nm.slice(0, -2) + '\u2026';
    g.fillText(nm, 4, cy + 2);
    g.fillText((c.cum ? 'rate, ' : '') + (c.np > 1 ? c.np + ' ranks (mean)' : 'rank ' + c.p), 4, cy + 14);
    g.fillText(String(+mx.toPrecision(4)) + ' ' + unit, LM + 3, cy + 2);
    g.textBaseline = 'bottom'; g.fillText(String(+mn.toPrecision(4)) + ' ' + unit, LM + 3, cy + CH - 1);
    cy += CH + 6;
  });
  var step = timeAxis(g, LM, TM - 2, W, v0, v1, true);
  body.setAttribute('data-tl-from', v0); body.setAttribute('data-tl-to', v1);
  body.setAttribute('data-tl-step', step);
  body.setAttribute('data-tl-colls', drawnColls.length);
  body.setAttribute('data-tl-msgs', msgState.mode + ',' + msgState.lines + ',' + msgState.pairs + ',' + msgState.inView);
  var mt = document.getElementById('tl-msgs-note');
  if (mt) mt.textContent = msgState.mode === 'off' ? 'messages hidden' : msgState.mode === 'pairs' ?
    msgState.inView + ' messages in view: counts per pair of rows (zoom in to ' + MAXMSG + ' or fewer for a line each)' :
    msgState.lines + ' message lines';
  document.getElementById('tl-range').textContent = fmtDur(v0) + ' \u2013 ' + fmtDur(v1) +
    ' (' + fmtDur(v1 - v0) + '; ' + (anyFine ? 'fine' : 'coarse') + ' summary, ' + T.slices.length + ' of ' + T.nslices + ' slices' +
    (WS && !T.complete ? '; every slice of the window ' + fmtDur(WS[0]) + ' \u2013 ' + fmtDur(WS[1]) : '') + ')';
  var ct = document.getElementById('tl-colls');
  if (ct) ct.textContent = !T.ncolls ? '' : 'collective instances: ' + drawnColls.length + ' drawn of ' + cvw.inView + ' in view' +
    (drawnColls.length < cvw.inView ? ' (' + (cvw.list.length >= cvw.cap ? 'the ' + cvw.cap + ' with the largest entry spread' : 'the ' + colls.length + ' longest of the run are kept') + '; zoom in for more)' : '') +
    ', ' + T.ncolls + ' in the run';
}

/* a counter track's unit: a count's per second, a gauge's own */
function counterUnit(c) { return c.cum ? (c.unit ? c.unit + '/s' : '/s') : (c.unit || ''); }
/* display rows whose canvas pixels are not blank (the browser test reads it) */
function paintedRows(from, to) {
  var g = cvg, n = 0;
  from = from || 0; to = to === undefined ? disp.length : to;
  for (var r = from; r < to; r++) {
    var d = g.getImageData(LM, disp[r].y, W, Math.max(1, disp[r].h - 1)).data, any = false;
    for (var i = 0; i < d.length; i += 4) {
      var bg = disp[r].group && d[i] === 0xf3 && d[i + 1] === 0xf3 && d[i + 2] === 0xf6;
      if (!bg && (d[i] < 240 || d[i + 1] < 240 || d[i + 2] < 240)) { any = true; break; }
    }
    if (any) n++;
  }
  return n;
}

function setView(a, b) {
  var span = Math.max(b - a, dur * 1e-7, 1e-9);
  if (span > dur) span = dur;
  a = Math.max(0, Math.min(a, dur - span));
  v0 = a; v1 = a + span; drawTimeline();
}
cv.addEventListener('wheel', function (e) {
  e.preventDefault();
  var r = cv.getBoundingClientRect(), x = (e.clientX - r.left) * cv.width / r.width;
  if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
    var d = (e.shiftKey ? e.deltaY : e.deltaX) / W * (v1 - v0);
    setView(v0 + d, v1 + d); return;
  }
  var t = x2t(Math.max(LM, Math.min(LM + W, x))), f = e.deltaY < 0 ? 0.8 : 1.25;
  setView(t - (t - v0) * f, t + (v1 - t) * f);
}, {passive: false});
var drag = null;
function evX(e) { var r = cv.getBoundingClientRect(); return [(e.clientX - r.left) * cv.width / r.width, (e.clientY - r.top) * cv.height / r.height]; }
cv.addEventListener('mousedown', function (e) {
  var p = evX(e);
  if (p[0] >= LM) { drag = {x: p[0], y: p[1]}; return; }
  var r = rowAt(p[1]);   /* the label of a group: open or close it */
  if (r >= 0) {
    cur = r;
    if (disp[r].group) toggle(disp[r].group);
    else if (levels[disp[r].lane] && levels[disp[r].lane].length > 1) toggleStack(disp[r].lane);
    else drawTimeline();
  }
});
cv.addEventListener('mousemove', function (e) {
  var p = evX(e);
  var ra0 = rowAt(p[1]);
  cv.style.cursor = p[0] < LM && ra0 >= 0 && (disp[ra0].group || (levels[disp[ra0].lane] || []).length > 1) ? 'pointer' : 'default';
  if (drag && Math.abs(p[0] - drag.x) > 4) {
    var a = x2t(Math.min(drag.x, p[0])), b = x2t(Math.max(drag.x, p[0]));
    sel = [Math.max(0, a), Math.min(dur, b)]; drawTimeline(); return;
  }
  if (!pinned) showAt(p[0], p[1], false);
});
window.addEventListener('mouseup', function (e) {
  if (!drag) return;
  var p = evX(e), moved = Math.abs(p[0] - drag.x) > 4;
  drag = null;
  if (moved && sel) { var s = sel; setView(s[0], s[1]); windowProfile(s[0], s[1]); sel = null; drawTimeline(); }
  else { pinned = showAt(p[0], p[1], true); drawTimeline(); }
});
document.getElementById('tl-reset').addEventListener('click', function () { sel = null; setView(0, dur); windowProfile(0, dur); });
document.getElementById('tl-left').addEventListener('click', function () { var d = (v1 - v0) / 3; setView(v0 - d, v1 - d); });
document.getElementById('tl-right').addEventListener('click', function () { var d = (v1 - v0) / 3; setView(v0 + d, v1 + d); });
document.getElementById('tl-in').addEventListener('click', function () { var c = (v0 + v1) / 2, h = (v1 - v0) / 4; setView(c - h, c + h); });
document.getElementById('tl-out').addEventListener('click', function () { var c = (v0 + v1) / 2, h = (v1 - v0); setView(c - h, c + h); });
document.getElementById('tl-expand').addEventListener('click', function () { setAll(true); });
document.getElementById('tl-collapse').addEventListener('click', function () { setAll(false); });
document.getElementById('tl-search').addEventListener('keydown', function (e) {
  if (e.key === 'Enter') { if (e.target.value !== query) searchFor(e.target.value); else searchStep(e.shiftKey ? -1 : 1); e.preventDefault(); }
});
document.getElementById('tl-next').addEventListener('click', function () { var v = document.getElementById('tl-search').value; if (v !== query) searchFor(v); else searchStep(1); });
document.getElementById('tl-prev').addEventListener('click', function () { var v = document.getElementById('tl-search').value; if (v !== query) searchFor(v); else searchStep(-1); });
document.getElementById('tl-msgs').addEventListener('change', function (e) { msgsOn = e.target.checked; drawTimeline(); });
document.getElementById('tl-stacks').addEventListener('click', function () {
  var any = false; for (var l = 0; l < nrow; l++) if (stackOpen[l]) any = true;
  setStacks(!any);
});
cv.tabIndex = 0;
cv.addEventListener('keydown', function (e) {
  var d = (v1 - v0) / 5;
  if (e.key === 'ArrowLeft') setView(v0 - d, v1 - d); else if (e.key === 'ArrowRight') setView(v0 + d, v1 + d);
  else if (e.key === '+') document.getElementById('tl-in').click(); else if (e.key === '-') document.getElementById('tl-out').click();
  else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') { cur = Math.max(0, Math.min(disp.length - 1, cur + (e.key === 'ArrowDown' ? 1 : -1))); drawTimeline(); }
  else if ((e.key === 'Enter' || e.key === ' ') && cur >= 0 && disp[cur].group) toggle(disp[cur].group);
  else if (e.key === 'e') setAll(true); else if (e.key === 'c') setAll(false);
  else return;
  e.preventDefault();
});

function fieldTable(title, kv) {
  var h = '<b>' + esc(title) + '</b><table class="fields">';
  kv.forEach(function (p) { h += '<tr><th>' + esc(p[0]) + '</th><td>' + esc(p[1]) + '</td></tr>'; });
  return h + '</table>';
}
function collFields(c) {
  var g = T.regions[c.region];
  var f = [['operation', g ? g.n : '?'], ['communicator', c.comm + (c.size ? ' (' + c.size + ' ranks)' : '')],
    ['participants', c.members + (c.size && c.members < c.size ? ' of ' + c.size + ' (trace ended)' : '') + ', ranks ' + c.lo + '\u2013' + c.hi],
    ['root', c.root >= 0 ? c.root : '(none)'], ['bytes', c.bytes], ['first entry', fmtDur(c.first)], ['last entry', fmtDur(c.last) + ' (rank ' + c.late + ')'],
    ['wait spread', fmtDur(c.last - c.first)], ['last exit', fmtDur(c.end)], ['span', fmtDur(c.end - c.first)]];
  return fieldTable('collective instance', f);
}
/* seconds from the start to the nanosecond, as pal-dump prints them */
function nsOf(t) { return Math.round(t * 1e9); }
function fmtNs(ns) {
  var neg = ns < 0, a = Math.abs(ns), sec = Math.floor(a / 1e9), fr = String(a - sec * 1e9);
  while (fr.length < 9) fr = '0' + fr;
  return (neg ? '-' : '') + sec + '.' + fr + ' s';
}
/* every field of a kept slice: times exact (ns), the MPI arguments the
   call carried (peer, tag, communicator, bytes, request, root) */
function sliceFields(s) {
  var g = T.regions[s[1]], row = T.rows[s[0]], a = nsOf(s[3]), b = nsOf(s[4]);
  var f = [['region', g.n], ['kind', kindName(g.k)], ['start', fmtNs(a)], ['end', fmtNs(b)],
    ['duration', (b - a) + ' ns' + (b - a >= 1e4 ? ' (' + fmtDur(s[4] - s[3]) + ')' : '')], ['depth', s[2]], ['rank', row.p], ['thread', row.t]];
  if (s[6] >= 0) f.push(['peer', s[6]], ['tag', s[7]]);
  if (g.k === 1 && s.length > 8) f.push(['communicator', s[8]]);
  if (s[5] || (g.k === 1 && s[6] >= 0)) f.push(['bytes', s[5]]);
  if (s.length > 10 && s[10] >= 0) f.push(['request', s[10]]);
  if (s.length > 9 && s[9] >= 0) f.push(['root', s[9]]);
  return f;
}
/* the matched partners of slice s in the page's messages: buttons that
   jump to the slice at the other end (the receive of a send, the send of a
   receive) */
function partnerLinks(s) {
  var h = '', n = 0;
  T.msgs.forEach(function (m, i) {
    if (n >= 8 || !msgOfSlice(m, s)) return;
    var send = m[0] === s[0] && m[2] >= s[3] && m[2] <= s[4], r = T.rows[send ? m[1] : m[0]];
    h += '<button class="partner" data-msg="' + i + '" data-side="' + (send ? 's' : 'r') + '" id="tl-partner-' + n + '">' +
      (send ? 'jump to the receive: rank ' : 'jump to the send: rank ') + r.p + (threadsOf[r.p] > 1 ? '.' + r.t : '') + ', ' +
      fmtNs(nsOf(send ? m[3] : m[2])) + ', ' + m[4] + ' bytes</button> ';
    n++;
  });
  if (n) return '<div>matched partner' + (n > 1 ? 's' : '') + ': ' + h + '</div>';
  return T.msgs.length < T.nmatched && s.length > 6 && s[6] >= 0 ?
    '<div class="hint">its matched partner is not in the page\u2019s sample of messages</div>' : '';
}
/* shows and selects the slice at the other end of message i */
function jumpPartner(i, side) {
  var m = T.msgs[i], lane = side === 's' ? m[1] : m[0], t = side === 's' ? m[3] : m[2], best = null;
  slices.forEach(function (s) { if (s[0] === lane && s[3] <= t && t <= s[4] && (!best || s[2] >= best[2])) best = s; });
  var a = Math.min(m[2], best ? best[3] : t), b = Math.max(m[3], best ? best[4] : t), pad = (b - a) * 0.3 + 1e-9;
  if (!stackOpen[lane] || !(v0 <= a && b <= v1)) setView(a - pad, b + pad);
  picked = best;
  if (best) { info.innerHTML = fieldTable('slice', sliceFields(best)) + partnerLinks(best); pinned = 'slice'; body.setAttribute('data-tl-picked', 'slice'); }
  else { info.innerHTML = '<b>the receiving side has no kept slice at ' + esc(fmtNs(nsOf(t))) + '</b>'; body.setAttribute('data-tl-picked', 'none'); }
  drawTimeline();
}
info.addEventListener('click', function (e) {
  var b = e.target.closest ? e.target.closest('button.partner') : null;
  if (b) jumpPartner(parseInt(b.getAttribute('data-msg'), 10), b.getAttribute('data-side'));
});
/* what is under (x, y): a marker, a collective instance, the innermost kept
   slice, or the summary (a thread's or a group's) */
function showAt(x, y, click) {
  var r = rowAt(y);
  if (x < LM || r < 0) { if (click) { info.innerHTML = 'click a slice for its fields'; body.removeAttribute('data-tl-picked'); } return null; }
  var d = disp[r], t = x2t(x), tol = 4 / W * (v1 - v0), html = null, kind = null;
  var lane = d.group ? -1 : d.lane, row = lane >= 0 ? T.rows[lane] : null;
  for (var i = 0; i < T.markers.length && !html; i++) {
    var mk = T.markers[i];
    if (dispOf[mk[0]] === r && Math.abs(mk[1] - t) <= tol)
      html = fieldTable('marker', [['text', mk[2]], ['time', fmtDur(mk[1])], ['rank', T.rows[mk[0]].p], ['thread', T.rows[mk[0]].t]]), kind = 'marker';
  }
  var cbest = null;
  drawnColls.forEach(function (c) {
    var b = collBox(c);
    if (x >= b.x - 1 && x <= b.x + b.w + 1 && y >= b.y && y <= b.y + b.h && (!cbest || c.end - c.first < cbest.end - cbest.first)) cbest = c;
  });
  /* an open call stack: the sub-row under the pointer is a depth, and the
     slice there is the frame open at that depth (the last sub-row: that
     depth or deeper, the deepest); one row: the innermost kept slice */
  var nsub = nsubOf(d), L = nsub > 1 ? Math.max(0, Math.min(nsub - 1, Math.floor((y - d.y) / rh))) : -1;
  var best = null;
  for (var k = 0; k < slices.length && lane >= 0 && !html; k++) {
    var s = slices[k];
    if (s[0] !== lane || s[3] > t || t > s[4]) continue;
    if (L >= 0 && (L < nsub - 1 ? s[2] !== L : s[2] < L)) continue;
    if (!best || s[2] >= best[2]) best = s;
  }
  if (click) picked = !html && best ? best : null;
  if (!html && best) {
    var f = sliceFields(best);
    html = fieldTable('slice', f) + partnerLinks(best); kind = 'slice';
  }
  if (!html) {
    var S = srcOf(d), bi = Math.floor(t / S.width), id = bi < S.nb ? S.fine[bi] : -1;
    if (L >= 0) { var bl = Math.floor(t / dlw); id = bl < dlnb ? levels[lane][L][bl] : -1; }
    var f2 = [['time', fmtDur(bi * S.width) + ' \u2013 ' + fmtDur((bi + 1) * S.width)]];
    if (L >= 0) f2.push(['depth', L + (L === nsub - 1 ? ' or deeper' : '')]);
    if (row) f2.push(['rank', row.p], ['thread', row.t]);
    else f2.push(['group', d.group.name], ['threads', d.group.b - d.group.a]);
    f2.push(['frames begun', bi < S.nb ? S.counts[bi] : 0]);
    f2.unshift([L >= 0 ? 'region open at this depth (most of the bucket)' : 'dominant region', id >= 0 ? T.regions[id].n : '(none)']);
    html = fieldTable(row ? 'summary bucket' : 'group summary bucket', f2); kind = 'bucket';
  }
  if (cbest && kind !== 'marker') { html = collFields(cbest) + html; kind = 'collective'; }
  info.innerHTML = html;
  if (click) body.setAttribute('data-tl-picked', kind);
  return click && kind !== 'bucket' ? kind : null;
}

/* the profile of [a, b], exact: from the per-bucket sums pal-view wrote
 * (T.prof: per region, instances begun per bucket, instances open at each
 * bucket's start, inclusive and exclusive seconds per bucket), over the
 * whole buckets that cover [a, b] (the window is widened to their edges and
 * the page says so); it equals `pal-view --from A --to B` on those edges.
 * The window given with --from/--to comes exactly (T.wprof). */
var P = T.prof || {width: dur, nb: 0, r: []};
var profR = P.r.map(function (x) {
  return {r: x.r, c: decodeN(x.c, P.nb), o: decodeN(x.o, P.nb), i: x.i, x: x.x};
});
/* seconds as a pal-view argument: ns precision, no float noise */
function secArg(x) { return x.toFixed(9).replace(/\.?0+$/, ''); }
function windowProfile(a, b, exact) {
  var rows = [], note;
  if (exact) {
    exact.forEach(function (w) { rows.push({r: w[0], calls: w[1], incl: w[2], excl: w[3]}); });
    note = fmtNs(nsOf(a)) + ' \u2013 ' + fmtNs(nsOf(b)) + ': the window given to pal-view (--from/--to), exact';
  } else {
    var ia = Math.max(0, Math.floor(a / P.width + 1e-9)), ib = Math.min(P.nb, Math.max(ia + 1, Math.ceil(b / P.width - 1e-9)));
    var wa = ia * P.width, wb = ib * P.width;
    profR.forEach(function (x) {
      var p = {r: x.r, calls: ia < P.nb ? x.o[ia] : 0, incl: 0, excl: 0};
      for (var i = ia; i < ib; i++) { p.calls += x.c[i]; p.incl += x.i[i]; p.excl += x.x[i]; }
      if (p.calls) rows.push(p);
    });
    note = fmtNs(nsOf(wa)) + ' \u2013 ' + fmtNs(nsOf(wb)) + ' (' + (ib - ia) + ' of the profile\u2019s ' + fmtDur(P.width) +
      ' buckets, exact: equal to pal-view --from ' + secArg(wa) + ' --to ' + secArg(wb) + (wa !== a || wb !== b ? '; the selection widened to their edges' : '') + ')';
    a = wa; b = wb;
  }
  rows.sort(function (x, y) { return y.incl - x.incl || x.r - y.r; });
  var h = '<p>' + esc(note) + '</p>' +
    '<table class="sortable" id="tl-profile-table"><thead><tr><th>region</th><th>kind</th><th>calls</th>' +
    '<th>inclusive s</th><th>exclusive s</th></tr></thead><tbody>';
  rows.forEach(function (p) {
    var g = T.regions[p.r];
    h += '<tr><td><span class="sw" style="background:' + g.c + '"></span>' + esc(g.n) + '</td><td>' + kindName(g.k) +
      '</td><td>' + p.calls + '</td><td>' + p.incl.toFixed(9) + '</td><td>' + p.excl.toFixed(9) + '</td></tr>';
  });
  var el = document.getElementById('tl-profile');
  el.innerHTML = h + '</tbody></table>';
  sortable(document.getElementById('tl-profile-table'));
  body.setAttribute('data-tl-profile', a + ',' + b + ',' + rows.length);
}

/* how many of the matched messages the page draws ("a uniform sample of N
   of M" when the filter kept fewer) */
function msgSampleNote() {
  var n = T.msgs.length, m = T.nmatched === undefined ? n : T.nmatched;
  return n < m ? ' (a uniform sample of ' + n + ' of ' + m + ' matched)' : ' (all ' + n + ')';
}
var FAMS = ['MPI waits (blocking)', 'MPI collectives', 'MPI communication', 'other waits (OpenMP barriers, joins, locks)',
  'I/O', 'user code', 'set-up (process start and end)'];
function famOf(g) { return g.f !== undefined ? g.f : g.k === 1 ? (g.i ? 0 : 2) : g.k === 0 ? 5 : 6; }
/* the legend: a collapsible group per colour family (the regions by total
   time), and a filter box that keeps the names containing its text */
function legend() {
  var h = '<div><input id="lg-filter" size="18" placeholder="filter the legend"/> <span id="lg-count" class="hint"></span></div>';
  FAMS.forEach(function (fname, fam) {
    var items = [];
    T.regions.forEach(function (g) { if (famOf(g) === fam) items.push('<span class="lg" data-n="' + esc(g.n.toLowerCase()) + '"><span class="sw" style="background:' + g.c + '"></span>' + esc(g.n) + '</span>'); });
    if (items.length) h += '<details class="lgf"' + (items.length <= 24 ? ' open="open"' : '') + '><summary><b>' + fname + '</b> (' + items.length + ')</summary>' + items.join(' ') + '</details>';
  });
  h += '<div><b>also:</b> <span class="lg">\u2192 message' + msgSampleNote() + '</span> <span class="lg">\u25bc marker (' + T.nmarkers + ')</span>' +
    (counters.length ? ' <span class="lg">counter plots: counts (samples that never decrease) as their rate per second, gauges as their values; min\u2013max band over ranks and the mean per pixel (' + T.nsamples + ' samples)</span>' : '') + '</div>';
  document.getElementById('tl-legend').innerHTML = h;
  var lf = document.getElementById('lg-filter');
  lf.addEventListener('input', function () {
    var q = lf.value.toLowerCase(), n = 0;
    Array.prototype.forEach.call(document.querySelectorAll('#tl-legend span.lg[data-n]'), function (e) {
      var on = !q || e.getAttribute('data-n').indexOf(q) >= 0; e.style.display = on ? '' : 'none'; if (on) n++;
    });
    if (q) Array.prototype.forEach.call(document.querySelectorAll('#tl-legend details'), function (d) { d.open = true; });
    document.getElementById('lg-count').textContent = q ? n + ' match' + (n === 1 ? '' : 'es') : '';
  });
  Array.prototype.forEach.call(document.querySelectorAll('.msg-sample'), function (e) { e.textContent = msgSampleNote().replace('(', '; ').replace(')', ''); });
}

/* ---------- imbalance: the threads x regions heat map ----------
   A row per thread (as the timeline's rows), a column per region (those
   with most time, ALL.heat.cols), each cell coloured by the chosen value
   scaled to its column's largest; the values are the CSV's region rows. */
var H = ALL.heat || {cols: [], v: []}, hc = document.getElementById('heatmap'), hinfo = document.getElementById('heat-info');
var HL = 150, HT = 110, hcw = 0, hrh = 0, hmetric = 3, hcell = {};
H.v.forEach(function (c) { hcell[c[0] + ',' + c[1]] = c; });
function heatText(c) {
  var r = T.rows[c[0]], g = T.regions[H.cols[c[1]]];
  return 'rank ' + r.p + ' thread ' + r.t + ', ' + g.n + ': calls ' + c[2] + ', inclusive ' + c[3].toFixed(9) +
    ' s, exclusive ' + c[4].toFixed(9) + ' s';
}
function drawHeat() {
  if (!hc) return;
  var nc = H.cols.length, g = hc.getContext('2d');
  hcw = nc ? Math.max(6, Math.min(40, Math.floor((hc.width - HL - 10) / nc))) : 0;
  hrh = Math.max(3, Math.min(16, Math.floor(600 / Math.max(1, nrow))));
  hc.height = HT + nrow * hrh + 10;
  g.fillStyle = '#fff'; g.fillRect(0, 0, hc.width, hc.height);
  var mx = [];
  for (var j = 0; j < nc; j++) mx.push(0);
  H.v.forEach(function (c) { if (c[hmetric] > mx[c[1]]) mx[c[1]] = c[hmetric]; });
  H.v.forEach(function (c) {
    var q = mx[c[1]] > 0 ? c[hmetric] / mx[c[1]] : 0;
    g.fillStyle = 'rgb(' + Math.round(255 - 40 * q) + ',' + Math.round(255 - 215 * q) + ',' + Math.round(255 - 200 * q) + ')';
    g.fillRect(HL + c[1] * hcw, HT + c[0] * hrh, hcw - 1, hrh - 1);
  });
  g.strokeStyle = '#ccc'; g.strokeRect(HL - 0.5, HT - 0.5, nc * hcw, nrow * hrh);
  g.fillStyle = '#222'; g.font = '10px sans-serif'; g.textBaseline = 'middle';
  var every = Math.ceil(10 / hrh);
  for (var i = 0; i < nrow; i += every) g.fillText(rowName(T.rows[i]).slice(0, 24), 4, HT + (i + 0.5) * hrh);
  for (var k = 0; k < nc; k++) {
    g.save(); g.translate(HL + (k + 0.5) * hcw, HT - 4); g.rotate(-Math.PI / 3);
    var nm = T.regions[H.cols[k]].n; if (nm.length > 22) nm = nm.slice(0, 21) + '\u2026';
    g.fillStyle = T.regions[H.cols[k]].c; g.fillRect(0, -4, 8, 8); g.fillStyle = '#222'; g.fillText(nm, 11, 0); g.restore();
  }
  body.setAttribute('data-heat', nrow + 'x' + nc + ',' + hmetric);
}
function heatAt(e) {
  var r = hc.getBoundingClientRect(), x = (e.clientX - r.left) * hc.width / r.width, y = (e.clientY - r.top) * hc.height / r.height;
  var j = Math.floor((x - HL) / hcw), i = Math.floor((y - HT) / hrh);
  if (j < 0 || j >= H.cols.length || i < 0 || i >= nrow) return null;
  return hcell[i + ',' + j] || [i, j, 0, 0, 0];
}
if (hc) {
  hc.addEventListener('mousemove', function (e) { var c = heatAt(e); hinfo.textContent = c ? heatText(c) : '\u00a0'; });
  hc.addEventListener('click', function (e) {
    var c = heatAt(e); if (!c) return;
    hinfo.textContent = heatText(c);
    /* the timeline: that thread's row current (its group open), search the region */
    groups.forEach(function (g) { if (c[0] >= g.a && c[0] < g.b) g.open = true; });
    layout(); cur = dispOf[c[0]]; searchFor(T.regions[H.cols[c[1]]].n, c[0], true); cv.scrollIntoView({block: 'center'});
  });
  document.getElementById('heat-metric').addEventListener('change', function (e) { hmetric = parseInt(e.target.value, 10); drawHeat(); });
}

/* ---------- search by name: the kept slices whose region contains the text ---------- */
var found = [], foundAt = -1, query = '';
function searchFor(q, lane, exact) {
  query = q; found = []; foundAt = -1;
  var el = document.getElementById('tl-search'); if (el && el.value !== q) el.value = q;
  var lq = q.toLowerCase();
  if (lq) slices.forEach(function (s) { var n = T.regions[s[1]].n; if (exact ? n === q : n.toLowerCase().indexOf(lq) >= 0) found.push(s); });
  found.sort(function (a, b) { return a[3] - b[3] || a[0] - b[0]; });
  if (lane !== undefined) for (var i = 0; i < found.length; i++) if (found[i][0] === lane) { foundAt = i - 1; break; }
  searchStep(1);
}
function searchStep(dir) {
  var st = document.getElementById('tl-found');
  if (!found.length) { if (st) st.textContent = query ? 'no kept slice matches' : ''; picked = null; drawTimeline(); return; }
  foundAt = (foundAt + dir + found.length) % found.length;
  var s = found[foundAt], d = s[4] - s[3], lane = s[0];
  groups.forEach(function (g) { if (lane >= g.a && lane < g.b) g.open = true; });
  layout();
  picked = s; pinned = 'slice';
  info.innerHTML = fieldTable('slice', sliceFields(s)) + partnerLinks(s);
  body.setAttribute('data-tl-picked', 'slice');
  if (st) st.textContent = (foundAt + 1) + ' of ' + found.length + (T.complete ? '' : ' kept');
  setView(s[3] - d * 2 - 1e-9, s[4] + d * 2 + 1e-9);
}

/* ---------- the animator ---------- */
var C = ['#2e9e44', '#e0b000', '#d03a2f'], SN = ['busy', 'overhead', 'idle'];
var adur = A.duration || 1e-9, anb = A.nbins, t = adur, playing = false, speed = 1, last = null;
var cu = document.getElementById('util'), ct = document.getElementById('stl'), cm = document.getElementById('cm'),
  lab = document.getElementById('time');
var AL = 70, AB = 24;
function bin() { return Math.min(anb - 1, Math.floor(t / adur * anb)); }
function drawUtil() {
  var g = cu.getContext('2d'), w = cu.width - AL - 10, h = cu.height - AB - 8;
  g.clearRect(0, 0, cu.width, cu.height);
  var b = bin(), L = A.lanes.length || 1;
  for (var i = 0; i <= b; i++) {
    var y = 8 + h;
    for (var s = 0; s < 3; s++) {
      var v = A.util[i * 3 + s] / (A.width * L), hh = Math.min(1, v) * h;
      g.fillStyle = C[s]; g.fillRect(AL + i * w / anb, y - hh, Math.ceil(w / anb), hh); y -= hh;
    }
  }
  g.strokeStyle = '#444'; g.strokeRect(AL + 0.5, 8.5, w, h);
  g.fillStyle = '#222'; g.font = '11px sans-serif'; g.textBaseline = 'middle'; g.textAlign = 'right';
  [0, 50, 100].forEach(function (p) { g.fillText(p + ' %', AL - 4, 8 + h - p / 100 * h); });
  g.save(); g.translate(12, 8 + h / 2); g.rotate(-Math.PI / 2); g.textAlign = 'center'; g.fillText('threads', 0, 0); g.restore();
  g.textAlign = 'left';
  timeAxis(g, AL, 8 + h, w, 0, adur, false);
  cursor(g, AL + (b + 1) * w / anb, 8, h);
}
function cursor(g, x, y, h) { g.strokeStyle = '#000'; g.lineWidth = 1.5; g.beginPath(); g.moveTo(x, y); g.lineTo(x, y + h); g.stroke(); g.lineWidth = 1; }
function drawStl() {
  var g = ct.getContext('2d'), n = A.lanes.length, w = ct.width - AL - 10;
  var h = ct.height - AB - 8, r = Math.max(2, Math.floor(h / Math.max(1, n)));
  g.clearRect(0, 0, ct.width, ct.height);
  var b = bin();
  for (var l = 0; l < n; l++) {
    var s = A.lanes[l].s;
    for (var i = 0; i <= b;) {   /* one rectangle per run of equal states */
      var c = s.charCodeAt(i) - 48, j = i + 1;
      while (j <= b && s.charCodeAt(j) - 48 === c) j++;
      if (c >= 0 && c < 3) { g.fillStyle = C[c]; g.fillRect(AL + i * w / anb, 8 + l * r, Math.ceil((j - i) * w / anb), r - 1); }
      i = j;
    }
  }
  g.strokeStyle = 'rgba(27,79,156,0.8)'; g.beginPath();
  T.msgs.forEach(function (m) {
    if (m[3] > t) return;
    g.moveTo(AL + m[2] / adur * w, 8 + (m[0] + 0.5) * r); g.lineTo(AL + m[3] / adur * w, 8 + (m[1] + 0.5) * r);
  });
  g.stroke();
  g.fillStyle = '#222'; g.font = '10px sans-serif'; g.textBaseline = 'middle'; g.textAlign = 'right';
  var every = Math.ceil(10 / r);
  for (var k = 0; k < n; k += every) g.fillText('r' + A.lanes[k].p + '.' + A.lanes[k].t, AL - 4, 8 + (k + 0.5) * r);
  g.textAlign = 'left';
  timeAxis(g, AL, 8 + n * r, w, 0, adur, false);
  cursor(g, AL + (b + 1) * w / anb, 8, n * r);
}
function drawCm() {
  var g = cm.getContext('2d'), R = A.ranks.length, M0 = 56, side = cm.height - M0 - 30;
  g.clearRect(0, 0, cm.width, cm.height);
  if (!R) return;
  var c = side / R, M = new Float64Array(R * R), mx = 0;
  T.msgs.forEach(function (m) {
    if (m[3] > t) return;
    var i = A.lanes[m[0]].r * R + A.lanes[m[1]].r; M[i] += m[4]; if (M[i] > mx) mx = M[i];
  });
  g.fillStyle = '#f4f4f4'; g.fillRect(M0, M0 - 20, side, side);
  for (var i = 0; i < R * R; i++) if (M[i] > 0 || (mx === 0 && false)) {
    var q = mx > 1 ? Math.log(1 + M[i]) / Math.log(1 + mx) : 1;
    g.fillStyle = 'rgb(255,' + Math.round(230 - 200 * q) + ',' + Math.round(200 - 180 * q) + ')';
    g.fillRect(M0 + (i % R) * c, M0 - 20 + Math.floor(i / R) * c, Math.max(1, c), Math.max(1, c));
  }
  g.strokeStyle = '#888'; g.strokeRect(M0 + 0.5, M0 - 19.5, side, side);
  g.fillStyle = '#222'; g.font = '10px sans-serif';
  var every = Math.ceil(12 / c);
  g.textAlign = 'right'; g.textBaseline = 'middle';
  for (var k = 0; k < R; k += every) g.fillText(A.ranks[k], M0 - 3, M0 - 20 + (k + 0.5) * c);
  g.textAlign = 'center'; g.textBaseline = 'bottom';
  for (var k2 = 0; k2 < R; k2 += every) g.fillText(A.ranks[k2], M0 + (k2 + 0.5) * c, M0 - 22);
  g.fillText('receiver rank', M0 + side / 2, 12);
  g.save(); g.translate(10, M0 - 20 + side / 2); g.rotate(-Math.PI / 2); g.fillText('sender rank', 0, 8); g.restore();
  /* colour scale */
  var sx = M0 + side + 14, sh = side;
  for (var j = 0; j < sh; j++) { var q2 = 1 - j / sh; g.fillStyle = 'rgb(255,' + Math.round(230 - 200 * q2) + ',' + Math.round(200 - 180 * q2) + ')'; g.fillRect(sx, M0 - 20 + j, 12, 1); }
  g.textAlign = 'left'; g.textBaseline = 'top'; g.fillStyle = '#222';
  g.fillText(mx ? Math.round(mx) + ' B' : 'no bytes yet', sx + 15, M0 - 20);
  g.textBaseline = 'bottom'; g.fillText('0 B', sx + 15, M0 - 20 + sh);
  g.fillText('log scale', sx, M0 - 20 + sh + 14);
}
function hand() {
  var h = document.getElementById('hand'); if (!h) return;
  var a = 2 * Math.PI * t / adur;
  h.setAttribute('x2', (120 + 80 * Math.sin(a)).toFixed(1)); h.setAttribute('y2', (130 - 80 * Math.cos(a)).toFixed(1));
}
function draw() { drawUtil(); drawStl(); drawCm(); hand(); lab.textContent = fmtDur(t); body.setAttribute('data-cursor', t); }
function frame() {
  if (!playing) { last = null; return; }
  var ts = performance.now();
  if (last !== null) t += (ts - last) / 1000 * adur / 10 * speed;
  last = ts; if (t >= adur) { t = adur; playing = false; }
  draw(); if (playing) setTimeout(frame, 40);
}
function on(id, f) { document.getElementById(id).addEventListener('click', f); }
on('play', function () { if (!playing) { playing = true; if (t >= adur) t = 0; last = null; setTimeout(frame, 0); } });
on('pause', function () { playing = false; });
on('step', function () { playing = false; if (t >= adur) t = 0; t = Math.min(adur, t + adur / anb * 4); draw(); });
on('replay', function () { t = 0; playing = true; last = null; setTimeout(frame, 0); });
document.getElementById('speed').addEventListener('input', function (e) { speed = parseFloat(e.target.value) || 1; });

/* ---------- start ----------
   The timeline first; the window profile, the animator and the tables once
   the browser has painted it (after the next frame) and the document is
   loaded, so the first paint does not wait for them. <body data-tl-ready> says when all is drawn. */
var errors = [], restDone = false;
function fail(e) { errors.push(String(e)); body.setAttribute('data-error', String(e)); throw e; }
function rest() {
  if (restDone) return;
  restDone = true;
  try {
    if (T.window) windowProfile(T.window[0], T.window[1], T.wprof); else windowProfile(0, dur);
    drawHeat();
    draw(); initSortable();
    body.setAttribute('data-tl-painted', paintedRows());
    if (window.performance && performance.mark) performance.mark('pal-report-ready');
    body.setAttribute('data-tl-ready', 'yes');
    if (location.hash === '#selftest') selftest();
  } catch (e) { fail(e); }
}
try {
  layout(); legend();
  if (T.window) { v0 = Math.max(0, T.window[0]); v1 = Math.min(dur, Math.max(T.window[1], v0 + 1e-9)); }
  drawTimeline();
  body.setAttribute('data-tl-rows', nrow);
  if (window.performance && performance.mark) performance.mark('pal-timeline-drawn');
} catch (e) { fail(e); }
/* the pictures and the profile tables follow this script in the page:
   wait for the document, and for a frame (or 200 ms on a hidden page) */
function whenLoaded(f) {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', f); else f();
}
var framed = false;
if (window.requestAnimationFrame) requestAnimationFrame(function () {
  setTimeout(function () {   /* after the frame that showed the timeline */
    if (window.performance && performance.mark) performance.mark('pal-timeline-painted');
    framed = true; whenLoaded(rest);
  }, 0);
});
setTimeout(function () { if (!framed) whenLoaded(rest); }, 200);
window.palReport = {view: function () { return [v0, v1]; }, setView: setView,
  selectWindow: function (a, b) { setView(a, b); windowProfile(a, b); }, paintedRows: paintedRows,
  rowY: function (r) { return disp[dispOf[r]].y + rh / 2; }, timeX: t2x, slices: slices, LM: LM, W: W,
  sliceY: function (s) { var d = disp[dispOf[s[0]]]; return d.y + (d.group ? 0 : subOf(s, d)) * rh + rh / 2; },
  toggleStack: toggleStack, setStacks: setStacks, picked: function () { return picked; },
  heatCells: function () { return H.v.map(function (c) { return {rank: T.rows[c[0]].p, thread: T.rows[c[0]].t, region: T.regions[H.cols[c[1]]].n, calls: c[2], total: c[3].toFixed(9), excl: c[4].toFixed(9), text: heatText(c)}; }); },
  heatXY: function (lane, col) { return [HL + (col + 0.5) * hcw, HT + (lane + 0.5) * hrh]; }, heatCols: H.cols.length, search: searchFor,
  messages: function (on) { msgsOn = on; document.getElementById('tl-msgs').checked = on; drawTimeline(); },
  display: function () { return disp.map(function (d) { return d.group ? {group: d.group.name, kind: d.group.kind, open: d.group.open, depth: d.depth} : {lane: d.lane, depth: d.depth}; }); },
  dispY: function (r) { return disp[r].y + rh / 2; }, colls: colls, collBox: collBox, toggle: function (r) { toggle(disp[r].group); }};
/* ---------- wait states (views/waits.c, H20's block): a row of the table
   shows its longest instance on the timeline, with as much time on each side ---------- */
whenLoaded(function () {
  var wt = document.getElementById('waits-table');
  if (!wt) return;
  wt.addEventListener('click', function (e) {
    var tr = e.target.closest ? e.target.closest('tr[data-at]') : null;
    if (!tr) return;
    var at = +tr.getAttribute('data-at'), len = +tr.getAttribute('data-len');
    var pad = Math.max(len, dur * 1e-6);
    window.palReport.selectWindow(Math.max(0, at - pad), Math.min(dur, at + len + pad));
    Array.prototype.forEach.call(wt.querySelectorAll('tr.picked'), function (r) { r.classList.remove('picked'); });
    tr.classList.add('picked');
    body.setAttribute('data-waits-row', tr.rowIndex);
    cv.scrollIntoView({block: 'nearest'});
  });
});
/* self-test hook (tests/views/html-browser.sh): #selftest plays the animator
   for a moment and records whether the cursor moved and the views changed */
function selftest() {
  var u0 = cu.toDataURL(), c0 = ct.toDataURL(), t0 = t;
  document.getElementById('play').click();
  setTimeout(function () {
    document.getElementById('pause').click();
    body.setAttribute('data-moved', t !== t0 ? 'yes' : 'no');
    body.setAttribute('data-changed', (cu.toDataURL() !== u0 && ct.toDataURL() !== c0) ? 'yes' : 'no');
  }, 1500);
}
})();
