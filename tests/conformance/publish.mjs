// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Conformance: publishing through the official Azure Event Grid JavaScript SDK
// (@azure/eventgrid EventGridPublisherClient, plain http allowed) to eventdeskd's topic endpoint,
// in the Event Grid and the CloudEvents schema, with the topic's key (AzureKeyCredential) and with
// a shared access signature made from it (generateSharedAccessSignature + AzureSASCredential);
// the events must arrive.

import {
  check,
  daemonPathFromArguments,
  requirePackage,
  startDaemon,
  startReceiver,
  waitFor,
  webhookSubscription,
} from "./support.mjs";

const eventgrid = await requirePackage("@azure/eventgrid");
const { AzureKeyCredential, AzureSASCredential, EventGridDeserializer, EventGridPublisherClient,
  generateSharedAccessSignature } = eventgrid;

// A key in the form Azure gives out (base64, which the SDK decodes before signing with it).
const sasTopicKey = Buffer.from("conformance key of sas-topic, 32b").toString("base64");
const hourMs = 60 * 60 * 1000;

const receiver = await startReceiver(eventgrid);
const daemon = await startDaemon(
  daemonPathFromArguments(),
  {
    topics: [
      { name: "eg-topic", inputSchema: "EventGridSchema",
        eventSubscriptions: [webhookSubscription("eg-sub", receiver.url("/eg"))] },
      { name: "ce-topic", inputSchema: "CloudEventSchemaV1_0",
        eventSubscriptions: [webhookSubscription("ce-sub", receiver.url("/ce"), { schema: "CloudEventSchemaV1_0" })] },
      { name: "sas-topic", inputSchema: "EventGridSchema",
        eventSubscriptions: [webhookSubscription("sas-sub", receiver.url("/sas"))] },
    ],
    receivers: [],
  },
  { EVENTDESK_TOPIC_KEY_EG_TOPIC: "eg-key", EVENTDESK_TOPIC_KEY_CE_TOPIC: "ce-key",
    EVENTDESK_TOPIC_KEY_SAS_TOPIC: sasTopicKey },
);

try {
  const options = { allowInsecureConnection: true };
  const eventGridClient = new EventGridPublisherClient(
    `${daemon.baseUrl}/topics/eg-topic/api/events`, "EventGrid", new AzureKeyCredential("eg-key"), options);
  await eventGridClient.send([
    { id: "eg-1", eventType: "Conformance.OrderCreated", subject: "/orders/1", dataVersion: "1.0",
      data: { amount: 5 } },
    { id: "eg-2", eventType: "Conformance.OrderCreated", subject: "/orders/2", dataVersion: "1.0",
      eventTime: new Date("2024-05-01T10:00:00Z"), data: { amount: 7 } },
  ]);
  check(true, "EventGridPublisherClient (EventGrid schema) publish accepted");

  const cloudEventClient = new EventGridPublisherClient(
    `${daemon.baseUrl}/topics/ce-topic/api/events`, "CloudEvent", new AzureKeyCredential("ce-key"), options);
  await cloudEventClient.send([
    { id: "ce-1", type: "Conformance.OrderCreated", source: "/conformance", subject: "orders/1",
      data: { amount: 9 } },
    { id: "ce-2", type: "Conformance.OrderCreated", source: "/conformance", data: { amount: 11 },
      extensionAttributes: { tenant: "contoso" } },
  ]);
  check(true, "EventGridPublisherClient (CloudEvent schema) publish accepted");

  // A wrong key is refused with 401, as by Event Grid.
  const wrongKey = new EventGridPublisherClient(
    `${daemon.baseUrl}/topics/eg-topic/api/events`, "EventGrid", new AzureKeyCredential("wrong"), options);
  let status = 0;
  try {
    await wrongKey.send([{ eventType: "Conformance.X", subject: "s", dataVersion: "1", data: {} }]);
  } catch (error) {
    status = error.statusCode;
  }
  check(status === 401, `a wrong access key is refused with 401 (got ${status})`);

  // A shared access signature instead of the key: the SDK's AzureSASCredential sends the token
  // generateSharedAccessSignature() made in the aeg-sas-token header.
  const sasEndpoint = `${daemon.baseUrl}/topics/sas-topic/api/events`;
  const sasToken = await generateSharedAccessSignature(
    sasEndpoint, new AzureKeyCredential(sasTopicKey), new Date(Date.now() + hourMs));
  const sasClient = new EventGridPublisherClient(sasEndpoint, "EventGrid", new AzureSASCredential(sasToken), options);
  await sasClient.send([
    { id: "sas-1", eventType: "Conformance.OrderCreated", subject: "/orders/sas", dataVersion: "1.0",
      data: { amount: 13 } },
  ]);
  check(true, "a SAS token from generateSharedAccessSignature publishes (AzureSASCredential)");

  // EventDesk takes any text as a key; the SDK decodes "eg-key" from base64 all the same, and a
  // token it signs with that must be accepted too.
  const egEndpoint = `${daemon.baseUrl}/topics/eg-topic/api/events`;
  const egToken = await generateSharedAccessSignature(
    egEndpoint, new AzureKeyCredential("eg-key"), new Date(Date.now() + hourMs));
  await new EventGridPublisherClient(egEndpoint, "EventGrid", new AzureSASCredential(egToken), options).send([
    { id: "eg-sas", eventType: "Conformance.OrderCreated", subject: "/orders/3", dataVersion: "1.0", data: {} },
  ]);
  check(true, "a SAS token signed with a key that is not base64 publishes");

  // An expired token is refused with 401, and the body says so.
  const expiredToken = await generateSharedAccessSignature(
    sasEndpoint, new AzureKeyCredential(sasTopicKey), new Date(Date.now() - hourMs));
  const expiredClient = new EventGridPublisherClient(
    sasEndpoint, "EventGrid", new AzureSASCredential(expiredToken), options);
  let expired = { status: 0, message: "" };
  try {
    await expiredClient.send([{ eventType: "Conformance.X", subject: "s", dataVersion: "1", data: {} }]);
  } catch (error) {
    expired = { status: error.statusCode, message: String(error.message) };
  }
  check(expired.status === 401 && expired.message.includes("expired at"),
    `an expired SAS token is refused with 401 saying it expired (got ${expired.status}: ${expired.message})`);

  const deserializer = new EventGridDeserializer();
  const delivered = async (pathName, parse) => {
    const events = [];
    for (const request of receiver.notifications(pathName)) events.push(...(await parse(request.body)));
    return events;
  };
  await waitFor(async () => (await delivered("/eg", (b) => deserializer.deserializeEventGridEvents(b))).length >= 3,
    "the three Event Grid schema events delivered");
  await waitFor(async () => (await delivered("/ce", (b) => deserializer.deserializeCloudEvents(b))).length >= 2,
    "both CloudEvents delivered");

  const egEvents = await delivered("/eg", (b) => deserializer.deserializeEventGridEvents(b));
  const eg2 = egEvents.find((e) => e.id === "eg-2");
  check(eg2 && eg2.subject === "/orders/2" && eg2.data.amount === 7 && eg2.eventTime.toISOString() === "2024-05-01T10:00:00.000Z",
    "Event Grid event arrives with its subject, data and eventTime");
  check(egEvents.every((e) => e.topic && e.topic.includes("eg-topic") && e.metadataVersion === "1"),
    "Event Grid events carry the topic path and metadataVersion 1 (SPEC S1)");
  const ceEvents = await delivered("/ce", (b) => deserializer.deserializeCloudEvents(b));
  const ce2 = ceEvents.find((e) => e.id === "ce-2");
  check(ce2 && ce2.source === "/conformance" && ce2.data.amount === 11 && ce2.extensionAttributes?.tenant === "contoso",
    "CloudEvent arrives with its source, data and extension attribute (SPEC S2)");
  check(ceEvents.some((e) => e.id === "ce-1" && e.subject === "orders/1"), "CloudEvent subject preserved");

  await waitFor(async () => (await delivered("/sas", (b) => deserializer.deserializeEventGridEvents(b))).length >= 1,
    "the event published with a SAS token delivered");
  const sasEvents = await delivered("/sas", (b) => deserializer.deserializeEventGridEvents(b));
  check(sasEvents.every((e) => e.id === "sas-1") && sasEvents[0].data.amount === 13,
    "the event published with a SAS token arrives with its data, and the expired token's does not");
  check(egEvents.some((e) => e.id === "eg-sas"), "the event published with the text key's SAS token arrives");
} finally {
  await daemon.stop();
  await receiver.close();
}
console.log("conformance_publish: all checks passed");
