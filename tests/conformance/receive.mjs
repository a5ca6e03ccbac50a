// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Conformance: deliveries parsed by the official deserializers — the Azure SDK's
// EventGridDeserializer and the CloudEvents SDK's HTTP binding (cloudevents HTTP.toEvent) — for
// single and batched delivery in both schemas, with the aeg-* headers of SPEC D7 and the
// validation handshakes (SubscriptionValidationEvent, CloudEvents abuse protection) first.

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
const cloudevents = await requirePackage("cloudevents");
const { EventGridDeserializer } = eventgrid;
const { HTTP } = cloudevents;

const receiver = await startReceiver(eventgrid);
const daemon = await startDaemon(daemonPathFromArguments(), {
  topics: [{
    name: "orders",
    inputSchema: "EventGridSchema",
    eventSubscriptions: [
      webhookSubscription("eg-single", receiver.url("/eg-single")),
      webhookSubscription("eg-batch", receiver.url("/eg-batch"), { maxEventsPerBatch: 10 }),
      webhookSubscription("ce-single", receiver.url("/ce-single"), { schema: "CloudEventSchemaV1_0" }),
      webhookSubscription("ce-batch", receiver.url("/ce-batch"), { schema: "CloudEventSchemaV1_0", maxEventsPerBatch: 10 }),
    ],
  }],
  receivers: [],
});

const ids = ["r-1", "r-2", "r-3"];
try {
  // Deliveries wait until each endpoint is validated: wait for the four handshakes first.
  await waitFor(() => receiver.requests.filter((r) => r.validationCode).length === 2 &&
                      receiver.requests.filter((r) => r.method === "OPTIONS").length === 2,
    "validation handshakes of the four subscriptions");
  for (const name of ["eg-single", "eg-batch"]) {
    const handshake = receiver.requests.find((r) => r.url === `/${name}` && r.validationCode);
    check(handshake.headers["aeg-event-type"] === "SubscriptionValidation" &&
          handshake.headers["aeg-subscription-name"] === name.toUpperCase(),
      `${name}: SubscriptionValidationEvent handshake with aeg-event-type SubscriptionValidation`);
    const [event] = JSON.parse(handshake.body);
    check(typeof event.data.validationUrl === "string" && event.data.validationUrl.includes(`/validate/orders/${name}?code=`),
      `${name}: the handshake carries a validationUrl served by EventDesk`);
  }
  for (const name of ["ce-single", "ce-batch"]) {
    const handshake = receiver.requests.find((r) => r.url === `/${name}` && r.method === "OPTIONS");
    check(handshake.headers["webhook-request-origin"] === "eventgrid.azure.net",
      `${name}: CloudEvents abuse-protection OPTIONS with WebHook-Request-Origin`);
  }

  const events = ids.map((id, i) => ({
    id, subject: `/orders/${i}`, eventType: "Conformance.OrderCreated", eventTime: "2024-05-01T10:00:00Z",
    dataVersion: "2.0", data: { amount: i },
  }));
  const published = await fetch(`${daemon.baseUrl}/topics/orders/api/events?api-version=2018-01-01`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(events),
  });
  check(published.status === 200, `publish of three events answered 200 (got ${published.status})`);

  const deserializer = new EventGridDeserializer();
  const eventIds = async (name, parse) => {
    const all = [];
    for (const request of receiver.notifications(`/${name}`)) all.push(...(await parse(request)));
    return all.map((e) => e.id).sort();
  };
  const parseEventGrid = (request) => deserializer.deserializeEventGridEvents(request.body);
  const parseCloudEvents = (request) => {
    const parsed = HTTP.toEvent({ headers: request.headers, body: request.body });
    return Array.isArray(parsed) ? parsed : [parsed];
  };
  for (const [name, parse] of [["eg-single", parseEventGrid], ["eg-batch", parseEventGrid],
                               ["ce-single", parseCloudEvents], ["ce-batch", parseCloudEvents]]) {
    await waitFor(async () => (await eventIds(name, parse)).length >= 3, `${name}: three events delivered`);
    check(JSON.stringify(await eventIds(name, parse)) === JSON.stringify(ids), `${name}: exactly the published events, each once`);
  }

  // Single delivery: one event per request, still an array for the Event Grid schema (SPEC D4/B1).
  for (const request of receiver.notifications("/eg-single")) {
    check(Array.isArray(JSON.parse(request.body)) && JSON.parse(request.body).length === 1,
      "eg-single: a JSON array holding one event");
    check(request.headers["content-type"].startsWith("application/json"), "eg-single: Content-Type application/json");
  }
  for (const request of receiver.notifications("/ce-single")) {
    check(request.headers["content-type"].startsWith("application/cloudevents+json"),
      "ce-single: structured-mode CloudEvent, Content-Type application/cloudevents+json");
    const event = HTTP.toEvent({ headers: request.headers, body: request.body });
    check(!Array.isArray(event) && event.type === "Conformance.OrderCreated" && event.source.includes("orders") &&
          event.dataversion === "2.0", "ce-single: converted event has type, source and dataversion (SPEC S4)");
    const [azureView] = await deserializer.deserializeCloudEvents(request.body);
    check(azureView.id === event.id, "ce-single: the Azure SDK's deserializeCloudEvents agrees");
  }
  // Batched delivery: the three events published together arrive in fewer requests (SPEC B5).
  const egBatches = receiver.notifications("/eg-batch").map((r) => JSON.parse(r.body).length);
  check(Math.max(...egBatches) > 1 && egBatches.every((n) => n <= 10), `eg-batch: batched (${egBatches.join(",")} per request)`);
  const ceBatchRequests = receiver.notifications("/ce-batch");
  check(ceBatchRequests.every((r) => r.headers["content-type"].startsWith("application/cloudevents-batch+json")),
    "ce-batch: Content-Type application/cloudevents-batch+json");
  check(Math.max(...ceBatchRequests.map((r) => JSON.parse(r.body).length)) > 1, "ce-batch: batched");

  // SPEC D7 headers on every delivery.
  for (const name of ["eg-single", "eg-batch", "ce-single", "ce-batch"]) {
    const cloud = name.startsWith("ce");
    for (const request of receiver.notifications(`/${name}`)) {
      const h = request.headers;
      check(h["aeg-event-type"] === "Notification" && h["aeg-subscription-name"] === name.toUpperCase() &&
            h["aeg-delivery-count"] === "0" && h["aeg-data-version"] === "2.0" &&
            h["aeg-metadata-version"] === (cloud ? "1.0" : "1"),
        `${name}: aeg-event-type, aeg-subscription-name, aeg-delivery-count, aeg-data-version, aeg-metadata-version`);
      if (cloud)
        check(h["webhook-request-origin"] === "eventgrid.azure.net", `${name}: deliveries carry WebHook-Request-Origin`);
    }
  }
  // The handshake precedes every delivery of a subscription.
  for (const name of ["eg-single", "eg-batch", "ce-single", "ce-batch"]) {
    const mine = receiver.requests.filter((r) => r.url === `/${name}`);
    check(mine[0].method === "OPTIONS" || mine[0].headers["aeg-event-type"] === "SubscriptionValidation",
      `${name}: validated before the first delivery`);
  }
  check(receiver.requests.every((r) => !r.error), "the receiver parsed every request without an error");
} finally {
  await daemon.stop();
  await receiver.close();
}
console.log("conformance_receive: all checks passed");
