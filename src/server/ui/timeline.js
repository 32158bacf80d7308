// The delivery timeline: lanes of GET /_switchyard/deliveries/timeline drawn on virtual time as
// SVG, one lane per message (and source). A bin whose records the server lists is drawn record by
// record (phases told apart by colour AND pattern AND a letter, the delay between attempts on the
// line joining them, the dead-letter write or discard at the end); a crowded bin is drawn as one
// bar in the pattern of its commonest phase, its counts in its tooltip. The axis is logarithmic
// from the first record (milliseconds and days both readable) or linear with zoom; the console
// asks for bins of the visible window, so zooming in refines them down to single attempts.

const NS = 'http://www.w3.org/2000/svg';
export const PHASES = {
  initial: { color: 'var(--initial)', letter: 'I', pattern: 'solid' },
  immediate: { color: 'var(--immediate)', letter: 'M', pattern: 'diagonal' },
  'pre-backoff': { color: 'var(--pre)', letter: 'P', pattern: 'dots' },
  backoff: { color: 'var(--backoff)', letter: 'B', pattern: 'cross' },
  'post-backoff': { color: 'var(--post)', letter: 'A', pattern: 'horizontal' },
  retry: { color: 'var(--retry)', letter: 'R', pattern: 'vertical' },
  internal: { color: 'var(--internal)', letter: 'N', pattern: 'dots' },
};
const ENDINGS = { 'dead-lettered': 'DLQ', 'dlq-failed': 'DLQ failed', discarded: 'discarded', blocked: 'blocked', deduplicated: 'dedup', throttled: 'throttled' };
const UNITS = [[86400000, 'd'], [3600000, 'h'], [60000, 'min'], [1000, 's'], [1, 'ms']];
// The chart is drawn at the pixel width of its box (so 12 px text is 12 px on screen): lane labels
// in the first LEFT pixels, the axis from LEFT to MARGIN pixels short of the right edge.
const LEFT = 220, MARGIN = 30, WIDTH = 1200;
const number = (n) => n.toLocaleString('en-US');

export function duration(ms) {
  if (ms === 0) return '0';
  for (const [size, unit] of UNITS) {
    if (ms >= size) {
      const v = ms / size;
      return `${Number.isInteger(v) ? v : v.toFixed(v < 10 ? 2 : 1)} ${unit}`;
    }
  }
  return `${ms} ms`;
}

function el(name, attrs = {}, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function patternDefs() {
  const defs = el('defs');
  for (const [phase, p] of Object.entries(PHASES)) {
    const pat = el('pattern', { id: `p-${phase}`, width: 6, height: 6, patternUnits: 'userSpaceOnUse' });
    pat.append(el('rect', { width: 6, height: 6, fill: p.pattern === 'solid' ? p.color : '#fff' }));
    const s = { stroke: p.color, 'stroke-width': 2 };
    if (p.pattern === 'diagonal') pat.append(el('path', { d: 'M-1,7 L7,-1', ...s }));
    if (p.pattern === 'cross') pat.append(el('path', { d: 'M-1,7 L7,-1 M-1,-1 L7,7', ...s, 'stroke-width': 1.2 }));
    if (p.pattern === 'horizontal') pat.append(el('path', { d: 'M0,3 L6,3', ...s }));
    if (p.pattern === 'vertical') pat.append(el('path', { d: 'M3,0 L3,6', ...s }));
    if (p.pattern === 'dots') pat.append(el('circle', { cx: 3, cy: 3, r: 1.6, fill: p.color }));
    defs.append(pat);
  }
  return defs;
}

export function legend(box) {
  box.replaceChildren();
  for (const [phase, p] of Object.entries(PHASES)) {
    const item = document.createElement('span');
    const svg = el('svg', { width: 16, height: 16, 'aria-hidden': 'true' });
    svg.append(patternDefs(), el('rect', { x: 1, y: 1, width: 14, height: 14, fill: `url(#p-${phase})`, stroke: p.color }));
    item.append(svg, ` ${p.letter} = ${phase}`);
    box.append(item);
  }
  const end = document.createElement('span');
  end.textContent = '◆ DLQ = dead-lettered · ✕ = discarded · ✓ = delivered · a bar = many attempts (hover for counts) · | now';
  box.append(end);
}

/// The visible window [from, to] (epoch ms) of an axis starting at `start` and ending at `end`.
export function visibleWindow(opts, start, end) {
  if (opts.scale === 'log') return { from: start, to: Math.max(end, start + 1) };
  const from = start + opts.offset;
  return { from, to: from + opts.span };
}

/// An axis from `start` (the first record) over the window onto [LEFT, right] pixels.
function axis(opts, start, w, right) {
  if (opts.scale === 'log') {
    const span = Math.max(w.to - start, 1);
    const k = (right - LEFT) / Math.log10(1 + span);
    return { x: (t) => LEFT + k * Math.log10(1 + Math.max(0, t - start)), ticks: logTicks(span).map((d) => [start + d, `+${duration(d)}`]) };
  }
  const step = niceStep((w.to - w.from) / 8);
  const ticks = [];
  for (let d = Math.ceil((w.from - start) / step) * step; start + d <= w.to; d += step) ticks.push([start + d, `+${duration(d)}`]);
  return { x: (t) => LEFT + ((t - w.from) / (w.to - w.from)) * (right - LEFT), ticks };
}

function logTicks(span) {
  const marks = [0, 1, 10, 100, 1000, 10000, 60000, 600000, 3600000, 21600000, 86400000, 604800000, 1209600000, 2592000000];
  return marks.filter((d) => d <= span);
}

function niceStep(raw) {
  const steps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000, 600000, 900000, 1800000, 3600000, 7200000, 21600000, 43200000, 86400000, 172800000, 259200000, 604800000];
  return steps.find((s) => s >= raw) ?? 604800000;
}

/// What one lane says of itself: its totals, and (on a line of its own) what fell out of the log.
function laneLabel(lane) {
  const span = Date.parse(lane.last.at) - Date.parse(lane.first.at);
  const label = `${number(lane.attempts)} attempt${lane.attempts === 1 ? '' : 's'} over ${duration(span)}`;
  return lane.droppedAttempts ? [`${label};`, `${number(lane.droppedAttempts)} earlier dropped`] : [label];
}

/// A readable short form of a source: the resource's name rather than its ARN ("orders → http" for
/// a subscription of topic orders, "all-orders → q" for target q of rule all-orders, "hello" for
/// a function); anything that is not an ARN as it is.
export function laneName(lane) {
  const [base, fragment] = lane.source.split('#');
  const parts = base.split(':');
  if (parts[0] !== 'arn' || parts.length < 6) return lane.source;
  const service = parts[2];
  const path = parts.slice(5).join(':').split(/[:/]/);
  let name;
  if (service === 'sns') name = `${path[0]}${lane.protocol ? ` → ${lane.protocol}` : ''}`;
  else if (service === 'lambda' && path[0] === 'function') name = path.slice(1).join(':');
  else name = path[path.length - 1];
  return fragment ? `${name} → ${fragment}` : name;
}

/// Shortens `text` (an SVG text, drawn) with an ellipsis until it fits in `max` pixels.
function fit(text, max) {
  const full = text.textContent;
  const width = text.getComputedTextLength();
  if (!(width > max)) return;
  for (let n = Math.floor((full.length * max) / width); n > 1; n--) {
    text.textContent = `${full.slice(0, n - 1)}…`;
    if (text.getComputedTextLength() <= max) return;
  }
}

/// A lane's label in the left column: the source's name, the message, the totals; the full ARN,
/// message id and target in its tooltip.
function drawLabel(g, lane, y) {
  const label = el('g', { class: 'lane-label' });
  label.append(el('title', {}, `${lane.source}\nmessage ${lane.messageId}\ntarget ${lane.target}`));
  const name = el('text', { x: 4, y: y - 13, 'font-size': 12, 'font-weight': 600, fill: '#1b1f24', class: 'lane-name' }, laneName(lane));
  const message = el('text', { x: 4, y: y + 1, 'font-size': 10, fill: '#57606a', class: 'lane-message' }, `message ${lane.messageId}`);
  const summary = el('text', { x: 4, y: y + 14, 'font-size': 10, fill: lane.droppedAttempts ? '#cf222e' : '#57606a', class: 'lane-summary' });
  laneLabel(lane).forEach((line, i) => summary.append(el('tspan', i ? { x: 4, dy: 12 } : {}, line)));
  label.append(name, message, summary);
  g.append(label);
  fit(name, LEFT - 12);
  fit(message, LEFT - 12);
}

/// Draws `timeline` (the server's answer for window `w` of an axis from `start`) into `box`.
export function draw(box, timeline, start, w, now, opts) {
  box.replaceChildren();
  // What is drawn, for scripts and tests: the scale and the window in epoch milliseconds.
  Object.assign(box.dataset, { scale: opts.scale, from: w?.from ?? '', to: w?.to ?? '', span: w ? w.to - w.from : '' });
  if (!timeline.lanes.length) {
    box.append(Object.assign(document.createElement('p'), { className: 'muted', textContent: 'No deliveries recorded for this choice yet.' }));
    return;
  }
  const width = Math.max(Math.round(box.clientWidth) || WIDTH, 640);
  const right = width - MARGIN;
  const laneH = 56, top = 28;
  const height = top + timeline.lanes.length * laneH + 10;
  const a = axis(opts, start, w, right);
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': 'tl-svg-title', id: 'tl-svg' });
  // In the page from the start: the lane labels are measured to fit their column.
  box.append(svg);
  const attempts = timeline.lanes.reduce((n, l) => n + l.attempts, 0);
  svg.append(el('title', { id: 'tl-svg-title' }, `Delivery timeline: ${number(attempts)} attempts in ${timeline.lanes.length} lane(s), ${opts.scale} axis`));
  svg.append(patternDefs());
  const visible = (x) => x >= LEFT - 1 && x <= right + 1;
  for (const [t, label] of a.ticks) {
    const x = a.x(t);
    if (!visible(x)) continue;
    svg.append(el('line', { x1: x, x2: x, y1: top - 6, y2: height, stroke: '#d0d7de' }));
    svg.append(el('text', { x, y: top - 10, 'font-size': 10, 'text-anchor': 'middle', fill: '#57606a', class: 'tick' }, label));
  }
  const nowX = a.x(now);
  if (visible(nowX)) {
    const g = el('g', { id: 'tl-now', 'data-now': String(now) });
    g.append(el('line', { x1: nowX, x2: nowX, y1: top - 4, y2: height, stroke: '#1b1f24', 'stroke-dasharray': '4 3', 'stroke-width': 1.5 }));
    g.append(el('text', { x: nowX + 3, y: height - 4, 'font-size': 10 }, 'now'));
    svg.append(g);
  }
  timeline.lanes.forEach((lane, i) => {
    const y = top + i * laneH + laneH / 2;
    const g = el('g', { class: 'lane', 'data-source': lane.source, 'data-message-id': lane.messageId, 'data-attempts': lane.attempts, 'data-records': lane.records, 'data-dropped': lane.droppedAttempts });
    svg.append(g);
    drawLabel(g, lane, y);
    g.append(el('line', { x1: LEFT, x2: right, y1: y, y2: y, stroke: '#eaeef2' }));
    drawLane(g, lane, a, y, visible);
  });
}

function drawLane(lane, data, a, y, visible) {
  // prev: x of the last attempt drawn; labelEnd: where the last letter under the lane ends.
  const state = { prev: null, labelEnd: -Infinity };
  const listed = (b) => b.records.length === b.count;
  for (const bin of data.bins) {
    if (listed(bin)) {
      for (const r of bin.records) drawRecord(lane, r, a, y, visible, state);
    } else {
      drawBin(lane, bin, a, y, state);
    }
  }
  // An ending in a crowded bin would be lost in its bar: it is drawn on its own.
  const end = data.ending;
  const same = (r) => r.event === end.event && r.at === end.at && r.attempt === end.attempt;
  if (end && !data.bins.some((b) => listed(b) && b.records.some(same)) && visible(a.x(Date.parse(end.at)))) {
    drawRecord(lane, end, a, y, visible, state);
  }
}

function drawRecord(lane, r, a, y, visible, state) {
  const x = a.x(Date.parse(r.at));
  if (state.prev !== null && r.event === 'attempt' && x - state.prev > 36 && visible(x)) {
    lane.append(el('line', { x1: state.prev + 5, x2: x - 5, y1: y, y2: y, stroke: '#8c959f', 'stroke-width': 1 }));
    lane.append(el('text', { x: (state.prev + x) / 2, y: y - 5, 'font-size': 9, 'text-anchor': 'middle', fill: '#57606a' }, duration(r.delaySeconds * 1000)));
  }
  if (!visible(x)) return;
  const title = `${r.event} #${r.attempt} at ${r.at}, phase ${r.phase}, delay ${r.delaySeconds} s, ${r.outcome ?? ''} ${r.status ?? ''} ${r.errorCode ?? ''}`;
  const g = el('g', { class: `rec ${r.event}`, 'data-phase': r.phase ?? '', 'data-attempt': r.attempt, 'data-event': r.event, 'data-outcome': r.outcome ?? '' });
  g.append(el('title', {}, title));
  if (r.event === 'attempt') {
    const p = PHASES[r.phase] ?? PHASES.retry;
    g.append(el('rect', { x: x - 5, y: y - 8, width: 10, height: 16, fill: `url(#p-${r.phase in PHASES ? r.phase : 'retry'})`, stroke: p.color, 'stroke-width': r.outcome === 'delivered' ? 3 : 1.2 }));
    // A letter that would overlap the one before is not shown: the mark's pattern and tooltip
    // tell its phase.
    const room = x - 4 >= state.labelEnd;
    g.append(el('text', { x, y: y + 19, 'font-size': 8, 'text-anchor': 'middle', visibility: room ? 'visible' : 'hidden' }, r.outcome === 'delivered' ? `${p.letter}✓` : p.letter));
    state.prev = x;
    if (room) state.labelEnd = x + 4;
  } else {
    const label = ENDINGS[r.event] ?? r.event;
    const mark = r.event === 'discarded' ? '✕' : r.event === 'throttled' ? '▽' : '◆';
    g.append(el('text', { x, y: y + 4, 'font-size': 13, 'text-anchor': 'middle', fill: '#cf222e' }, mark));
    g.append(el('text', { x: x + 7, y: y - 8, 'font-size': 9, fill: '#cf222e' }, label));
  }
  lane.append(g);
}

/// A crowded bin: a bar from its first to its last record in its commonest phase's pattern, the
/// phase's letter under it where there is room, every count in the tooltip.
function drawBin(lane, bin, a, y, state) {
  const x1 = a.x(Date.parse(bin.first)), x2 = a.x(Date.parse(bin.last));
  const tries = bin.kinds.filter((k) => k.event === 'attempt');
  const main = (tries.length ? tries : bin.kinds).reduce((m, k) => (k.count > m.count ? k : m));
  const phase = main.phase in PHASES ? main.phase : 'retry';
  const p = PHASES[phase];
  const lines = bin.kinds.map((k) => `${number(k.count)} ${k.event === 'attempt' ? `${k.phase} ${k.outcome ?? ''} attempt(s)` : k.event}`);
  const g = el('g', { class: 'rec bin', 'data-phase': phase, 'data-count': bin.count, 'data-index': bin.index });
  g.append(el('title', {}, `${number(bin.count)} records from ${bin.first} to ${bin.last}:\n${lines.join('\n')}`));
  g.append(el('rect', { x: Math.min(x1, x2 - 2) - 1, y: y - 8, width: Math.max(x2 - x1 + 2, 3), height: 16, fill: `url(#p-${phase})`, stroke: p.color, 'stroke-width': 0.6 }));
  if (x1 - state.labelEnd >= 10) {
    g.append(el('text', { x: x1, y: y + 19, 'font-size': 8, 'text-anchor': 'start' }, p.letter));
    state.labelEnd = x1 + 6;
  }
  state.prev = x2;
  lane.append(g);
}

export function table(box, records) {
  const t = document.createElement('table');
  t.id = 'tl-records';
  t.innerHTML = '<caption class="sr-only">Delivery records</caption><thead><tr><th scope="col">#</th><th scope="col">event</th><th scope="col">at (virtual)</th><th scope="col">phase</th><th scope="col">delay</th><th scope="col">outcome</th><th scope="col">status / error</th><th scope="col">message</th><th scope="col">target</th></tr></thead>';
  const body = document.createElement('tbody');
  for (const r of records) {
    const tr = document.createElement('tr');
    tr.dataset.phase = r.phase ?? '';
    tr.dataset.event = r.event;
    for (const v of [r.attempt, r.event, r.at, r.phase, `${r.delaySeconds} s`, r.outcome ?? '', [r.status, r.errorCode].filter((x) => x != null).join(' '), r.messageId, r.target]) {
      const td = document.createElement('td');
      td.textContent = v ?? '';
      tr.append(td);
    }
    body.append(tr);
  }
  t.append(body);
  box.replaceChildren(t);
}
