// An MCP server on the TypeScript SDK 1.x (@modelcontextprotocol/sdk 1.32.2) protected by the
// SDK's own bearer-auth middleware, the way its documentation has an author do it: protected-
// resource metadata from mcpAuthMetadataRouter, tokens checked by requireBearerAuth with a
// verifier that asks the authorization server (RFC 7662 introspection). Keel's OAuth tests point
// the Keel client at it.
//
//   node oauth-server.mjs ISSUER CLIENT_ID CLIENT_SECRET
//     stateless Streamable HTTP on 127.0.0.1, an ephemeral port; the first stdout line is the
//     endpoint URL. The whoami tool answers the token's client id.

import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { mcpAuthMetadataRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

const [issuer, clientId, clientSecret] = process.argv.slice(2);
const oauthMetadata = await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json();

const verifier = {
  async verifyAccessToken(token) {
    const answer = await fetch(oauthMetadata.introspection_endpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: 'Basic ' + Buffer.from(`${clientId}:${clientSecret}`).toString('base64'),
      },
      body: new URLSearchParams({ token }),
    });
    const info = await answer.json();
    if (!info.active) {
      throw new InvalidTokenError('Token is not active');
    }
    return { token, clientId: info.client_id, scopes: (info.scope ?? '').split(' ').filter(Boolean),
      expiresAt: info.exp };
  },
};

const app = express();
app.use(express.json());
const listener = app.listen(0, '127.0.0.1', () => {
  const url = new URL(`http://127.0.0.1:${listener.address().port}/mcp`);
  app.use(mcpAuthMetadataRouter({ oauthMetadata, resourceServerUrl: url, scopesSupported: ['mcp:tools'] }));
  const auth = requireBearerAuth({ verifier, requiredScopes: ['mcp:tools'],
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(url) });
  app.post('/mcp', auth, async (req, res) => {
    const server = new McpServer({ name: 'ts-oauth-server', version: '1.0.0' });
    // a tool without an input schema gets the request's extra as its only argument
    server.registerTool('whoami', { description: 'Names the caller' }, async (extra) => ({
      content: [{ type: 'text', text: extra.authInfo?.clientId ?? 'nobody' }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => { transport.close(); server.close(); });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  console.log(url.href);
});
