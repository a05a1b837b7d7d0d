// An MCP server built on the TypeScript SDK 1.x (@modelcontextprotocol/sdk 1.32.2) through its
// high-level McpServer API, the way an application author writes one. Keel's client tests
// (TypeScriptServerInteropTest) talk to it to prove the client interoperates with the SDK most
// deployed servers run, in the legacy (2025-11-25) era.
//
//   node legacy-server.mjs          Streamable HTTP with sessions on 127.0.0.1, an ephemeral
//                                   port; the first stdout line is the endpoint URL.
//   node legacy-server.mjs --stdio  newline-delimited JSON-RPC on stdin/stdout.
//
// Diagnostics go to stderr only: in stdio mode stdout belongs to the protocol, and in HTTP mode
// the test reads exactly one line (the URL) from it.

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import * as z from 'zod';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const SDK = '@modelcontextprotocol/sdk 1.32.2';
const ITEMS = { alpha: 'the first item', beta: 'the second item' };

let cancelledCalls = 0;

/** Resolves 'finished' after ms, or 'cancelled' as soon as signal aborts (and counts that). */
function waitUnlessCancelled(ms, signal) {
  return new Promise(resolve => {
    const cancelled = () => {
      clearTimeout(timer);
      cancelledCalls++;
      resolve('cancelled');
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', cancelled);
      resolve('finished');
    }, ms);
    if (signal.aborted) {
      cancelled();
    } else {
      signal.addEventListener('abort', cancelled, { once: true });
    }
  });
}

/** One server instance with every feature the test exercises; each HTTP session gets its own. */
function buildServer() {
  const mcp = new McpServer(
    { name: 'ts-legacy-interop', version: '1.32.2' },
    { instructions: 'A TypeScript SDK 1.x server for Keel interop tests.' }
  );

  mcp.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() }
    },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: `${a} + ${b} = ${a + b}` }],
      structuredContent: { sum: a + b }
    })
  );

  // Progress goes out only when the caller asked for it with a progress token, as the spec says.
  mcp.registerTool(
    'count_steps',
    {
      description: 'Counts to steps, reporting progress after each step',
      inputSchema: { steps: z.number().int().min(1).max(20) }
    },
    async ({ steps }, extra) => {
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: steps, message: `step ${i} of ${steps}` }
          });
        }
      }
      return { content: [{ type: 'text', text: `counted ${steps} steps` }] };
    }
  );

  // relatedRequestId puts the elicitation on this call's own response stream (legacy HTTP), so
  // it reaches the client even before it opened a listening stream.
  mcp.registerTool(
    'ask_name',
    {
      description: 'Asks the user for their name (elicitation/create)',
      inputSchema: { question: z.string() }
    },
    async ({ question }, extra) => {
      const answer = await mcp.server.elicitInput(
        {
          message: question,
          requestedSchema: {
            type: 'object',
            properties: { name: { type: 'string', title: 'Your name' } },
            required: ['name']
          }
        },
        { relatedRequestId: extra.requestId }
      );
      if (answer.action !== 'accept') {
        return { content: [{ type: 'text', text: `no name (${answer.action})` }] };
      }
      return { content: [{ type: 'text', text: `Hello, ${answer.content.name}!` }] };
    }
  );

  mcp.registerTool(
    'summarize',
    {
      description: "Asks the host's model to summarize a text (sampling/createMessage)",
      inputSchema: { text: z.string() }
    },
    async ({ text }, extra) => {
      const reply = await mcp.server.createMessage(
        {
          messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${text}` } }],
          systemPrompt: 'You summarize in one line.',
          maxTokens: 64
        },
        { relatedRequestId: extra.requestId }
      );
      const said = reply.content.type === 'text' ? reply.content.text : `(${reply.content.type})`;
      return { content: [{ type: 'text', text: `${reply.model} says: ${said}` }] };
    }
  );

  // Waits until the time is up or the call is cancelled (a legacy client's
  // notifications/cancelled aborts extra.signal), and counts the cancellations so a test can ask.
  mcp.registerTool(
    'wait_for_cancel',
    {
      description: 'Waits up to ms milliseconds unless the call is cancelled first',
      inputSchema: { ms: z.number().int().min(1).max(60000) }
    },
    async ({ ms }, extra) => ({ content: [{ type: 'text', text: await waitUnlessCancelled(ms, extra.signal) }] })
  );

  mcp.registerTool(
    'cancelled_calls',
    { description: 'How many wait_for_cancel calls this process saw cancelled' },
    async () => ({ content: [{ type: 'text', text: String(cancelledCalls) }] })
  );

  mcp.registerResource(
    'greeting',
    'interop://greeting',
    { title: 'Greeting', description: 'A fixed text', mimeType: 'text/plain' },
    async uri => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: `Hello from ${SDK}` }] })
  );

  mcp.registerResource(
    'item',
    new ResourceTemplate('interop://items/{id}', {
      list: async () => ({
        resources: Object.keys(ITEMS).map(id => ({ uri: `interop://items/${id}`, name: `item ${id}` }))
      })
    }),
    { description: 'One item by id', mimeType: 'application/json' },
    async (uri, { id }) => {
      if (!(id in ITEMS)) {
        throw new Error(`no item ${id}`);
      }
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, text: ITEMS[id] }) }]
      };
    }
  );

  mcp.registerPrompt(
    'review',
    {
      description: 'Asks for a review of a subject',
      argsSchema: { subject: z.string(), tone: z.string().optional() }
    },
    ({ subject, tone }) => ({
      description: `Review of ${subject}`,
      messages: [
        { role: 'user', content: { type: 'text', text: `Review ${subject} in a ${tone ?? 'neutral'} tone.` } }
      ]
    })
  );

  return mcp;
}

async function serveStdio() {
  await buildServer().connect(new StdioServerTransport());
  console.error(`${SDK} server on stdio`);
}

/**
 * Streamable HTTP with sessions, the SDK's documented arrangement: initialize creates a
 * transport and server for a new session; later requests are routed by Mcp-Session-Id.
 */
async function serveHttp() {
  const sessions = new Map();

  const jsonRpcError = (res, status, code, message) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
  };

  const http = createServer(async (req, res) => {
    try {
      if (new URL(req.url, 'http://127.0.0.1').pathname !== '/mcp') {
        res.writeHead(404).end();
        return;
      }
      let body;
      if (req.method === 'POST') {
        const chunks = [];
        for await (const chunk of req) {
          chunks.push(chunk);
        }
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          jsonRpcError(res, 400, -32700, 'Parse error');
          return;
        }
      }
      const sessionId = req.headers['mcp-session-id'];
      if (sessionId !== undefined) {
        const transport = sessions.get(sessionId);
        if (transport === undefined) {
          jsonRpcError(res, 404, -32001, 'Session not found');
          return;
        }
        await transport.handleRequest(req, res, body);
        return;
      }
      if (req.method === 'POST' && isInitializeRequest(body)) {
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: id => sessions.set(id, transport)
        });
        transport.onclose = () => {
          if (transport.sessionId !== undefined) {
            sessions.delete(transport.sessionId);
          }
        };
        await buildServer().connect(transport);
        await transport.handleRequest(req, res, body);
        return;
      }
      // Anything but initialize without a session: this includes a stateless client's
      // server/discover probe, which a 2025-era server does not know.
      jsonRpcError(res, 400, -32000, 'Bad Request: No valid session ID provided');
    } catch (e) {
      console.error('request failed:', e);
      if (!res.headersSent) {
        jsonRpcError(res, 500, -32603, 'Internal error');
      } else {
        res.end();
      }
    }
  });

  http.listen(0, '127.0.0.1', () => {
    console.log(`http://127.0.0.1:${http.address().port}/mcp`);
    console.error(`${SDK} server over Streamable HTTP`);
  });

  const stop = async () => {
    for (const transport of sessions.values()) {
      await transport.close().catch(() => {});
    }
    http.close();
    http.closeAllConnections();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (process.argv.includes('--stdio')) {
  await serveStdio();
} else {
  await serveHttp();
}
