// Conformance: publishing through the official Azure Event Grid JavaScript SDK
// (@azure/eventgrid EventGridPublisherClient, key credential, plain http allowed) to eventdeskd's
// topic endpoint, in the Event Grid and the CloudEvents schema; the events must arrive.

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
const { AzureKeyCredential, EventGridDeserializer, EventGridPublisherClient } = eventgrid;

const receiver = await startReceiver(eventgrid);
const daemon = await startDaemon(
  daemonPathFromArguments(),
  {
    topics: [
      { name: "eg-topic", inputSchema: "EventGridSchema",
        eventSubscriptions: [webhookSubscription("eg-sub", receiver.url("/eg"))] },
      { name: "ce-topic", inputSchema: "CloudEventSchemaV1_0",
        eventSubscriptions: [webhookSubscription("ce-sub", receiver.url("/ce"), { schema: "CloudEventSchemaV1_0" })] },
    ],
    receivers: [],
  },
  { EVENTDESK_TOPIC_KEY_EG_TOPIC: "eg-key", EVENTDESK_TOPIC_KEY_CE_TOPIC: "ce-key" },
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

  const deserializer = new EventGridDeserializer();
  const delivered = async (pathName, parse) => {
    const events = [];
    for (const request of receiver.notifications(pathName)) events.push(...(await parse(request.body)));
    return events;
  };
  await waitFor(async () => (await delivered("/eg", (b) => deserializer.deserializeEventGridEvents(b))).length >= 2,
    "both Event Grid schema events delivered");
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
} finally {
  await daemon.stop();
  await receiver.close();
}
console.log("conformance_publish: all checks passed");
