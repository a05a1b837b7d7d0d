#!/usr/bin/env node
// Drives a Keel server with the official TypeScript SDK v2 client (@modelcontextprotocol/client)
// in the stateless 2026-07-28 era, for Keel's modern-era interoperability test.
// Usage: node ts-modern-client.mjs URL   -> prints one JSON object with what it saw, on stdout.
//
// Everything goes through the client's public API: a pinned version negotiation (connect sends
// server/discover), listTools, callTool with multi-round-trip (MRTR) auto-fulfilment through a
// registered elicitation/create handler, and listen() for subscriptions/listen. The transport's
// public `fetch` option is used only to record the HTTP exchanges, so the test can report the
// wire facts (headers, status, listen request id) and so failures are diagnosable.
import { Client, StreamableHTTPClientTransport, SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/client';

const PROTOCOL = '2026-07-28';
const url = process.argv[process.argv.length - 1];
const seen = {
  wire: [],
  elicitationRequests: [],
  progress: [],
  toolListChanged: [],
  errors: []
};

// Records every HTTP exchange the transport makes (public `fetch` option): the standard headers,
// the JSON-RPC envelope of the body, the status, and for plain JSON answers the result's shape.
// SSE bodies are left alone (the listen stream never ends).
const recordingFetch = async (input, init = {}) => {
  const headers = new Headers(init.headers ?? {});
  let body;
  try {
    body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
  } catch {
    body = undefined;
  }
  const meta = body?.params?._meta ?? {};
  const entry = {
    httpMethod: init.method ?? 'GET',
    protocolVersionHeader: headers.get('mcp-protocol-version'),
    mcpMethod: headers.get('mcp-method'),
    mcpName: headers.get('mcp-name'),
    sessionIdHeader: headers.get('mcp-session-id'),
    id: body?.id ?? null,
    method: body?.method ?? null,
    envelopeVersion: meta['io.modelcontextprotocol/protocolVersion'] ?? null,
    envelopeCapabilities: meta['io.modelcontextprotocol/clientCapabilities'] ?? null,
    inputResponseKeys: body?.params?.inputResponses ? Object.keys(body.params.inputResponses) : null,
    requestState: body?.params?.requestState ?? null
  };
  seen.wire.push(entry);
  const response = await fetch(input, init);
  entry.status = response.status;
  entry.contentType = response.headers.get('content-type');
  entry.responseSessionId = response.headers.get('mcp-session-id');
  const streamed = (entry.contentType ?? '').startsWith('text/event-stream');
  // A request that runs a little while is answered as SSE; its answer is the frame with its id.
  // (A subscription's stream stays open: it is never read here.)
  if ((entry.contentType ?? '').startsWith('application/json')
      || (streamed && body?.method !== 'subscriptions/listen' && body?.id !== undefined)) {
    try {
      const text = await response.clone().text();
      const answer = streamed
        ? text.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim())
            .filter((l) => l.length > 0).map((l) => JSON.parse(l)).find((m) => m.id === body.id)
        : JSON.parse(text);
      entry.resultType = answer.result?.resultType ?? null;
      entry.inputRequestKeys = answer.result?.inputRequests ? Object.keys(answer.result.inputRequests) : null;
      entry.hasRequestState = typeof answer.result?.requestState === 'string';
      entry.error = answer.error ?? null;
    } catch {
      entry.unparsedBody = true;
    }
  }
  return response;
};

const client = new Client(
  { name: 'ts-modern-interop', version: '1.0.0' },
  {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: PROTOCOL } },
    inputRequired: { autoFulfill: true, maxRounds: 5 }
  }
);
client.onerror = (e) => seen.errors.push(String(e?.message ?? e));

// MRTR: the client answers the embedded elicitation/create input requests through this handler
// and retries the call with inputResponses + requestState. ctx.mcpReq.id is the inputRequests key.
const answers = { user_name: { name: 'ts-v2-user' }, step1: { name: 'Ada' }, step2: { color: 'teal' } };
client.setRequestHandler('elicitation/create', async (request, ctx) => {
  const key = String(ctx.mcpReq.id);
  seen.elicitationRequests.push({ key, method: request.method, params: request.params });
  const content = answers[key];
  return content ? { action: 'accept', content } : { action: 'decline' };
});

let resolveToolsChanged;
const toolsChanged = new Promise((resolve) => (resolveToolsChanged = resolve));
client.setNotificationHandler('notifications/tools/list_changed', (n) => {
  seen.toolListChanged.push(n);
  resolveToolsChanged(n);
});

const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch });
const withTimeout = (promise, ms, value) =>
  Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(value), ms))]);

async function run() {
  seen.step = 'connect';
  // Pinned negotiation: connect() probes with server/discover and requires 2026-07-28.
  await client.connect(transport);
  seen.era = client.getProtocolEra();
  seen.negotiatedProtocolVersion = client.getNegotiatedProtocolVersion();
  seen.sessionId = transport.sessionId ?? null;
  seen.connectDiscover = client.getDiscoverResult();

  seen.step = 'discover';
  // An explicit server/discover as well, through the public discover() call.
  const discover = await client.discover();
  seen.discover = discover;
  seen.supportedVersions = discover.supportedVersions;
  seen.serverInfo = client.getServerVersion();
  seen.capabilities = client.getServerCapabilities();

  seen.step = 'tools/list';
  seen.tools = (await client.listTools()).tools.map((t) => t.name);

  seen.step = 'mrtr';
  // One round: the server answers input_required asking `user_name` (a form with field `name`);
  // the client runs the elicitation handler and retries with inputResponses + requestState.
  const mrtr = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
  seen.mrtrResult = mrtr;
  seen.mrtrText = mrtr.content?.[0]?.text;
  seen.mrtrElicitations = seen.elicitationRequests.splice(0);

  seen.step = 'mrtr multi-round';
  // Two rounds: step1, then step2.
  const multi = await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} });
  seen.multiRoundText = multi.content?.[0]?.text;
  seen.multiRoundElicitations = seen.elicitationRequests.splice(0);

  seen.step = 'progress';
  const progressResult = await client.callTool(
    { name: 'test_tool_with_progress', arguments: {} },
    { onprogress: (p) => seen.progress.push(p) }
  );
  seen.progressText = progressResult.content?.[0]?.text;

  seen.step = 'echo';
  seen.echo = (await client.callTool({ name: 'echo', arguments: { text: 'hello from the v2 client' } }))
    .content?.[0]?.text;

  seen.step = 'listen';
  // subscriptions/listen: resolves once notifications/subscriptions/acknowledged arrives.
  const subscription = await client.listen({ toolsListChanged: true });
  seen.honoredFilter = subscription.honoredFilter;
  const listenWire = seen.wire.find((w) => w.method === 'subscriptions/listen');
  seen.listenRequestId = listenWire?.id ?? null;

  seen.step = 'list change';
  seen.triggerText = (await client.callTool({ name: 'test_trigger_tool_change', arguments: {} }))
    .content?.[0]?.text;
  const notification = await withTimeout(toolsChanged, 10000, null);
  seen.toolListChangedNotification = notification;
  seen.subscriptionId = notification?.params?._meta?.[SUBSCRIPTION_ID_META_KEY] ?? null;
  seen.toolsAfterChange = (await client.listTools(undefined, { cacheMode: 'refresh' })).tools
    .map((t) => t.name);

  seen.step = 'close';
  // close() aborts the listen stream (the 2026-07-28 HTTP cancellation signal) and, by the SDK's
  // own design, also POSTs notifications/cancelled for the listen id.
  await subscription.close();
  seen.subscriptionClosed = await withTimeout(subscription.closed, 5000, 'not closed within 5 s');
  // Let the fire-and-forget cancel POST settle so it is recorded.
  await new Promise((resolve) => setTimeout(resolve, 300));
  await client.close();
  seen.step = 'done';
}

try {
  await run();
  process.stdout.write(JSON.stringify(seen) + '\n');
  process.exit(0);
} catch (e) {
  seen.fatal = String(e?.stack ?? e);
  process.stdout.write(JSON.stringify(seen) + '\n');
  process.exit(1);
}
