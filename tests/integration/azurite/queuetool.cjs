// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Reads and prepares an Azurite queue with the official @azure/storage-queue client, so the
// integration test checks EventDesk's queue messages independently of EventDesk's own REST code.
//   node queuetool.cjs create <connection string> <queue>
//   node queuetool.cjs dump <connection string> <queue>
//       -> [{"messageText": ..., "decoded": <the Base64 text decoded as UTF-8>,
//            "timeToLiveSeconds": <expiresOn - insertedOn, or -1 when the message never expires>}]
'use strict';
const { QueueServiceClient } = require('@azure/storage-queue');

async function main() {
    const [command, connectionString, queueName] = process.argv.slice(2);
    const queue = QueueServiceClient.fromConnectionString(connectionString).getQueueClient(queueName);
    if (command === 'create') {
        await queue.createIfNotExists();
        return;
    }
    if (command === 'dump') {
        const messages = [];
        // Peeking leaves the messages in place; 32 is the service's limit per call.
        const peeked = await queue.peekMessages({ numberOfMessages: 32 });
        for (const item of peeked.peekedMessageItems) {
            const never = item.expiresOn.getUTCFullYear() >= 9999;
            messages.push({
                messageText: item.messageText,
                decoded: Buffer.from(item.messageText, 'base64').toString('utf8'),
                timeToLiveSeconds: never ? -1
                    : Math.round((item.expiresOn.getTime() - item.insertedOn.getTime()) / 1000),
            });
        }
        process.stdout.write(JSON.stringify(messages));
        return;
    }
    throw new Error(`unknown command ${command}`);
}

main().catch((error) => {
    process.stderr.write(`queuetool: ${error.message}\n`);
    process.exit(1);
});
