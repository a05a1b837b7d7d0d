package dev.keel.mcp.test;

import dev.keel.mcp.client.ElicitationHandler;
import dev.keel.mcp.client.RootsProvider;
import dev.keel.mcp.client.SamplingHandler;
import dev.keel.mcp.core.schema.CreateMessageRequest;
import dev.keel.mcp.core.schema.CreateMessageResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.Root;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The test client's answers to the server's questions: each question is recorded, then answered
 * by the next scripted reply, or by the test's own handler. A question with no reply left fails
 * at the server like a handler that threw (the server sees only that the client failed), and is
 * counted in {@link #unanswered()} so the test can tell.
 */
final class ScriptedReplies {

  final Queue<ElicitResult> elicitReplies = new ConcurrentLinkedQueue<>();
  final Queue<CreateMessageResult> sampleReplies = new ConcurrentLinkedQueue<>();
  final List<ElicitRequest> elicitations = new CopyOnWriteArrayList<>();
  final List<CreateMessageRequest> samplings = new CopyOnWriteArrayList<>();
  final AtomicInteger rootsAsked = new AtomicInteger();
  final AtomicInteger unanswered = new AtomicInteger();
  ElicitationHandler elicitHandler;
  SamplingHandler sampleHandler;
  List<Root> roots;

  /** Returns a copy holding the same script and handlers, with nothing recorded yet. */
  ScriptedReplies copy() {
    ScriptedReplies c = new ScriptedReplies();
    c.elicitReplies.addAll(elicitReplies);
    c.sampleReplies.addAll(sampleReplies);
    c.elicitHandler = elicitHandler;
    c.sampleHandler = sampleHandler;
    c.roots = roots;
    return c;
  }

  ElicitationHandler elicitation() {
    return request -> {
      elicitations.add(request);
      if (elicitHandler != null) {
        return elicitHandler.elicit(request);
      }
      ElicitResult next = elicitReplies.poll();
      if (next == null) {
        unanswered.incrementAndGet();
        throw new IllegalStateException("no scripted elicitation reply left for \""
            + request.message() + "\"");
      }
      return next;
    };
  }

  SamplingHandler sampling() {
    return request -> {
      samplings.add(request);
      if (sampleHandler != null) {
        return sampleHandler.sample(request);
      }
      CreateMessageResult next = sampleReplies.poll();
      if (next == null) {
        unanswered.incrementAndGet();
        throw new IllegalStateException("no scripted sampling reply left");
      }
      return next;
    };
  }

  RootsProvider rootsProvider() {
    return () -> {
      rootsAsked.incrementAndGet();
      return roots;
    };
  }

  int unanswered() {
    return unanswered.get();
  }
}
