package dev.keel.mcp.http.internal;

import dev.keel.mcp.core.jsonrpc.JsonRpcCodec;
import dev.keel.mcp.http.spi.EventStore;
import java.util.concurrent.ExecutorService;

/**
 * What every stream of one servlet shares.
 *
 * @param codec the server's codec
 * @param events the event store (null when resumability is off)
 * @param keepAlive the keep-alive timer
 * @param executor the handler threads
 * @param retryMillis the {@code retry} sent before the server closes a stream
 * @param keepAliveNanos how long a request may stay silent before its stream opens
 * @param openListening the count of open listening streams
 */
record TransportContext(JsonRpcCodec codec, EventStore events, KeepAlive keepAlive,
    ExecutorService executor, long retryMillis, long keepAliveNanos,
    java.util.concurrent.atomic.AtomicInteger openListening) {}
