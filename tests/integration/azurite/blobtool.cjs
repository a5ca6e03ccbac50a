// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
// Reads and prepares an Azurite blob container with the official @azure/storage-blob client, so
// the integration test checks EventDesk's blobs independently of EventDesk's own REST code.
//   node blobtool.cjs create <connection string> <container>
//   node blobtool.cjs dump <connection string> <container>   -> [{"name": ..., "content": ...}]
'use strict';
const { BlobServiceClient } = require('@azure/storage-blob');

async function main() {
    const [command, connectionString, containerName] = process.argv.slice(2);
    const service = BlobServiceClient.fromConnectionString(connectionString);
    const container = service.getContainerClient(containerName);
    if (command === 'create') {
        await container.createIfNotExists();
        return;
    }
    if (command === 'dump') {
        const blobs = [];
        for await (const item of container.listBlobsFlat()) {
            const buffer = await container.getBlobClient(item.name).downloadToBuffer();
            blobs.push({ name: item.name, contentType: item.properties.contentType,
                         blobType: item.properties.blobType, content: buffer.toString('utf8') });
        }
        process.stdout.write(JSON.stringify(blobs));
        return;
    }
    throw new Error(`unknown command ${command}`);
}

main().catch((error) => {
    process.stderr.write(`blobtool: ${error.message}\n`);
    process.exit(1);
});
