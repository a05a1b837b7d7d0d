package dev.keel.mcp.client;

import dev.keel.mcp.client.internal.ClientThreads;
import dev.keel.mcp.client.internal.HostHandlers;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.engine.CancellationSource;
import dev.keel.mcp.core.engine.CancelledNotice;
import dev.keel.mcp.core.engine.InboundRequests;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the server sends, where the transport delivers it: responses complete their pending
 * requests (an id nothing waits for is discarded), progress reaches the call's listener,
 * subscription acknowledgements their subscription, other notifications the host's listener,
 * and the server's questions the host's handlers. Runs on transport threads and never blocks for
 * long: the questions are answered on handler threads.
 *
 * <p>The server's questions are inbound requests like any server's: each is registered in the
 * core's {@link InboundRequests} table under its session's epoch before its handler starts, so a
 * {@code notifications/cancelled} from the server (it stopped waiting) interrupts the handler
 * and suppresses the answer, exactly as the server treats the client's cancellations.
 */
final class Inbound implements ClientTransport.Receiver {

  private static final Logger LOG = LoggerFactory.getLogger(Inbound.class);

  private final ClientTransport transport;
  private final ClientState state;
  private final Exchanges exchanges;
  private final Subscriptions subscriptions;
  private final HostHandlers host;
  private final NotificationListener listener;
  private final ExecutorService handlerThreads = ClientThreads.newExecutor("keel-client-handler");
  private final Semaphore handlerSlots;
  private final InboundRequests questions = new InboundRequests();

  Inbound(ClientTransport transport, ClientState state, Exchanges exchanges,
      Subscriptions subscriptions, HostHandlers host, NotificationListener listener,
      int maxConcurrentHandlers) {
    this.transport = transport;
    this.state = state;
    this.exchanges = exchanges;
    this.subscriptions = subscriptions;
    this.host = host;
    this.listener = listener;
    this.handlerSlots = new Semaphore(maxConcurrentHandlers);
  }

  @Override
  public void receive(JsonRpcMessage message) {
    if (message instanceof JsonRpcResponse || message instanceof JsonRpcErrorResponse) {
      if (!exchanges.pending().complete(message)) {
        LOG.debug("discarded a response nothing waits for (id {})",
            Text.safe(String.valueOf(message.id())));
      }
    } else if (message instanceof JsonRpcNotification n) {
      notification(n);
    } else if (message instanceof JsonRpcRequest r) {
      serverRequest(r);
    }
  }

  @Override
  public void failed(RequestId id, RuntimeException failure) {
    exchanges.pending().fail(id, failure);
  }

  @Override
  public void closed(RuntimeException why) {
    exchanges.close(why == null ? "the connection closed" : why.getMessage());
  }

  /** Stops the handler threads: questions still running are cancelled and interrupted. */
  void close() {
    questions.cancelAll("the client closed");
    handlerThreads.shutdownNow();
  }

  /** Waits until every handler thread has ended (after {@link #close()}). */
  boolean awaitHandlers(Duration within) throws InterruptedException {
    return handlerThreads.awaitTermination(within.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Returns how many of the server's questions are being answered. */
  int questionsInFlight() {
    return questions.size();
  }

  private void notification(JsonRpcNotification n) {
    ObjectNode params = n.params();
    if (n.method().equals("notifications/progress") && params != null) {
      ProgressListener progress = exchanges.progressListener(params.get("progressToken"));
      if (progress != null) {
        JsonNode total = params.get("total");
        try {
          progress.onProgress(params.path("progress").asDouble(),
              total != null && total.isNumber() ? total.asDouble() : null,
              Results.text(params, "message"));
        } catch (RuntimeException e) {
          LOG.warn("a progress listener failed: {}", Text.safe(e.getMessage()));
        }
        return;
      }
    }
    if (n.method().equals(CancelledNotice.METHOD)) {
      CancelledNotice notice = CancelledNotice.read(params);
      if (notice != null) {
        questions.cancel(scope(transport.sessionEpoch()), notice.requestId(),
            "server: " + notice.reason());
      }
    }
    if (n.method().equals("notifications/subscriptions/acknowledged") && params != null) {
      subscriptions.acknowledged(params);
    }
    if (listener != null) {
      try {
        listener.onNotification(n.method(), params);
      } catch (RuntimeException e) {
        LOG.warn("the notification listener failed on {}: {}", Text.safe(n.method()),
            Text.safe(e.getMessage()));
      }
    }
  }

  /**
   * A question from the server. Its answer goes back into the session it came from, on a
   * handler thread; past {@code maxConcurrentHandlers} the server is told the client is busy.
   */
  private void serverRequest(JsonRpcRequest r) {
    long epoch = transport.sessionEpoch();
    if (!handlerSlots.tryAcquire()) {
      reply(new JsonRpcErrorResponse(r.id(), new JsonRpcError(ErrorCodes.INTERNAL_ERROR,
          "The client is busy", null)), epoch);
      return;
    }
    String scope = scope(epoch);
    CancellationSource source = new CancellationSource(true);
    long entry = questions.register(scope, r.id(), source);
    try {
      handlerThreads.execute(() -> {
        source.bindThread();
        try {
          JsonRpcMessage answer;
          try {
            answer = new JsonRpcResponse(r.id(), host.answer(r.method(), r.params()));
          } catch (McpException e) {
            answer = new JsonRpcErrorResponse(r.id(), e.toError());
          } catch (RuntimeException e) {
            if (!source.isCancelled()) {
              throw e;
            }
            answer = null;
          }
          if (!source.isCancelled()) {
            reply(answer, epoch); // a question the server withdrew gets no answer
          }
        } finally {
          source.unbindThread();
          questions.deregister(scope, r.id(), entry);
          handlerSlots.release();
        }
      });
    } catch (RejectedExecutionException e) {
      questions.deregister(scope, r.id(), entry);
      handlerSlots.release();
    }
  }

  /** The session a question came in: its epoch, which a replacement session moves. */
  private static String scope(long epoch) {
    return "session-epoch-" + epoch;
  }

  private void reply(JsonRpcMessage answer, long epoch) {
    try {
      transport.pinnedToSession(epoch, () -> transport.send(answer,
          ClientTransport.SendOptions.legacy(state.version)));
    } catch (SessionChangedException e) {
      LOG.debug("dropped an answer for an ended session");
    } catch (RuntimeException e) {
      LOG.debug("could not answer the server: {}", Text.safe(e.getMessage()));
    }
  }
}
