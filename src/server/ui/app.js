// The console: polls the control API once a second (clock, resources, faults, the delivery log of
// the chosen source) and draws the resource tree, the chosen resource's details and forms, the
// delivery timeline, the clock buttons and the faults panel. Only the control API and the AWS APIs.

import { draw, legend, table, duration, visibleWindow } from './timeline.js';
import { form, sendMessage, publish, putEvent, peek } from './forms.js';

const $ = (id) => document.getElementById(id);
const number = (n) => n.toLocaleString('en-US');
const ui = { selected: null, items: new Map(), view: null, clock: null, scale: 'log', span: 3600000, offset: 0, extent: null };

async function getJson(path, init) {
  const r = await fetch(path, init);
  const body = await r.json();
  if (!r.ok) throw new Error(`${body.error ?? r.status}: ${body.message ?? ''}`);
  return body;
}

function status(text, isError) {
  $('status').textContent = text;
  $('status').className = isError ? 'error' : 'muted';
}

// --- clock -----------------------------------------------------------------------------------
async function advance(body) {
  try {
    const r = await getJson('/_switchyard/clock/advance', { method: 'POST', body: JSON.stringify(body) });
    status(`Advanced to ${r.now}; ${r.fired} timer(s) fired.`);
  } catch (e) {
    status(`Advance failed: ${e.message}`, true);
  }
  await refresh();
}

function drawClock() {
  $('clock-now').textContent = ui.clock.now;
  $('clock-now').setAttribute('datetime', ui.clock.now);
  $('clock-mode').textContent = ui.clock.mode;
  const next = ui.view?.nextTimerAt;
  $('clock-next').textContent = next ? `next timer ${next}` : 'no timer pending';
  const real = ui.clock.mode === 'real';
  document.querySelectorAll('[data-advance], #advance-next').forEach((b) => { b.disabled = real; });
  $('advance-next').disabled = real || !next;
}

// --- resources -------------------------------------------------------------------------------
const KINDS = [
  ['queues', 'Queues', (q) => `${q.visible} visible · ${q.inFlight} in flight · ${q.delayed} delayed`],
  ['topics', 'Topics', (t) => `${t.subscriptions.length} subscription(s)`],
  ['eventBuses', 'Event buses', (b) => `${b.rules.length} rule(s)`],
  ['customBuses', 'Custom buses', (b) => `${b.subscribers.length} subscriber(s)`],
  ['eventStreams', 'Event streams', (s) => s.state],
  ['archives', 'Archives', (a) => `${a.state} · ${a.eventCount} events`],
  ['replays', 'Replays', (r) => r.state],
  ['functions', 'Lambda functions', (f) => {
    const last = f.invocations[0];
    return last ? `${f.runtime} · last ${last.result} ${(last.durationUs / 1000).toFixed(1)} ms` : f.runtime;
  }],
  ['eventSourceMappings', 'Event source mappings', (m) => `${m.state} · ${m.batchesInFlight} batch(es) in flight`],
];

function resButton(item, kind, region, text) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'res';
  b.textContent = text;
  b.dataset.arn = item.arn;
  if (ui.selected?.arn === item.arn) b.setAttribute('aria-current', 'true');
  const chosen = { ...item, kind, account: region.account, region: region.region };
  ui.items.set(item.arn, chosen);
  b.addEventListener('click', () => select(chosen));
  return b;
}

/// One entry of the tree: its button, a short count beside it, and its children nested under it.
function entry(item, kind, region, text, counts, children = []) {
  const li = document.createElement('li');
  li.dataset.arn = item.arn;
  li.dataset.kind = kind;
  li.append(resButton(item, kind, region, text));
  if (counts) li.append(' ', Object.assign(document.createElement('span'), { className: 'counts', textContent: counts }));
  if (children.length) {
    const ul = document.createElement('ul');
    ul.append(...children);
    li.append(ul);
  }
  return li;
}

/// What a resource holds, nested under it: a topic's subscriptions, a bus's rules (each with its
/// targets), a custom bus's subscribers.
function children(item, region) {
  const subscriptions = (item.subscriptions ?? []).map((s) => {
    const label = `${s.protocol} → ${s.endpoint} (${s.confirmed ? 'confirmed' : 'pending'})`;
    return entry({ name: label, ...s }, 'subscription', region, label);
  });
  const rules = (item.rules ?? []).map((r) => {
    const targets = r.targets.map((t) => {
      const label = `${r.name} → ${t.Id}`;
      return entry({ name: label, arn: `${r.arn}#${t.Id}`, rule: r.name, ...t }, 'target', region, label);
    });
    const counts = `${r.state ?? ''} · ${r.targets.length} target(s)${r.scheduleExpression ? ` · ${r.scheduleExpression}` : ''}`;
    return entry(r, 'rules', region, r.name, counts, targets);
  });
  const subscribers = (item.subscribers ?? []).map((s) => entry(s, 'subscriber', region, `${s.name} → ${s.targetArn}`));
  return [...subscriptions, ...rules, ...subscribers];
}

function drawTree() {
  const box = $('resource-tree');
  const focused = document.activeElement?.dataset?.arn;
  ui.items = new Map();
  const tree = document.createElement('div');
  tree.className = 'tree';
  const top = document.createElement('ul');
  for (const region of ui.view.regions) {
    const li = document.createElement('li');
    li.innerHTML = `<h3>${region.account} · ${region.region}</h3>`;
    for (const [kind, title, count] of KINDS) {
      const items = region[kind];
      if (!items.length) continue;
      const h = document.createElement('h3');
      h.textContent = title;
      const ul = document.createElement('ul');
      for (const item of items) ul.append(entry(item, kind, region, item.name, count(item), children(item, region)));
      li.append(h, ul);
    }
    top.append(li);
  }
  if (!ui.view.regions.length) top.innerHTML = '<li class="muted">No resources yet.</li>';
  tree.append(top);
  box.replaceChildren(tree);
  if (focused) box.querySelector(`button[data-arn="${CSS.escape(focused)}"]`)?.focus();
}

// --- details and forms -----------------------------------------------------------------------
function select(item) {
  ui.selected = item;
  const box = $('detail');
  box.replaceChildren(Object.assign(document.createElement('h2'), { id: 'detail-h', textContent: `${item.kind}: ${item.name}` }));
  box.append(Object.assign(document.createElement('div'), { id: 'detail-fields' }));
  drawFields(item);
  if (item.kind === 'queues') queueForms(box, item);
  if (item.kind === 'topics') box.append(form([{ name: 'message', label: 'Message', value: '{"hello":"world"}', textarea: true }, { name: 'subject', label: 'Subject' }], 'Publish', (v) => publish(item, v.message, v.subject), status));
  if (item.kind === 'eventBuses') box.append(form([{ name: 'source', label: 'Source', value: 'console' }, { name: 'detailType', label: 'Detail type', value: 'Test' }, { name: 'detail', label: 'Detail (JSON)', value: '{}', textarea: true }], 'Put event', (v) => putEvent(item, v.source, v.detailType, v.detail), status));
  if (item.kind === 'functions') box.append(invocationTable(item.invocations));
  const source = ['subscription', 'subscriber', 'target', 'functions', 'eventSourceMappings'].includes(item.kind) ? item.arn : null;
  if (source) {
    ensureOption($('tl-source'), source);
    $('tl-source').value = source;
    $('tl-message').value = '';
  }
  drawTree();
  refreshTimeline();
}

// --- a resource's details as labelled fields -------------------------------------------------
// Shown elsewhere: in the heading and the tree (kind; a topic's subscriptions, a bus's rules, a
// rule's targets and a custom bus's subscribers are its children there) or in a table of their own
// (a function's invocations).
const ELSEWHERE = new Set(['kind', 'subscriptions', 'rules', 'subscribers', 'invocations']);
const WORDS = { arn: 'ARN', url: 'URL', fifo: 'FIFO', id: 'ID', dlq: 'DLQ' };
const NESTED = 2; // objects deeper than this are folded JSON

/// The control API's camelCase names read as words ("inFlight" → "In flight"); AWS's own
/// attribute names (VisibilityTimeout, RedrivePolicy ...) are kept as AWS spells them.
function fieldLabel(key) {
  if (!/^[a-z]/.test(key)) return key;
  const words = key.replace(/([A-Z])/g, ' $1').toLowerCase().split(' ').map((w) => WORDS[w] ?? w);
  return words.join(' ').replace(/^./, (c) => c.toUpperCase());
}

/// A JSON document held as text (a policy, a filter, an event pattern), or null.
function jsonText(value) {
  if (!/^\s*[[{]/.test(value)) return null;
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}

/// A JSON document folded: its summary names its top-level keys, the whole is pre-formatted.
function folded(doc, path) {
  const d = document.createElement('details');
  d.className = 'json';
  d.dataset.path = path;
  const keys = Array.isArray(doc) ? `${doc.length} item(s)` : Object.keys(doc).join(', ');
  d.append(Object.assign(document.createElement('summary'), { textContent: `JSON document: ${keys || 'empty'}` }));
  d.append(Object.assign(document.createElement('pre'), { textContent: JSON.stringify(doc, null, 2) }));
  return d;
}

const muted = (text) => Object.assign(document.createElement('span'), { className: 'muted', textContent: text });
const complex = (v) => v !== null && typeof v === 'object';

function fieldValue(value, depth, path) {
  if (value === null || value === undefined || value === '') return muted('not set');
  if (typeof value === 'string') {
    const doc = jsonText(value);
    return doc === null ? document.createTextNode(value) : folded(doc, path);
  }
  if (!complex(value)) return document.createTextNode(String(value));
  const empty = Array.isArray(value) ? !value.length : !Object.keys(value).length;
  if (empty) return muted('none');
  if (depth >= NESTED) return folded(value, path);
  if (Array.isArray(value)) {
    if (!value.some(complex)) return document.createTextNode(value.join(', '));
    const ol = document.createElement('ol');
    value.forEach((v, i) => {
      const li = document.createElement('li');
      li.append(fieldValue(v, depth + 1, `${path}.${i}`));
      ol.append(li);
    });
    return ol;
  }
  return fieldList(value, depth + 1, path);
}

/// `obj` as a list of name: value, plain values first (name and ARN leading), then lists and
/// nested objects.
function fieldList(obj, depth, path) {
  const dl = document.createElement('dl');
  dl.className = 'fields';
  const lead = (k) => (k === 'name' ? 0 : k === 'arn' ? 1 : complex(obj[k]) ? 3 : 2);
  const keys = Object.keys(obj).filter((k) => depth > 0 || !ELSEWHERE.has(k));
  keys.sort((a, b) => lead(a) - lead(b));
  for (const key of keys) {
    const row = document.createElement('div');
    row.className = 'field';
    row.dataset.field = key;
    const dd = document.createElement('dd');
    dd.append(fieldValue(obj[key], depth, path ? `${path}.${key}` : key));
    row.append(Object.assign(document.createElement('dt'), { textContent: fieldLabel(key) }), dd);
    dl.append(row);
  }
  return dl;
}

/// Draws the chosen resource's fields; a redraw (the tree is polled) keeps the JSON documents the
/// user unfolded open.
function drawFields(item) {
  const box = $('detail-fields');
  if (!box) return;
  const open = new Set([...box.querySelectorAll('details[open]')].map((d) => d.dataset.path));
  box.replaceChildren(fieldList(item, 0, ''));
  box.dataset.shown = JSON.stringify(item);
  for (const d of box.querySelectorAll('details')) d.open = open.has(d.dataset.path);
}

/// The chosen resource as the latest poll sees it: its fields redrawn when they changed.
function refreshFields() {
  const fresh = ui.selected && ui.items.get(ui.selected.arn);
  if (!fresh || $('detail-fields')?.dataset.shown === JSON.stringify(fresh)) return;
  ui.selected = fresh;
  drawFields(fresh);
}

// A function's last invocations: request id, start, duration, result, and the log's tail folded.
function invocationTable(invocations) {
  const section = document.createElement('section');
  section.id = 'invocations';
  section.append(Object.assign(document.createElement('h3'), { textContent: 'Invocations (newest first)' }));
  if (!invocations.length) {
    section.append(Object.assign(document.createElement('p'), { className: 'muted', textContent: 'No invocation yet.' }));
    return section;
  }
  const t = document.createElement('table');
  t.innerHTML = '<thead><tr><th>Request id</th><th>Start (virtual)</th><th>Type</th><th>Duration</th><th>Result</th><th>Log</th></tr></thead>';
  const body = document.createElement('tbody');
  for (const r of invocations) {
    const tr = document.createElement('tr');
    const cells = [r.requestId, new Date(r.startedAt).toISOString(), r.invocationType, `${(r.durationUs / 1000).toFixed(2)} ms`, r.errorType ? `${r.result} (${r.errorType})` : r.result];
    for (const c of cells) tr.append(Object.assign(document.createElement('td'), { textContent: c }));
    const log = document.createElement('details');
    log.append(Object.assign(document.createElement('summary'), { textContent: 'tail' }), Object.assign(document.createElement('pre'), { textContent: r.logTail }));
    const td = document.createElement('td');
    td.append(log);
    tr.append(td);
    body.append(tr);
  }
  t.append(body);
  section.append(t);
  return section;
}

function queueForms(box, q) {
  box.append(form([{ name: 'body', label: 'Message body', value: 'hello', textarea: true }, { name: 'group', label: 'Group id (FIFO)', value: q.fifo ? 'g' : '' }], 'Send message', (v) => sendMessage(q, v.body, v.group ? { MessageGroupId: v.group, MessageDeduplicationId: String(Date.now()) } : {}), status));
  const list = document.createElement('div');
  const peekForm = form([], 'Peek (no receive)', async () => {
    const messages = await peek(q, true, true);
    const pre = document.createElement('pre');
    pre.id = 'peek-result';
    pre.textContent = messages.length ? JSON.stringify(messages, null, 2) : '(no messages)';
    list.replaceChildren(pre);
    return `${messages.length} message(s)`;
  }, status);
  box.append(peekForm, list);
}

function ensureOption(select, value, text) {
  if (![...select.options].some((o) => o.value === value)) select.append(new Option(text ?? value, value));
}

// --- timeline --------------------------------------------------------------------------------
const TIMELINE = '/_switchyard/deliveries/timeline';
const BINS = 505; // about 2 px each on the chart
const LANES = 50;
const TABLE_ROWS = 1000;

/// The source and message chosen, as query parameters.
function choice() {
  const q = {};
  if ($('tl-source').value) q.source = $('tl-source').value;
  if ($('tl-message').value) q.messageId = $('tl-message').value;
  return q;
}

let drawing = 0; // the latest refreshTimeline: an older one that finishes later draws nothing

async function refreshTimeline() {
  const mine = ++drawing;
  const { source } = choice();
  // Every lane of the source, unbinned: the choices, and where the chosen lanes begin and end.
  const all = await getJson(`${TIMELINE}?${new URLSearchParams({ ...(source ? { source } : {}), bins: 1, detail: 0, exact: 0, lanes: 1000 })}`);
  for (const l of all.lanes) ensureOption($('tl-source'), l.source);
  for (const l of all.lanes) ensureOption($('tl-message'), l.messageId, `${l.messageId} (${l.target})`);
  const message = $('tl-message').value;
  const lanes = all.lanes.filter((l) => !message || l.messageId === message);
  const now = Date.parse(ui.clock.now);
  const start = Math.min(...lanes.map((l) => Date.parse(l.first.at)));
  const last = Math.max(...lanes.map((l) => Date.parse(l.last.at)));
  ui.extent = lanes.length ? { start, last } : null;
  let timeline = { lanes: [] };
  let w = null;
  if (lanes.length) {
    w = visibleWindow(ui, start, Math.max(last, now));
    const iso = (t) => new Date(t).toISOString();
    timeline = await getJson(`${TIMELINE}?${new URLSearchParams({ ...choice(), from: iso(w.from), to: iso(w.to), bins: BINS, scale: ui.scale, lanes: LANES })}`);
  }
  const { records } = await getJson(`/_switchyard/deliveries?${new URLSearchParams({ ...choice(), limit: TABLE_ROWS })}`);
  if (mine !== drawing) return;
  draw($('tl-chart'), timeline, start, w, now, ui);
  drawSummary(all, timeline, lanes);
  table($('tl-table'), records);
  const total = lanes.reduce((n, l) => n + l.records, 0);
  $('tl-count').textContent = records.length < total ? `newest ${number(records.length)} of ${number(total)}` : String(records.length);
  $('tl-outcome').textContent = outcomes(lanes);
  $('tl-span').textContent = ui.scale === 'log' ? 'log axis from the first record' : `window ${duration(ui.span)} from +${duration(ui.offset)}`;
}

/// How a lane ended: its dead-letter write, discard or block; else its last attempt's outcome, or
/// that it is still being retried.
function outcome(lane) {
  if (lane.ending) return lane.ending.event;
  const a = lane.lastAttempt;
  if (!a) return lane.last.event;
  if (a.outcome === 'delivered') return 'delivered';
  if (a.nextAttemptAt) return 'retrying';
  return a.outcome === 'permanent' ? 'failed permanently' : 'failed';
}

/// The folded table's summary: how many attempts, and how the chosen lanes ended.
function outcomes(lanes) {
  if (!lanes.length) return 'no attempts yet';
  const attempts = lanes.reduce((n, l) => n + l.attempts, 0);
  const tries = `${number(attempts)} attempt${attempts === 1 ? '' : 's'}`;
  if (lanes.length === 1) return `${tries}, final outcome ${outcome(lanes[0])}`;
  const counts = new Map();
  for (const l of lanes) counts.set(outcome(l), (counts.get(outcome(l)) ?? 0) + 1);
  const list = [...counts].sort((a, b) => b[1] - a[1]).map(([o, n]) => `${number(n)} ${o}`).join(', ');
  return `${tries} in ${number(lanes.length)} lanes, final outcomes ${list}`;
}

/// One line under the chart: how many lanes, attempts and records, and what the log let go.
function drawSummary(all, timeline, lanes) {
  const attempts = lanes.reduce((n, l) => n + l.attempts, 0);
  const records = lanes.reduce((n, l) => n + l.records, 0);
  const dropped = lanes.reduce((n, l) => n + l.droppedAttempts, 0);
  const shown = timeline.lanes.length < lanes.length ? ` (the ${timeline.lanes.length} with the latest records drawn)` : '';
  let text = `${number(lanes.length)} lane(s)${shown} · ${number(attempts)} attempts · ${number(records)} records`;
  if (dropped) text += ` · ${number(dropped)} earlier attempts dropped from the log, which keeps the newest ${number(all.capacity)} records (--delivery-log-size)`;
  $('tl-summary').textContent = text;
  $('tl-summary').className = dropped ? 'error' : 'muted';
}


/// Redraws the timeline soon: a run of zoom or pan keys asks the server once, for where it ends.
let soon = null;
function redraw() {
  clearTimeout(soon);
  soon = setTimeout(refreshTimeline, 80);
}

function zoom(factor) {
  ui.scale = 'linear';
  $('tl-scale').value = 'linear';
  ui.span = Math.min(Math.max(Math.round(ui.span * factor), 1), 90 * 86400000);
  redraw();
}

function pan(direction) {
  ui.scale = 'linear';
  $('tl-scale').value = 'linear';
  ui.offset = Math.max(0, ui.offset + Math.round(direction * ui.span / 2));
  redraw();
}

function fit() {
  ui.scale = 'linear';
  $('tl-scale').value = 'linear';
  if (ui.extent) {
    ui.offset = 0;
    ui.span = Math.round(Math.max(ui.extent.last - ui.extent.start, 1) * 1.05);
  }
  refreshTimeline();
}

// --- faults ----------------------------------------------------------------------------------
async function drawFaults() {
  const { faults } = await getJson('/_switchyard/faults');
  const list = $('fault-list');
  list.replaceChildren();
  for (const f of faults) {
    const li = document.createElement('li');
    li.dataset.faultId = f.id;
    li.textContent = `${f.target}: status ${f.status}${f.errorCode ? ` (${f.errorCode})` : ''}, ${f.count == null ? 'until cleared' : `${f.count} attempt(s) left`} `;
    const b = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Remove' });
    b.setAttribute('aria-label', `Remove fault on ${f.target}`);
    b.addEventListener('click', async () => { await fetch(`/_switchyard/faults/${f.id}`, { method: 'DELETE' }); refresh(); });
    li.append(b);
    list.append(li);
  }
  if (!faults.length) list.innerHTML = '<li class="muted">No faults in force.</li>';
}

async function addFault(e) {
  e.preventDefault();
  const v = Object.fromEntries(new FormData(e.target).entries());
  const body = { target: v.target, status: Number(v.status) };
  if (v.errorCode) body.errorCode = v.errorCode;
  if (v.count) body.count = Number(v.count);
  try {
    const r = await getJson('/_switchyard/faults', { method: 'POST', body: JSON.stringify(body) });
    status(`Fault ${r.id} added on ${v.target}.`);
  } catch (err) {
    status(`Adding the fault failed: ${err.message}`, true);
  }
  refresh();
}

// --- the loop --------------------------------------------------------------------------------
let busy = false;
async function refresh() {
  if (busy) return;
  busy = true;
  try {
    ui.clock = await getJson('/_switchyard/clock');
    ui.view = await getJson('/_switchyard/resources');
    drawClock();
    drawTree();
    refreshFields();
    await drawFaults();
    await refreshTimeline();
    document.body.dataset.refreshedAt = ui.clock.now;
  } catch (e) {
    status(`Refresh failed: ${e.message}`, true);
  } finally {
    busy = false;
  }
}

function start() {
  legend($('tl-legend'));
  document.querySelectorAll('[data-advance]').forEach((b) => b.addEventListener('click', () => advance({ seconds: Number(b.dataset.advance) })));
  $('advance-next').addEventListener('click', () => ui.view?.nextTimerAt && advance({ until: ui.view.nextTimerAt }));
  $('tl-source').addEventListener('change', () => { $('tl-message').value = ''; refreshTimeline(); });
  $('tl-message').addEventListener('change', refreshTimeline);
  $('tl-scale').addEventListener('change', (e) => { ui.scale = e.target.value; refreshTimeline(); });
  $('tl-zoom-in').addEventListener('click', () => zoom(0.5));
  $('tl-zoom-out').addEventListener('click', () => zoom(2));
  $('tl-left').addEventListener('click', () => pan(-1));
  $('tl-right').addEventListener('click', () => pan(1));
  $('tl-fit').addEventListener('click', fit);
  $('fault-form').addEventListener('submit', addFault);
  $('fault-clear').addEventListener('click', async () => { await fetch('/_switchyard/faults', { method: 'DELETE' }); refresh(); });
  document.addEventListener('keydown', (e) => {
    if (e.target.closest('input, textarea, select')) return;
    const keys = { '+': () => zoom(0.5), '-': () => zoom(2), '[': () => pan(-1), ']': () => pan(1) };
    keys[e.key]?.();
  });
  refresh();
  setInterval(refresh, 1000);
}

start();
