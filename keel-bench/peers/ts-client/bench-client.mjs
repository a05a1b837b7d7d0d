#!/usr/bin/env node
// keel-bench's TypeScript SDK client: CONCURRENCY callers share one client and call `echo` on one
// server for DURATION seconds, after WARMUP seconds that are not counted; prints one JSON line
// (calls/s, p50 and p99 in ms, errors), the shape ClientBench prints for the Java clients.
// Usage: node bench-client.mjs legacy|modern URL CONCURRENCY WARMUP DURATION
//
// Node runs JavaScript on one thread, so "64 callers" are 64 calls in flight on one event loop,
// which is how a TypeScript application shares a client. Each client is built the way its
// documentation shows, with its defaults: the 1.x SDK opens a 2025-11-25 session, the v2 client
// is pinned to 2026-07-28 (stateless; connect() sends server/discover).
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';

const [era, url, concurrency, warmup, duration] = process.argv.slice(2);
if (!['legacy', 'modern'].includes(era) || !url) {
  console.error('usage: node bench-client.mjs legacy|modern URL CONCURRENCY WARMUP DURATION');
  process.exit(2);
}
const callers = Number(concurrency ?? 1);

async function connect() {
  if (era === 'legacy') {
    const client = new LegacyClient({ name: 'keel-bench-ts', version: '1.0.0' });
    await client.connect(new LegacyTransport(new URL(url)));
    return client;
  }
  const client = new ModernClient({ name: 'keel-bench-ts', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new ModernTransport(new URL(url)));
  return client;
}

async function echo(client) {
  const r = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  const text = r?.content?.[0]?.text;
  if (text !== 'hello') {
    throw new Error(`echo answered ${JSON.stringify(r)}`);
  }
}

// Runs the callers until `seconds` have passed; returns the latencies (ns) and the errors.
async function measure(client, seconds) {
  const end = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  const latencies = [];
  let errors = 0;
  let firstError = null;
  const loop = async () => {
    while (process.hrtime.bigint() < end) {
      const start = process.hrtime.bigint();
      try {
        await echo(client);
        latencies.push(Number(process.hrtime.bigint() - start));
      } catch (e) {
        errors++;
        firstError ??= String(e?.message ?? e);
      }
    }
  };
  await Promise.all(Array.from({ length: callers }, loop));
  return { latencies, errors, firstError };
}

const at = (sorted, q) => sorted.length === 0 ? 0
  : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] / 1e6;
const round = (v) => Math.round(v * 100) / 100;

const client = await connect();
await echo(client); // outside the clock: the session, the connection, the first compile
await measure(client, Number(warmup ?? 3));
const seconds = Number(duration ?? 10);
const m = await measure(client, seconds);
const sorted = Float64Array.from(m.latencies).sort();
console.log(JSON.stringify({
  perSecond: round(m.latencies.length / seconds),
  p50Ms: round(at(sorted, 0.50)),
  p99Ms: round(at(sorted, 0.99)),
  ok: m.latencies.length,
  errors: m.errors,
  firstError: m.firstError
}));
await client.close();
