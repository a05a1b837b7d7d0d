package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.jsonschema.JsonSchemaCompiler;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcCodec;
import dev.keel.mcp.core.schema.Implementation;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.ServerCapabilities;
import dev.keel.mcp.core.engine.InboundRequests;
import dev.keel.mcp.server.internal.registry.FeatureRegistry;
import dev.keel.mcp.server.internal.session.SessionTable;
import dev.keel.mcp.server.internal.metrics.ServerCounters;
import dev.keel.mcp.server.internal.mrtr.RequestStateSealer;
import dev.keel.mcp.server.internal.subscriptions.SubscriptionRegistry;
import dev.keel.mcp.server.internal.tasks.TaskEngine;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The state every method handler shares: one per server.
 *
 * @param json the server's mapper, with its limits
 * @param codec the JSON-RPC codec over it
 * @param registry the features
 * @param sessions the live legacy sessions
 * @param cancellations the in-flight cancellable requests
 * @param schemas the JSON Schema registry tools compile against
 * @param info the server's name and version
 * @param capabilities what the server declares
 * @param instructions instructions for the model, or null
 * @param pageSize items per list page
 * @param clientRequestTimeout how long a handler waits on the client
 * @param defaultLogLevel the log level before {@code logging/setLevel}
 * @param handlerTimeout how long a handler may run unless its tool says otherwise
 * @param counters the metrics
 * @param timer the server's timer thread (timeouts, idle eviction); it never runs handlers
 * @param requestStates seals and opens multi-round-trip request states
 * @param maxInputRounds the most rounds one multi-round-trip request may take
 * @param cacheHints the cache hints of stateless results, by method
 * @param subscriptions the open subscriptions/listen streams
 * @param tasks the tasks, both eras
 * @param inFlight the running requests, as the operator sees them
 * @param pulse the recent traffic, for the operator's charts
 */
public record ServerCore(McpJson json, JsonRpcCodec codec, FeatureRegistry registry,
    SessionTable sessions, InboundRequests cancellations, JsonSchemaCompiler schemas,
    Implementation info, ServerCapabilities capabilities, String instructions, int pageSize,
    Duration clientRequestTimeout, LoggingLevel defaultLogLevel, Duration handlerTimeout,
    ServerCounters counters, ScheduledExecutorService timer,
    RequestStateSealer requestStates, int maxInputRounds, Map<String, CacheHint> cacheHints,
    SubscriptionRegistry subscriptions, TaskEngine tasks,
    dev.keel.mcp.server.internal.operations.InFlightTable inFlight,
    dev.keel.mcp.server.internal.operations.Pulse pulse) {}
