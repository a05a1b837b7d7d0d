#!/usr/bin/env node
// The official TypeScript SDK client with its own OAuth provider (client credentials) against a
// Keel server protected by a real authorization server, for Keel's OAuth interoperability test.
// Usage: node ts-oauth-client.mjs URL CLIENT_ID CLIENT_SECRET SCOPE
//   -> prints one JSON object (what the whoami tool answered, the tools it saw) on stdout.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';

const [url, clientId, clientSecret, scope] = process.argv.slice(2);
const authProvider = new ClientCredentialsProvider({ clientId, clientSecret, scope });
const client = new Client({ name: 'ts-oauth', version: '1.0.0' }, { capabilities: {} });
const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider });
await client.connect(transport);
const tools = (await client.listTools()).tools.map((t) => t.name);
const whoami = await client.callTool({ name: 'whoami', arguments: {} });
console.log(JSON.stringify({ tools, whoami: whoami.content[0].text,
  tokenType: authProvider.tokens()?.token_type }));
await client.close();
