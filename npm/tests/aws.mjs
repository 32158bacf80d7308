// The AWS side of the sample suite: SQS through the AWS SDK for JavaScript v3 when
// @aws-sdk/client-sqs is installed (npm/test-npm installs it when the npm registry answers), else
// through fetch and SQS's JSON protocol; SNS through fetch and its Query protocol (the suite needs
// three calls of it, not an SDK).

let sdk;
try {
  sdk = await import("@aws-sdk/client-sqs");
} catch {
  sdk = undefined;
}

/** "sdk" or "fetch": what sqs() drives SQS with. */
export const via = sdk ? "sdk" : "fetch";

/** An SQS client for the emulator with the few calls the suite makes, in either form. */
export function sqs(emulator) {
  if (sdk) {
    const client = new sdk.SQSClient(emulator.clientConfig());
    return {
      async createQueue(QueueName, Attributes = {}) {
        return (await client.send(new sdk.CreateQueueCommand({ QueueName, Attributes }))).QueueUrl;
      },
      async send(QueueUrl, MessageBody) {
        await client.send(new sdk.SendMessageCommand({ QueueUrl, MessageBody }));
      },
      async receive(QueueUrl) {
        return (await client.send(new sdk.ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }))).Messages ?? [];
      },
      async listQueues() {
        return (await client.send(new sdk.ListQueuesCommand({}))).QueueUrls ?? [];
      },
    };
  }
  const call = async (operation, body) => {
    const response = await fetch(emulator.url, {
      method: "POST",
      headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": `AmazonSQS.${operation}` },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (!response.ok) throw new Error(`${operation}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  return {
    async createQueue(QueueName, Attributes = {}) {
      return (await call("CreateQueue", { QueueName, Attributes })).QueueUrl;
    },
    async send(QueueUrl, MessageBody) {
      await call("SendMessage", { QueueUrl, MessageBody });
    },
    async receive(QueueUrl) {
      return (await call("ReceiveMessage", { QueueUrl, MaxNumberOfMessages: 10 })).Messages ?? [];
    },
    async listQueues() {
      return (await call("ListQueues", {})).QueueUrls ?? [];
    },
  };
}

/** One SNS Query call (`Action` and its parameters); resolves to the XML answer's text. */
export async function sns(emulator, Action, parameters = {}) {
  const response = await fetch(emulator.url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ Action, Version: "2010-03-31", ...parameters }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${Action}: ${response.status} ${text}`);
  return text;
}
