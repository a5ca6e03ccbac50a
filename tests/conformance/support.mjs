// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Shared helpers of the conformance tests: run eventdeskd on a temporary workspace, run a Node
// webhook receiver, wait for conditions. The official clients are loaded from tests/node_modules
// (installed by scripts/install-deps.sh with `npm ci`, pinned in tests/package.json).

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const testsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// Imports an npm package from tests/node_modules, failing with an actionable message.
export async function requirePackage(name) {
  try {
    return await import(name);
  } catch (error) {
    fail(
      `cannot load the npm package '${name}' (${error.code ?? error.message}).\n` +
        `Install the pinned clients with:  (cd ${testsDir} && npm ci)\n` +
        `(scripts/install-deps.sh does this; scripts/run-tests.sh calls it.)`,
    );
  }
}

export function fail(message) {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}

export function check(condition, message) {
  if (!condition) fail(message);
  console.log(`PASS: ${message}`);
}

export function daemonPathFromArguments() {
  const index = process.argv.indexOf("--daemon");
  const daemon = index >= 0 ? process.argv[index + 1] : undefined;
  if (!daemon) fail("usage: node <test>.mjs --daemon /path/to/eventdeskd");
  return daemon;
}

export async function waitFor(predicate, description, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  fail(`timed out after ${timeoutMs} ms waiting for: ${description}`);
}

// A webhook receiver that records every request and answers the validation handshakes the way
// the Azure documentation shows: the Event Grid schema SubscriptionValidationEvent (parsed with
// the SDK's EventGridDeserializer, answered with {"validationResponse": code}) and the CloudEvents
// abuse-protection OPTIONS request (WebHook-Allowed-Origin / WebHook-Allowed-Rate).
export async function startReceiver(eventgrid) {
  const requests = [];
  const deserializer = new eventgrid.EventGridDeserializer();
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const record = { method: request.method, url: request.url, headers: request.headers, body, at: Date.now() };
      requests.push(record);
      try {
        if (request.method === "OPTIONS" && request.headers["webhook-request-origin"]) {
          response.writeHead(200, {
            "WebHook-Allowed-Origin": request.headers["webhook-request-origin"],
            "WebHook-Allowed-Rate": "120",
          });
          response.end();
          return;
        }
        if (request.headers["aeg-event-type"] === "SubscriptionValidation") {
          const [event] = await deserializer.deserializeEventGridEvents(body);
          if (!eventgrid.isSystemEvent("Microsoft.EventGrid.SubscriptionValidationEvent", event)) {
            response.writeHead(400);
            response.end();
            return;
          }
          record.validationCode = event.data.validationCode;
          response.writeHead(200, { "Content-Type": "application/json" });
          response.end(JSON.stringify({ validationResponse: event.data.validationCode }));
          return;
        }
        response.writeHead(200);
        response.end();
      } catch (error) {
        record.error = String(error);
        response.writeHead(500);
        response.end();
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: (pathName) => `http://127.0.0.1:${port}${pathName}`,
    requests,
    notifications: (pathName) =>
      requests.filter((r) => r.url === pathName && r.method === "POST" && r.headers["aeg-event-type"] === "Notification"),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

// Starts eventdeskd on a new workspace folder and waits for "EventDesk listening on http://...".
export async function startDaemon(daemonPath, workspace, environment = {}) {
  const directory = mkdtempSync(path.join(tmpdir(), "eventdesk-conformance-"));
  writeFileSync(path.join(directory, "workspace.json"), JSON.stringify(workspace, null, 2));
  const child = spawn(daemonPath, ["--workspace", directory, "--listen", "127.0.0.1:0", "--no-jitter"], {
    env: { ...process.env, ...environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const baseUrl = await new Promise((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(() => reject(new Error(`eventdeskd did not start:\n${stderr}`)), 30000);
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      const match = stdout.match(/EventDesk listening on (http:\/\/\S+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`eventdeskd exited with ${code}:\n${stderr}`));
    });
  }).catch((error) => fail(error.message));
  return {
    baseUrl,
    log: () => stderr,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export function webhookSubscription(name, endpointUrl, { schema = "EventGridSchema", maxEventsPerBatch } = {}) {
  const destinationProperties = { endpointUrl };
  if (maxEventsPerBatch) destinationProperties.maxEventsPerBatch = maxEventsPerBatch;
  return {
    name,
    properties: {
      destination: { endpointType: "WebHook", properties: destinationProperties },
      eventDeliverySchema: schema,
      retryPolicy: { maxDeliveryAttempts: 3, eventTimeToLiveInMinutes: 5 },
    },
  };
}
