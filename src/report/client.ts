/**
 * The report page's own script, inlined into report.html (plain ES2017, no template
 * literals: it lives in a String.raw). It reads the ReportData embedded in the page
 * (#report-data) and draws:
 *
 * - the timeline (SVG, hand-drawn): a lane per client process, each operation a bar from
 *   invocation to completion, lock holds under them, fault windows shaded across all
 *   lanes, the selected violation outlined in red (#violation, with data-violation,
 *   data-kind and data-ops for tests). Only what is in view is drawn, and operations
 *   narrower than a few pixels merge into one grey bar, so a 100k-op history stays light;
 * - the latency plot (uPlot, inlined before this script), sharing the timeline's time range.
 *
 * When done it sets data-ready="true" on <body>.
 */
export const CLIENT_JS = String.raw`
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('report-data').textContent);
  var SVGNS = 'http://www.w3.org/2000/svg';
  var OUTCOME = ['ok', 'fail', 'info', 'pending'];
  var RED = '#dc2626';
  var LABEL_W = 92, RIGHT = 14, AXIS_H = 24, FAULT_H = 18, LANE_H = 30, BAR_Y = 5, BAR_H = 14, HOLD_Y = 22, HOLD_H = 5;
  var svg = document.getElementById('timeline');
  var tip = document.getElementById('tip');
  var details = document.getElementById('op-details');
  var faultRows = D.faults.reduce(function (n, f) { return Math.max(n, f.row + 1); }, 1);
  var lanesTop = AXIS_H + faultRows * FAULT_H;
  var height = lanesTop + D.lanes.length * LANE_H + 6;
  svg.setAttribute('height', String(height));

  var laneBars = D.lanes.map(function () { return []; });
  var laneHolds = D.lanes.map(function () { return []; });
  var byIndex = {};
  D.bars.forEach(function (b, i) {
    laneBars[b[0]].push(i);
    byIndex[b[5]] = i;
    if (b[6] >= 0) byIndex[b[6]] = i;
  });
  D.holds.forEach(function (h, i) { laneHolds[h[0]].push(i); });
  function barStart(i) { return D.bars[i][3]; }
  function barEnd(i) { var e = D.bars[i][4]; return e < 0 ? D.endMs : e; }
  function holdStart(i) { return D.holds[i][1]; }
  function holdEnd(i) { var e = D.holds[i][2]; return e < 0 ? D.endMs : e; }

  var full = [0, Math.max(D.endMs, 1)];
  var view = [full[0], full[1]];
  var current = D.focus;
  var plot = null;
  var selected = -1;

  function fmtS(ms) {
    var s = ms / 1000;
    return (Math.abs(s) >= 100 ? s.toFixed(2) : s.toFixed(3)) + ' s';
  }
  function fmtMs(v) {
    if (v == null) return '–';
    return (v < 1 ? v.toFixed(3) : v < 100 ? v.toFixed(1) : String(Math.round(v))) + ' ms';
  }
  function el(tag, attrs, parent, text) {
    var n = document.createElementNS(SVGNS, tag);
    for (var k in attrs) if (attrs[k] !== undefined && attrs[k] !== null) n.setAttribute(k, String(attrs[k]));
    if (text !== undefined) n.textContent = text;
    if (parent) parent.appendChild(n);
    return n;
  }
  function laneTop(lane) { return lanesTop + lane * LANE_H; }

  /** First position in list (sorted, disjoint intervals) whose end is >= t. */
  function firstEnding(list, endOf, t) {
    var lo = 0, hi = list.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (endOf(list[mid]) < t) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  function niceStep(raw) {
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }

  function render() {
    var W = Math.max(svg.clientWidth || 0, 480);
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + height);
    var plotW = W - LABEL_W - RIGHT;
    var t0 = view[0], t1 = view[1];
    var k = plotW / (t1 - t0);
    function X(t) { return LABEL_W + (t - t0) * k; }
    function clampX(x) { return Math.max(LABEL_W - 3, Math.min(LABEL_W + plotW + 3, x)); }
    while (svg.lastChild) svg.removeChild(svg.lastChild);

    var defs = el('defs', {}, svg);
    D.colors.forEach(function (c, i) {
      var p = el('pattern', { id: 'hatch-' + i, width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, defs);
      el('rect', { width: 6, height: 6, fill: '#ffffff' }, p);
      el('rect', { width: 3, height: 6, fill: c }, p);
    });
    var fp = el('pattern', { id: 'fault-hatch', width: 8, height: 8, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(-45)' }, defs);
    el('rect', { width: 2, height: 8, fill: 'rgba(71,85,105,0.22)' }, fp);
    var clip = el('clipPath', { id: 'plot-clip' }, defs);
    el('rect', { x: LABEL_W, y: 0, width: plotW, height: height }, clip);
    var marker = el('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, defs);
    el('path', { d: 'M0,0 L10,5 L0,10 z', fill: RED }, marker);

    // Lanes: background and label.
    var lanesG = el('g', { 'class': 'lanes' }, svg);
    D.lanes.forEach(function (lane, i) {
      el('rect', { x: 0, y: laneTop(i), width: W, height: LANE_H, fill: i % 2 ? '#f8fafc' : '#ffffff' }, lanesG);
      el('text', { x: LABEL_W - 8, y: laneTop(i) + 16, 'text-anchor': 'end', 'class': 'lane-label' }, lanesG, lane.label);
    });

    var plotG = el('g', { 'clip-path': 'url(#plot-clip)' }, svg);

    // Axis and grid.
    var step = niceStep((t1 - t0) / Math.max(2, plotW / 110));
    var decimals = Math.max(0, Math.min(6, Math.ceil(-Math.log10(step / 1000))));
    var axisG = el('g', { 'class': 'axis' }, svg);
    el('line', { x1: LABEL_W, x2: LABEL_W + plotW, y1: AXIS_H - 0.5, y2: AXIS_H - 0.5, stroke: '#cbd5e1' }, axisG);
    el('text', { x: LABEL_W - 24, y: AXIS_H - 9, 'text-anchor': 'end', 'class': 'axis-unit' }, axisG, 'seconds');
    for (var t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
      var x = X(t);
      el('line', { x1: x, x2: x, y1: AXIS_H - 5, y2: height, stroke: '#e2e8f0' }, plotG);
      el('text', { x: x, y: AXIS_H - 9, 'text-anchor': 'middle', 'class': 'tick' }, axisG, (t / 1000).toFixed(decimals));
    }

    // Fault windows: shaded across every lane, the targeted lane hatched.
    var faultG = el('g', { 'class': 'faults' }, plotG);
    D.faults.forEach(function (f, i) {
      var end = f.endMs < 0 ? D.endMs : f.endMs;
      if (end < t0 || f.startMs > t1) return;
      var x0 = clampX(X(f.startMs)), x1 = clampX(X(end));
      var w = Math.max(1, x1 - x0);
      el('rect', { x: x0, y: AXIS_H, width: w, height: height - AXIS_H, fill: 'rgba(100,116,139,0.13)', 'class': 'fault', 'data-fault': i }, faultG);
      var fy = AXIS_H + f.row * FAULT_H;
      el('rect', { x: x0, y: fy + 2, width: w, height: FAULT_H - 4, rx: 2, fill: '#64748b', 'data-fault': i }, faultG);
      if (w > 40) {
        var chars = Math.floor((w - 8) / 6.2);
        var label = f.label.length > chars ? f.label.slice(0, Math.max(1, chars - 1)) + '…' : f.label;
        el('text', { x: x0 + 4, y: fy + 13, 'class': 'fault-label', 'data-fault': i }, faultG, label);
      }
      if (f.lane >= 0) el('rect', { x: x0, y: laneTop(f.lane), width: w, height: LANE_H, fill: 'url(#fault-hatch)', 'data-fault': i }, faultG);
    });

    // Level of detail: items narrower than 3 px that touch merge into one.
    function lod(list, s, e, one, many) {
      var run = null;
      function flush() {
        if (!run) return;
        if (run.ids.length === 1) one(run.ids[0], run.x0, run.x1); else many(run.ids, run.x0, run.x1);
        run = null;
      }
      for (var j = firstEnding(list, e, t0); j < list.length; j++) {
        var id = list[j];
        var st = s(id);
        if (st > t1) break;
        var x0 = clampX(X(st)), x1 = clampX(X(e(id)));
        if (x1 - x0 < 3) {
          if (run && x0 - run.x1 < 2) { run.x1 = Math.max(run.x1, x1); run.ids.push(id); continue; }
          flush();
          run = { x0: x0, x1: x1, ids: [id] };
          continue;
        }
        flush();
        one(id, x0, x1);
      }
      flush();
    }

    var holdG = el('g', { 'class': 'holds' }, plotG);
    var barG = el('g', { 'class': 'bars' }, plotG);
    D.lanes.forEach(function (lane, li) {
      var top = laneTop(li);
      lod(laneHolds[li], holdStart, holdEnd, function (id, x0, x1) {
        el('rect', { x: x0, y: top + HOLD_Y, width: Math.max(1, x1 - x0), height: HOLD_H, rx: 1, 'class': 'hold', 'data-h': id }, holdG);
      }, function (ids, x0, x1) {
        el('rect', { x: x0, y: top + HOLD_Y, width: Math.max(1, x1 - x0), height: HOLD_H, 'class': 'hold', 'data-hn': ids.length, 'data-h': ids[0] }, holdG);
      });
      lod(laneBars[li], barStart, barEnd, function (id, x0, x1) {
        var b = D.bars[id];
        var c = D.colors[b[1]];
        var o = b[2];
        var w = Math.max(1, x1 - x0);
        var attrs = { x: x0, y: top + BAR_Y, width: w, height: BAR_H, rx: w > 4 ? 2 : 0, 'class': 'op o-' + OUTCOME[o], 'data-i': id, 'data-op': b[5] };
        if (o === 0) attrs.fill = c;
        else if (o === 1) { attrs.fill = c; attrs['fill-opacity'] = 0.22; attrs.stroke = c; attrs['stroke-dasharray'] = '3 2'; }
        else { attrs.fill = 'url(#hatch-' + b[1] + ')'; attrs.stroke = c; if (o === 3) { attrs['stroke-dasharray'] = '4 3'; attrs['fill-opacity'] = 0.6; } }
        if (id === selected) { attrs.stroke = '#0f172a'; attrs['stroke-width'] = 2; }
        el('rect', attrs, barG);
        if (w > 46) {
          var text = D.fs[b[1]] + (OUTCOME[o] === 'ok' ? '' : ' ' + OUTCOME[o]) + (b[9] ? ' ' + b[9] : '');
          var n = Math.floor((w - 6) / 6.1);
          if (text.length > n) text = text.slice(0, Math.max(1, n - 1)) + '…';
          el('text', { x: x0 + 3, y: top + BAR_Y + 10.5, 'class': o === 0 ? 'bar-label' : 'bar-label dark', 'data-i': id }, barG, text);
        }
      }, function (ids, x0, x1) {
        el('rect', { x: x0, y: top + BAR_Y, width: Math.max(1, x1 - x0), height: BAR_H, 'class': 'cluster', 'data-n': ids.length, 'data-first': ids[0], 'data-last': ids[ids.length - 1] }, barG);
      });
    });

    drawViolation(X, clampX, plotG);
    updateRange();
  }

  function drawViolation(X, clampX, parent) {
    if (current < 0) return;
    var v = D.violations[current];
    var g = el('g', { id: 'violation', 'class': 'violation', 'data-violation': v.checker, 'data-kind': v.kind, 'data-counted': v.counted, 'data-ops': v.marks.map(function (m) { return m.index; }).join(',') }, parent);
    if (v.overlap && v.holds) {
      var o0 = clampX(X(v.overlap[0])), o1 = clampX(X(v.overlap[1]));
      v.holds.forEach(function (h) {
        if (h[0] < 0) return;
        var top = laneTop(h[0]);
        el('rect', { x: o0, y: top, width: Math.max(2, o1 - o0), height: LANE_H, fill: 'rgba(220,38,38,0.14)', 'class': 'overlap' }, g);
        var x0 = clampX(X(h[1])), x1 = clampX(X(h[2] < 0 ? D.endMs : h[2]));
        el('rect', { x: x0, y: top + HOLD_Y - 1, width: Math.max(2, x1 - x0), height: HOLD_H + 2, fill: '#fca5a5', stroke: RED, 'stroke-width': 1.5, 'class': 'violating-hold' }, g);
      });
      var lanesIn = v.holds.map(function (h) { return h[0]; }).filter(function (l) { return l >= 0; });
      if (lanesIn.length === 2) {
        var ya = laneTop(Math.min(lanesIn[0], lanesIn[1])), yb = laneTop(Math.max(lanesIn[0], lanesIn[1])) + LANE_H;
        el('rect', { x: o0, y: ya, width: Math.max(2, o1 - o0), height: yb - ya, fill: 'none', stroke: RED, 'stroke-width': 1.5, 'stroke-dasharray': '5 3', 'class': 'overlap-frame' }, g);
      }
    }
    var boxes = [];
    v.marks.forEach(function (m) {
      var id = byIndex[m.index];
      if (id === undefined) return;
      var b = D.bars[id];
      var top = laneTop(b[0]);
      var x0 = clampX(X(b[3])), x1 = clampX(X(barEnd(id)));
      el('rect', { x: x0 - 2, y: top + BAR_Y - 2, width: Math.max(4, x1 - x0 + 4), height: BAR_H + 4, rx: 3, fill: 'none', stroke: RED, 'stroke-width': 2.2, 'class': 'mark', 'data-index': m.index }, g);
      boxes.push({ x0: x0, x1: x1, y: top, m: m });
    });
    if (v.kind === 'lost' && boxes.length === 2) {
      var a = boxes[0], z = boxes[1];
      var ya2 = a.y + BAR_Y + BAR_H / 2, yz = z.y + BAR_Y + BAR_H / 2;
      var mid = (a.x1 + z.x0) / 2;
      var bend = Math.min(ya2, yz) - 14;
      el('path', { d: 'M' + (a.x1 + 2) + ',' + ya2 + ' C' + mid + ',' + bend + ' ' + mid + ',' + bend + ' ' + (z.x0 - 3) + ',' + yz, fill: 'none', stroke: RED, 'stroke-width': 1.6, 'stroke-dasharray': '5 3', 'marker-end': 'url(#arrow)', 'class': 'lost-arrow' }, g);
    }
    // Numbered badges where each named op takes effect (its completion, or its invocation
    // for a release); the numbers are explained in the list under the violation's words.
    boxes.forEach(function (bx, i) {
      var b = D.bars[byIndex[bx.m.index]];
      var atEnd = b[6] === bx.m.index;
      var cx = Math.max(LABEL_W + 8, Math.min(atEnd ? bx.x1 : bx.x0, LABEL_W + (svg.viewBox.baseVal.width - LABEL_W - RIGHT) - 8));
      var cy = bx.y + BAR_Y + BAR_H / 2;
      var badge = el('g', { 'class': 'badge-mark', 'data-mark': i }, g);
      el('circle', { cx: cx, cy: cy, r: 8, fill: RED, stroke: '#fff', 'stroke-width': 1.5 }, badge);
      el('text', { x: cx, y: cy + 3.8, 'text-anchor': 'middle', 'class': 'badge-num' }, badge, String(i + 1));
    });
  }

  /** Shows [a, b] in the timeline; with withPlot, in the latency plot too. */
  function setView(a, b, withPlot) {
    var span = Math.max(b - a, 0.5);
    var max = full[1] - full[0];
    if (span > max) span = max;
    var lo = Math.max(full[0], Math.min(a, full[1] - span));
    view = [lo, lo + span];
    render();
    if (withPlot && plot) plot.setScale('x', { min: view[0], max: view[1] });
  }
  function violationView(i) {
    var v = D.violations[i].view;
    return [v[0], v[1]];
  }
  function updateRange() {
    var r = document.getElementById('view-range');
    if (r) r.textContent = fmtS(view[0]) + ' – ' + fmtS(view[1]) + ' of ' + fmtS(full[1]);
  }

  // Latency plot (uPlot), sharing the timeline's range; fault windows shaded.
  function latencyPlot() {
    var L = D.latency;
    var host = document.getElementById('latency');
    if (!L.x.length || typeof uPlot === 'undefined') {
      host.textContent = 'No completed operations to plot.';
      return null;
    }
    var series = [{ label: 'time', value: function (u, v) { return v == null ? '–' : fmtS(v); } }];
    L.kinds.forEach(function (kind) {
      var c = D.colors[D.fs.indexOf(kind)] || '#475569';
      series.push({
        label: kind,
        stroke: c,
        width: 1,
        paths: function () { return null; },
        points: { show: true, size: 4, width: 1, stroke: c, fill: c },
        value: function (u, v) { return fmtMs(v); }
      });
    });
    function shade(u) {
      var ctx = u.ctx;
      ctx.save();
      ctx.fillStyle = 'rgba(100,116,139,0.16)';
      D.faults.forEach(function (f) {
        var end = f.endMs < 0 ? D.endMs : f.endMs;
        var x0 = Math.max(u.bbox.left, u.valToPos(f.startMs, 'x', true));
        var x1 = Math.min(u.bbox.left + u.bbox.width, u.valToPos(end, 'x', true));
        if (x1 > x0) ctx.fillRect(x0, u.bbox.top, x1 - x0, u.bbox.height);
      });
      ctx.restore();
    }
    function markViolation(u) {
      if (current < 0) return;
      var ctx = u.ctx;
      ctx.save();
      ctx.strokeStyle = RED;
      ctx.lineWidth = 1.5 * (window.devicePixelRatio || 1);
      ctx.setLineDash([6, 4]);
      D.violations[current].marks.forEach(function (m) {
        var id = byIndex[m.index];
        if (id === undefined) return;
        var b = D.bars[id];
        var x = u.valToPos(b[6] === m.index ? b[4] : b[3], 'x', true);
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
        ctx.beginPath();
        ctx.moveTo(x, u.bbox.top);
        ctx.lineTo(x, u.bbox.top + u.bbox.height);
        ctx.stroke();
      });
      ctx.restore();
    }
    var decimalsFor = function (vals) {
      var step = vals.length > 1 ? Math.abs(vals[1] - vals[0]) : 1000;
      return Math.max(0, Math.min(6, Math.ceil(-Math.log10(step / 1000))));
    };
    var opts = {
      width: Math.max(host.clientWidth, 480),
      height: 300,
      scales: { x: { time: false }, y: { distr: 3, log: 10 } },
      axes: [
        { label: 'seconds since the test began', values: function (u, vals) { var d = decimalsFor(vals); return vals.map(function (v) { return (v / 1000).toFixed(d); }); } },
        { label: 'latency, ms (log scale)', size: 60, values: function (u, vals) { return vals.map(function (v) { return v == null ? '' : v >= 1 ? String(Math.round(v)) : String(+v.toPrecision(2)); }); } }
      ],
      series: series,
      cursor: { drag: { x: true, y: false, setScale: false }, points: { size: 7 } },
      legend: { live: true },
      hooks: {
        drawClear: [shade],
        draw: [markViolation],
        setSelect: [function (u) {
          if (u.select.width > 4) {
            var a = u.posToVal(u.select.left, 'x'), b = u.posToVal(u.select.left + u.select.width, 'x');
            u.setSelect({ left: 0, width: 0, top: 0, height: 0 }, false);
            setView(a, b, true);
          }
        }]
      }
    };
    var data = [L.x].concat(L.y);
    var p = new uPlot(opts, data, host);
    host.addEventListener('dblclick', function () { setView(full[0], full[1], true); });
    return p;
  }

  // Tooltip and details.
  function describeBar(id) {
    var b = D.bars[id];
    var o = OUTCOME[b[2]];
    var lines = [
      D.fs[b[1]] + ' by process ' + D.lanes[b[0]].process + ': ' + o + (b[8] ? ' (' + b[8] + ')' : ''),
      'invoked ' + fmtS(b[3]) + ' (op #' + b[5] + ')' + (b[4] >= 0 ? ', completed ' + fmtS(b[4]) + ' (op #' + b[6] + '), ' + fmtMs(b[4] - b[3]) : ', never completed')
    ];
    if (b[7]) lines.push('value: ' + b[7]);
    return lines;
  }
  function describeHold(id) {
    var h = D.holds[id];
    return [
      'process ' + D.lanes[h[0]].process + ' believes it holds the lock',
      'from ' + fmtS(h[1]) + ' (acquire ok, op #' + h[3] + ') to ' + (h[2] < 0 ? 'the end' : fmtS(h[2])) + (h[4] >= 0 ? ' (release invoked, op #' + h[4] + ')' : ''),
      h[5] >= 0 ? 'fencing token ' + h[5] : 'no fencing token'
    ];
  }
  function tipLines(target) {
    var n = target.closest ? target.closest('[data-mark],[data-i],[data-n],[data-h],[data-fault]') : null;
    if (!n) return null;
    if (n.hasAttribute('data-mark')) {
      var m = D.violations[current].marks[+n.getAttribute('data-mark')];
      return [(+n.getAttribute('data-mark') + 1) + ': ' + m.label + ' (op #' + m.index + ')'].concat(describeBar(byIndex[m.index]));
    }
    if (n.hasAttribute('data-n')) return [n.getAttribute('data-n') + ' operations, too close to tell apart here', 'drag across them to zoom in'];
    if (n.hasAttribute('data-i')) return describeBar(+n.getAttribute('data-i'));
    if (n.hasAttribute('data-hn')) return [n.getAttribute('data-hn') + ' short holds; zoom in to see them'];
    if (n.hasAttribute('data-h')) return describeHold(+n.getAttribute('data-h'));
    var f = D.faults[+n.getAttribute('data-fault')];
    return ['fault: ' + f.label, fmtS(f.startMs) + ' – ' + (f.endMs < 0 ? 'not healed in this history' : fmtS(f.endMs))];
  }
  svg.addEventListener('mousemove', function (ev) {
    if (drag) return;
    var lines = tipLines(ev.target);
    if (!lines) { tip.hidden = true; return; }
    tip.textContent = lines.join('\n');
    tip.hidden = false;
    var x = Math.max(4, Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 8));
    var y = ev.clientY + 16;
    if (y + tip.offsetHeight > window.innerHeight - 4) y = ev.clientY - tip.offsetHeight - 10;
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  });
  svg.addEventListener('mouseleave', function () { tip.hidden = true; });
  svg.addEventListener('click', function (ev) {
    var n = ev.target.closest ? ev.target.closest('[data-i],[data-h]') : null;
    if (!n || moved) return;
    if (n.hasAttribute('data-i')) {
      selected = +n.getAttribute('data-i');
      details.textContent = describeBar(selected).join(' · ') + ' · history.jsonl line ' + (D.bars[selected][5] + 1);
      render();
    } else {
      details.textContent = describeHold(+n.getAttribute('data-h')).join(' · ');
    }
  });

  // Drag across the timeline to zoom into a span; Ctrl/Alt + wheel zooms, Shift + wheel pans.
  var drag = null, moved = false, band = null;
  function plotX(ev) {
    var r = svg.getBoundingClientRect();
    return (ev.clientX - r.left) * (svg.viewBox.baseVal.width / r.width);
  }
  function timeAt(x) {
    var W = svg.viewBox.baseVal.width, plotW = W - LABEL_W - RIGHT;
    return view[0] + (Math.max(LABEL_W, Math.min(LABEL_W + plotW, x)) - LABEL_W) / plotW * (view[1] - view[0]);
  }
  svg.addEventListener('mousedown', function (ev) {
    if (ev.button !== 0) return;
    drag = { x: plotX(ev) };
    moved = false;
  });
  window.addEventListener('mousemove', function (ev) {
    if (!drag) return;
    var x = plotX(ev);
    if (Math.abs(x - drag.x) > 4) moved = true;
    if (!moved) return;
    if (!band) band = el('rect', { y: AXIS_H, height: height - AXIS_H, fill: 'rgba(37,99,235,0.12)', stroke: '#2563eb', 'class': 'brush' }, svg);
    band.setAttribute('x', String(Math.min(x, drag.x)));
    band.setAttribute('width', String(Math.abs(x - drag.x)));
    tip.hidden = true;
  });
  window.addEventListener('mouseup', function (ev) {
    if (!drag) return;
    var x = plotX(ev), start = drag.x;
    drag = null;
    if (band) { band.remove(); band = null; }
    if (moved) {
      var a = timeAt(Math.min(x, start)), b = timeAt(Math.max(x, start));
      if (b - a > 0) setView(a, b);
      setTimeout(function () { moved = false; }, 0);
    }
  });
  svg.addEventListener('dblclick', function () { setView(full[0], full[1]); });
  svg.addEventListener('wheel', function (ev) {
    if (!(ev.ctrlKey || ev.altKey || ev.metaKey || ev.shiftKey)) return;
    ev.preventDefault();
    var span = view[1] - view[0];
    var delta = ev.deltaY || ev.deltaX;
    if (ev.shiftKey) {
      setView(view[0] + Math.sign(delta) * span * 0.15, view[1] + Math.sign(delta) * span * 0.15);
      return;
    }
    var at = timeAt(plotX(ev));
    var f = delta > 0 ? 1.25 : 0.8;
    setView(at - (at - view[0]) * f, at + (view[1] - at) * f);
  }, { passive: false });

  function zoom(f) {
    var mid = (view[0] + view[1]) / 2, half = (view[1] - view[0]) * f / 2;
    setView(mid - half, mid + half);
  }
  function pan(f) {
    var d = (view[1] - view[0]) * f;
    setView(view[0] + d, view[1] + d);
  }
  function on(id, fn) { var b = document.getElementById(id); if (b) b.addEventListener('click', fn); }
  on('btn-all', function () { setView(full[0], full[1], true); });
  on('btn-in', function () { zoom(0.5); });
  on('btn-out', function () { zoom(2); });
  on('btn-left', function () { pan(-0.4); });
  on('btn-right', function () { pan(0.4); });
  on('btn-violation', function () { if (current >= 0) { var v = violationView(current); setView(v[0], v[1]); } });

  // The list of violations: each one shows itself in the timeline.
  function select(i, scroll) {
    current = i;
    var v = D.violations[i];
    var words = document.getElementById('focus-words');
    if (words) words.textContent = v.words;
    var who = document.getElementById('focus-checker');
    if (who) who.textContent = v.checker + (v.counted ? '' : ' — shown, not counted toward the verdict');
    listMarks(v);
    var items = document.querySelectorAll('[data-violation-index]');
    for (var j = 0; j < items.length; j++) items[j].classList.toggle('current', +items[j].getAttribute('data-violation-index') === i);
    var vv = violationView(i);
    setView(vv[0], vv[1]);
    if (plot) plot.redraw(false, false);
    if (scroll) {
      var g = document.getElementById('violation');
      if (g) g.scrollIntoView({ block: 'center', behavior: 'smooth' });
    }
  }
  function listMarks(v) {
    var ol = document.getElementById('focus-marks');
    if (!ol) return;
    while (ol.lastChild) ol.removeChild(ol.lastChild);
    v.marks.forEach(function (m) {
      var li = document.createElement('li');
      var id = byIndex[m.index];
      var at = id === undefined ? '' : ' at ' + fmtS(D.bars[id][6] === m.index ? D.bars[id][4] : D.bars[id][3]);
      li.textContent = m.label + ' (op #' + m.index + ')' + at + (id === undefined ? ' (not drawn)' : '');
      ol.appendChild(li);
    });
  }
  var list = document.querySelectorAll('[data-violation-index]');
  for (var j = 0; j < list.length; j++) {
    list[j].addEventListener('click', function (ev) {
      var li = ev.currentTarget;
      select(+li.getAttribute('data-violation-index'), true);
    });
  }

  var resizeTimer = null;
  window.addEventListener('resize', function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () {
      render();
      if (plot) plot.setSize({ width: Math.max(document.getElementById('latency').clientWidth, 480), height: 300 });
    }, 100);
  });

  // Start: the violation in view, scrolled to; else the whole run.
  if (current >= 0) {
    var v0 = violationView(current);
    view = [v0[0], v0[1]];
  }
  render();
  plot = latencyPlot();
  if (plot) plot.setScale('x', { min: full[0], max: full[1] });
  if (current >= 0) {
    listMarks(D.violations[current]);
    var items0 = document.querySelectorAll('[data-violation-index="' + current + '"]');
    for (var q = 0; q < items0.length; q++) items0[q].classList.add('current');
    var g0 = document.getElementById('violation');
    if (g0) g0.scrollIntoView({ block: 'center' });
  }
  document.body.setAttribute('data-ready', 'true');
})();
`;
