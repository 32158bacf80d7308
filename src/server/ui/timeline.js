// The delivery timeline: the delivery log's records drawn on virtual time as SVG, one lane per
// message (and source), phases told apart by colour AND pattern AND a letter, the delay between
// attempts on the line joining them, the dead-letter write or discard at the end. The axis is
// logarithmic from the first record (milliseconds and days both readable) or linear with zoom.

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
  end.textContent = '◆ DLQ = dead-lettered · ✕ = discarded · ✓ = delivered · | now';
  box.append(end);
}

/// An axis from `start` to `end` (epoch ms) onto [left, right] pixels.
function axis(opts, start, end, left, right) {
  if (opts.scale === 'log') {
    const span = Math.max(end - start, 1);
    const k = (right - left) / Math.log10(1 + span);
    return { x: (t) => left + k * Math.log10(1 + Math.max(0, t - start)), ticks: logTicks(span).map((d) => [start + d, `+${duration(d)}`]) };
  }
  const from = start + opts.offset, to = from + opts.span;
  const step = niceStep(opts.span / 8);
  const ticks = [];
  for (let d = Math.ceil(opts.offset / step) * step; start + d <= to; d += step) ticks.push([start + d, `+${duration(d)}`]);
  return { x: (t) => left + ((t - from) / (to - from)) * (right - left), ticks };
}

function logTicks(span) {
  const marks = [0, 1, 10, 100, 1000, 10000, 60000, 600000, 3600000, 21600000, 86400000, 604800000, 2592000000];
  return marks.filter((d) => d <= span);
}

function niceStep(raw) {
  const steps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000, 600000, 900000, 1800000, 3600000, 7200000, 21600000, 43200000, 86400000, 172800000, 604800000];
  return steps.find((s) => s >= raw) ?? 604800000;
}

/// Draws `records` (the delivery log's, oldest first) into `box`; `now` is epoch ms.
export function draw(box, records, now, opts) {
  box.replaceChildren();
  const lanes = new Map();
  for (const r of records) {
    const key = `${r.source}\n${r.messageId}`;
    if (!lanes.has(key)) lanes.set(key, []);
    lanes.get(key).push(r);
  }
  if (records.length === 0) {
    box.append(Object.assign(document.createElement('p'), { className: 'muted', textContent: 'No deliveries recorded for this choice yet.' }));
    return;
  }
  const times = records.map((r) => Date.parse(r.at));
  const start = Math.min(...times), last = Math.max(...times);
  const left = 170, right = 1180, laneH = 34, top = 28;
  const height = top + lanes.size * laneH + 10;
  const a = axis(opts, start, Math.max(last, now), left, right);
  const svg = el('svg', { viewBox: `0 0 1200 ${height}`, role: 'img', 'aria-labelledby': 'tl-svg-title', id: 'tl-svg' });
  svg.append(el('title', { id: 'tl-svg-title' }, `Delivery timeline: ${records.length} records in ${lanes.size} lane(s), ${opts.scale} axis`));
  svg.append(patternDefs());
  const visible = (x) => x >= left - 1 && x <= right + 1;
  for (const [t, label] of a.ticks) {
    const x = a.x(t);
    if (!visible(x)) continue;
    svg.append(el('line', { x1: x, x2: x, y1: top - 6, y2: height, stroke: '#d0d7de' }));
    svg.append(el('text', { x, y: top - 10, 'font-size': 10, 'text-anchor': 'middle', fill: '#57606a' }, label));
  }
  const nowX = a.x(now);
  if (visible(nowX)) {
    const g = el('g', { id: 'tl-now', 'data-now': String(now) });
    g.append(el('line', { x1: nowX, x2: nowX, y1: top - 4, y2: height, stroke: '#1b1f24', 'stroke-dasharray': '4 3', 'stroke-width': 1.5 }));
    g.append(el('text', { x: nowX + 3, y: height - 4, 'font-size': 10 }, 'now'));
    svg.append(g);
  }
  let i = 0;
  for (const [key, list] of lanes) {
    const y = top + i * laneH + laneH / 2;
    const [source, id] = key.split('\n');
    const lane = el('g', { class: 'lane', 'data-source': source, 'data-message-id': id });
    lane.append(el('text', { x: 4, y: y + 4, 'font-size': 11 }, `${id.slice(0, 8)}… ${source.split(/[:/#]/).pop().slice(0, 10)}`));
    lane.append(el('line', { x1: left, x2: right, y1: y, y2: y, stroke: '#eaeef2' }));
    drawLane(lane, list, a, y, visible);
    svg.append(lane);
    i += 1;
  }
  box.append(svg);
}

function drawLane(lane, list, a, y, visible) {
  let prev = null;
  for (const r of list) {
    const x = a.x(Date.parse(r.at));
    if (prev !== null && r.event === 'attempt' && x - prev > 36 && visible(x)) {
      lane.append(el('line', { x1: prev + 5, x2: x - 5, y1: y, y2: y, stroke: '#8c959f', 'stroke-width': 1 }));
      lane.append(el('text', { x: (prev + x) / 2, y: y - 5, 'font-size': 9, 'text-anchor': 'middle', fill: '#57606a' }, duration(r.delaySeconds * 1000)));
    }
    if (!visible(x)) continue;
    const title = `${r.event} #${r.attempt} at ${r.at}, phase ${r.phase}, delay ${r.delaySeconds} s, ${r.outcome ?? ''} ${r.status ?? ''} ${r.errorCode ?? ''}`;
    const g = el('g', { class: `rec ${r.event}`, 'data-phase': r.phase ?? '', 'data-attempt': r.attempt, 'data-event': r.event, 'data-outcome': r.outcome ?? '' });
    g.append(el('title', {}, title));
    if (r.event === 'attempt') {
      const p = PHASES[r.phase] ?? PHASES.retry;
      g.append(el('rect', { x: x - 5, y: y - 8, width: 10, height: 16, fill: `url(#p-${r.phase in PHASES ? r.phase : 'retry'})`, stroke: p.color, 'stroke-width': r.outcome === 'delivered' ? 3 : 1.2 }));
      g.append(el('text', { x, y: y + 19, 'font-size': 8, 'text-anchor': 'middle' }, r.outcome === 'delivered' ? `${p.letter}✓` : p.letter));
      prev = x;
    } else {
      const label = ENDINGS[r.event] ?? r.event;
      const mark = r.event === 'discarded' ? '✕' : r.event === 'throttled' ? '▽' : '◆';
      g.append(el('text', { x, y: y + 4, 'font-size': 13, 'text-anchor': 'middle', fill: '#cf222e' }, mark));
      g.append(el('text', { x: x + 7, y: y - 8, 'font-size': 9, fill: '#cf222e' }, label));
    }
    lane.append(g);
  }
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
