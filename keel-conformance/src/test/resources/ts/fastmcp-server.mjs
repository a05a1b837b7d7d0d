// An MCP server built with FastMCP for TypeScript (npm fastmcp 4.20.16) on its httpStream
// transport: a legacy-era (2025) server behind mcp-proxy and the TypeScript SDK 1.x, which
// checks the MCP-Protocol-Version header of every request. Keel's client tests
// (FastMcpInteropTest) talk to it with the era left to detection: the probe must not leave a
// 2026-07-28 header on the fallback initialize, or this server refuses it.
//
//   node fastmcp-server.mjs   Streamable HTTP on 127.0.0.1, an ephemeral port; the first stdout
//                             line is the endpoint URL. Diagnostics go to stderr.

import { createServer } from 'node:net';
import { FastMCP } from 'fastmcp';
import { z } from 'zod';

/** An ephemeral port: FastMCP does not report the port it bound, so pick a free one first. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

// FastMCP logs to stdout by default; the harness reads the endpoint from the first stdout line.
const toStderr = (...args) => console.error(...args);
const logger = { debug: toStderr, error: toStderr, info: toStderr, log: toStderr, warn: toStderr };

const server = new FastMCP({
  logger,
  name: 'fastmcp-interop',
  version: '4.20.16',
  instructions: 'A FastMCP for TypeScript server that adds numbers.'
});

server.addTool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => String(a + b)
});

const port = await freePort();
await server.start({
  transportType: 'httpStream',
  httpStream: { host: '127.0.0.1', port, endpoint: '/mcp' }
});
console.log(`http://127.0.0.1:${port}/mcp`);

const stop = async () => {
  await server.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
