package dev.keel.mcp.http.internal;

import dev.keel.mcp.core.jsonrpc.JsonRpcCodec;
import dev.keel.mcp.http.spi.EventStore;
import java.util.concurrent.ExecutorService;

/**
 * What every stream of one servlet shares.
 *
 * @param codec the server's codec
 * @param events the event store (null when resumability is off)
 * @param keepAlive the keep-alive timer of idle streams (listening streams, subscriptions)
 * @param probes the faster timer of streams whose request is running: a write is how a servlet
 *     learns that the client went away, and a gone client cancels its request
 * @param executor the handler threads
 * @param retryMillis the {@code retry} sent before the server closes a stream
 * @param keepAliveNanos how long a held stream may stay silent before its stream opens
 * @param sseAfterNanos how long a running request may stay silent before its stream opens
 * @param openListening the count of open listening streams
 */
record TransportContext(JsonRpcCodec codec, EventStore events, KeepAlive keepAlive,
    KeepAlive probes, ExecutorService executor, long retryMillis, long keepAliveNanos,
    long sseAfterNanos,
    java.util.concurrent.atomic.AtomicInteger openListening) {}
