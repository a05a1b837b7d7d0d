// A stateless MCP server for protocol revision 2026-07-28, built on the TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0): a per-request McpServer factory behind the SDK's
// createMcpHandler, mounted on node:http. Keel's client tests (TypeScriptServerInteropTest)
// talk to it to prove the client interoperates with the SDK's own stateless server:
// server/discover, tools with progress, multi-round-trip elicitation and sampling
// (resultType "input_required" with inputRequests and a sealed requestState), resources and
// prompts.
//
//   node modern-server.mjs   Streamable HTTP on 127.0.0.1, an ephemeral port; the first stdout
//                            line is the endpoint URL. Diagnostics go to stderr.
//
// The handler is created with legacy: 'reject', so the server speaks only 2026-07-28: a client
// that failed to detect the modern era could not fall back to a session and pass by accident.

import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import * as z from 'zod';
import {
  McpServer,
  ResourceTemplate,
  acceptedContent,
  createMcpHandler,
  createRequestStateCodec,
  hostHeaderValidationResponse,
  inputRequired,
  inputResponse,
  localhostAllowedHostnames
} from '@modelcontextprotocol/server';

const SDK = '@modelcontextprotocol/server 2.4.0';
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

// Every round of a multi-round-trip call comes back to this one process, so a per-process key
// is enough. The codec seals requestState (HMAC, expiry) and binds it to the method, as the spec
// asks of state that steers what the server does.
const stateCodec = createRequestStateCodec({
  key: randomBytes(32),
  ttlSeconds: 120,
  bind: ctx => ctx.mcpReq.method
});

const NAME_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', title: 'Your name' } },
  required: ['name']
};

/** A fresh server per request: the SDK's stateless serving model. */
function buildServer() {
  const mcp = new McpServer(
    { name: 'ts-modern-interop', version: '2.4.0' },
    {
      instructions: 'A TypeScript SDK v2 stateless server for Keel interop tests.',
      requestState: { verify: stateCodec.verify }
    }
  );

  mcp.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() })
    },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: `${a} + ${b} = ${a + b}` }],
      structuredContent: { sum: a + b }
    })
  );

  // A notification sent before the result upgrades the response to an SSE stream
  // (responseMode 'auto'); progress rides on that request's own stream.
  mcp.registerTool(
    'count_steps',
    {
      description: 'Counts to steps, reporting progress after each step',
      inputSchema: z.object({ steps: z.number().int().min(1).max(20) })
    },
    async ({ steps }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        if (token !== undefined) {
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: steps, message: `step ${i} of ${steps}` }
          });
        }
      }
      return { content: [{ type: 'text', text: `counted ${steps} steps` }] };
    }
  );

  // Round 1 returns input_required with an elicitation and a sealed requestState carrying the
  // question; round 2 reads the answer and the verified state back.
  mcp.registerTool(
    'ask_name',
    {
      description: 'Asks the user for their name (elicitation through input_required)',
      inputSchema: z.object({ question: z.string() })
    },
    async ({ question }, ctx) => {
      const answered = acceptedContent(ctx.mcpReq.inputResponses, 'name');
      const state = ctx.mcpReq.requestState();
      if (answered === undefined || state === undefined) {
        const seen = inputResponse(ctx.mcpReq.inputResponses, 'name');
        if (seen.kind === 'elicit') {
          return { content: [{ type: 'text', text: `no name (${seen.action})` }] };
        }
        return inputRequired({
          inputRequests: { name: inputRequired.elicit({ message: question, requestedSchema: NAME_SCHEMA }) },
          requestState: await stateCodec.mint({ question, round: 1 }, ctx)
        });
      }
      return {
        content: [{ type: 'text', text: `Hello, ${answered.name}! (you were asked: ${state.question})` }]
      };
    }
  );

  mcp.registerTool(
    'summarize',
    {
      description: "Asks the host's model to summarize a text (sampling through input_required)",
      inputSchema: z.object({ text: z.string() })
    },
    async ({ text }, ctx) => {
      const reply = inputResponse(ctx.mcpReq.inputResponses, 'summary');
      if (reply.kind !== 'sampling') {
        return inputRequired({
          inputRequests: {
            summary: inputRequired.createMessage({
              messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${text}` } }],
              systemPrompt: 'You summarize in one line.',
              maxTokens: 64
            })
          }
        });
      }
      const content = Array.isArray(reply.result.content) ? reply.result.content[0] : reply.result.content;
      const said = content?.type === 'text' ? content.text : `(${content?.type})`;
      return { content: [{ type: 'text', text: `${reply.result.model} says: ${said}` }] };
    }
  );

  // Two rounds, each asking something different: the state from round 1 (the name) must come
  // back in round 2 for the sampling prompt to name the user.
  mcp.registerTool(
    'greet_with_model',
    {
      description: 'Asks the user for a name, then asks the model to greet them',
      inputSchema: z.object({})
    },
    async (_args, ctx) => {
      const state = ctx.mcpReq.requestState();
      if (state === undefined) {
        return inputRequired({
          inputRequests: { name: inputRequired.elicit({ message: 'Who is this for?', requestedSchema: NAME_SCHEMA }) },
          requestState: await stateCodec.mint({ round: 1 }, ctx)
        });
      }
      if (state.round === 1) {
        const answered = acceptedContent(ctx.mcpReq.inputResponses, 'name');
        if (answered === undefined) {
          return { content: [{ type: 'text', text: 'nobody to greet' }], isError: true };
        }
        return inputRequired({
          inputRequests: {
            greeting: inputRequired.createMessage({
              messages: [{ role: 'user', content: { type: 'text', text: `Greet ${answered.name}` } }],
              maxTokens: 32
            })
          },
          requestState: await stateCodec.mint({ round: 2, name: answered.name }, ctx)
        });
      }
      const reply = inputResponse(ctx.mcpReq.inputResponses, 'greeting');
      const said = reply.kind === 'sampling' && reply.result.content?.type === 'text' ? reply.result.content.text : '?';
      return { content: [{ type: 'text', text: `for ${state.name}: ${said}` }] };
    }
  );

  // Waits until the time is up or the call is cancelled (in this era a client cancels by closing
  // the response stream, which aborts ctx.mcpReq.signal), and counts the cancellations so a test
  // can ask; the count lives in the process because every request gets a fresh McpServer.
  mcp.registerTool(
    'wait_for_cancel',
    {
      description: 'Waits up to ms milliseconds unless the call is cancelled first',
      inputSchema: z.object({ ms: z.number().int().min(1).max(60000) })
    },
    async ({ ms }, ctx) => ({ content: [{ type: 'text', text: await waitUnlessCancelled(ms, ctx.mcpReq.signal) }] })
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
      argsSchema: z.object({ subject: z.string(), tone: z.string().optional() })
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

const handler = createMcpHandler(buildServer, {
  legacy: 'reject',
  onerror: e => console.error('mcp:', e?.message ?? e)
});

/**
 * node:http in front of the web-standard handler: the request becomes a fetch Request (with an
 * abort signal that fires when the client goes away, which the handler treats as cancellation)
 * and the Response is streamed back chunk by chunk, so SSE frames leave as they are produced.
 */
const http = createServer(async (req, res) => {
  const url = new URL(req.url, `http://${req.headers.host ?? '127.0.0.1'}`);
  if (url.pathname !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  const aborted = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) {
      aborted.abort();
    }
  });
  try {
    const chunks = [];
    for await (const chunk of req) {
      chunks.push(chunk);
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      for (const v of Array.isArray(value) ? value : [value]) {
        headers.append(name, v);
      }
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && chunks.length > 0;
    const request = new Request(url, {
      method: req.method,
      headers,
      body: hasBody ? Buffer.concat(chunks) : undefined,
      signal: aborted.signal
    });
    const response =
      hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? (await handler.fetch(request));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.flushHeaders();
    if (response.body) {
      const reader = response.body.getReader();
      aborted.signal.addEventListener('abort', () => reader.cancel().catch(() => {}));
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          break;
        }
        res.write(value);
      }
    }
    res.end();
  } catch (e) {
    if (!aborted.signal.aborted) {
      console.error('request failed:', e);
    }
    if (!res.headersSent) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
    } else {
      res.end();
    }
  }
});

http.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${http.address().port}/mcp`);
  console.error(`${SDK} stateless server over Streamable HTTP`);
});

const stop = async () => {
  await handler.close().catch(() => {});
  http.close();
  http.closeAllConnections();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
