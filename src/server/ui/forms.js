// The forms that call the real AWS APIs on the same port, as any client would: SQS over AWS JSON
// 1.0, SNS over AWS Query, EventBridge over AWS JSON 1.1, and LocalStack's /_aws/sqs/messages to
// peek. Requests carry an unchecked SigV4-shaped Authorization naming the resource's account and
// region (switchyard reads, not checks, signatures unless --auth verify).

const enc = encodeURIComponent;

function auth(account, region, service) {
  const key = /^\d{12}$/.test(account) ? account : 'test';
  return `AWS4-HMAC-SHA256 Credential=${key}/20260101/${region}/${service}/aws4_request, SignedHeaders=host, Signature=0`;
}

async function call(url, init) {
  const r = await fetch(url, init);
  const text = await r.text();
  if (!r.ok) throw new Error(`${r.status}: ${text}`);
  return text;
}

export function sendMessage(q, body, extra) {
  const input = { QueueUrl: q.url, MessageBody: body, ...extra };
  return call('/', { method: 'POST', headers: {
    'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'AmazonSQS.SendMessage',
    Authorization: auth(q.account, q.region, 'sqs') }, body: JSON.stringify(input) });
}

export function publish(t, message, subject) {
  let form = `Action=Publish&Version=2010-03-31&TopicArn=${enc(t.arn)}&Message=${enc(message)}`;
  if (subject) form += `&Subject=${enc(subject)}`;
  if (t.fifo) form += `&MessageGroupId=console`;
  return call('/', { method: 'POST', headers: {
    'Content-Type': 'application/x-www-form-urlencoded', Authorization: auth(t.account, t.region, 'sns') },
    body: form });
}

export function putEvent(bus, source, detailType, detail) {
  const entry = { EventBusName: bus.arn, Source: source, DetailType: detailType, Detail: detail };
  return call('/', { method: 'POST', headers: {
    'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'AWSEvents.PutEvents',
    Authorization: auth(bus.account, bus.region, 'events') }, body: JSON.stringify({ Entries: [entry] }) });
}

export async function peek(q, showInvisible, showDelayed) {
  const url = `/_aws/sqs/messages?QueueUrl=${enc(q.url)}&ShowInvisible=${showInvisible}&ShowDelayed=${showDelayed}`;
  const doc = JSON.parse(await call(url, { headers: { Accept: 'application/json' } }));
  const result = doc.ReceiveMessageResponse.ReceiveMessageResult;
  if (!result) return [];
  return Array.isArray(result.Message) ? result.Message : [result.Message];
}

/// A labelled form: fields [{name, label, value, textarea}], submit label, and what it does.
export function form(fields, submit, action, status) {
  const f = document.createElement('form');
  for (const field of fields) {
    const label = document.createElement('label');
    label.textContent = field.label + ' ';
    const input = document.createElement(field.textarea ? 'textarea' : 'input');
    input.name = field.name;
    if (field.textarea) input.rows = 2;
    input.value = field.value ?? '';
    label.append(input);
    f.append(label);
  }
  const button = document.createElement('button');
  button.type = 'submit';
  button.textContent = submit;
  f.append(button);
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    const values = Object.fromEntries(new FormData(f).entries());
    try {
      status(`${submit}: ${summary(await action(values))}`);
    } catch (err) {
      status(`${submit} failed: ${err.message}`, true);
    }
  });
  return f;
}

function summary(text) {
  const id = /<MessageId>([^<]+)/.exec(text)?.[1] ?? /"(?:MessageId|EventId)"\s*:\s*"([^"]+)"/.exec(text)?.[1];
  return id ? `done, id ${id}` : 'done';
}
