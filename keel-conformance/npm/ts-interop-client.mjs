#!/usr/bin/env node
// Drives a Keel server with the official TypeScript SDK client, for Keel's interoperability test.
// Usage: node ts-interop-client.mjs URL   -> prints one JSON object with what it saw, on stdout.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const url = process.argv[process.argv.length - 1];
const seen = { elicitationRequests: [], logMessages: [], progress: [] };

const client = new Client({ name: 'ts-interop', version: '1.0.0' }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  seen.elicitationRequests.push(request.params);
  return { action: 'accept', content: { username: 'ts-user', email: 'ts@example.com' } };
});
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
  seen.logMessages.push(n.params);
});

const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
seen.sessionId = transport.sessionId;
seen.serverInfo = client.getServerVersion();
seen.capabilities = client.getServerCapabilities();
seen.tools = (await client.listTools()).tools.map((t) => t.name);

const progressResult = await client.callTool(
  { name: 'test_tool_with_progress', arguments: {} },
  undefined,
  { onprogress: (p) => seen.progress.push(p) }
);
seen.progressResult = progressResult.content;

await client.setLoggingLevel('debug');
seen.loggingResult = (await client.callTool({ name: 'test_tool_with_logging', arguments: {} })).content;
seen.resource = (await client.readResource({ uri: 'test://static-text' })).contents;
seen.templateResource = (await client.readResource({ uri: 'test://template/42/data' })).contents;
seen.prompt = await client.getPrompt({
  name: 'test_prompt_with_arguments',
  arguments: { arg1: 'first', arg2: 'second' }
});
seen.elicitationResult = (await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } })).content;
seen.echo = (await client.callTool({ name: 'echo', arguments: { text: 'hello from TypeScript' } })).content;
seen.invalidArguments = await client.callTool({ name: 'echo', arguments: { text: 42 } });

await transport.terminateSession();
await client.close();
process.stdout.write(JSON.stringify(seen) + '\n');
