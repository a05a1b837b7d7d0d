package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.internal.mrtr.InputRequiredSignal;
import dev.keel.mcp.server.internal.mrtr.MrtrRound;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * How a request's questions to the client (elicitation, sampling, roots) reach it, fixed when
 * the request's context is made: from its era's {@link WireCodec}, or for a task from its
 * {@link TaskDialect}. {@link RealInputRequests} asks through it and never asks which era it
 * runs in.
 */
enum Asking {

  /** A legacy session: each question is a request to the client, and the thread waits. */
  BY_REQUEST {
    @Override
    void ask(RealRequestContext ctx, List<RealInputRequests.Question> questions,
        BiConsumer<RealInputRequests.Question, JsonNode> answered) {
      for (RealInputRequests.Question q : questions) {
        answered.accept(q, ctx.ask(q.method(), q.params()));
      }
    }

    @Override
    boolean waits() {
      return true;
    }
  },

  /** A stateless task: the questions show in {@code tasks/get}, answered by {@code tasks/update}. */
  BY_TASK {
    @Override
    void ask(RealRequestContext ctx, List<RealInputRequests.Question> questions,
        BiConsumer<RealInputRequests.Question, JsonNode> answered) {
      Map<String, ObjectNode> asked = new LinkedHashMap<>();
      for (RealInputRequests.Question q : questions) {
        asked.put(q.key(), request(q));
      }
      Map<String, JsonNode> got = ctx.task().collect(asked);
      for (RealInputRequests.Question q : questions) {
        answered.accept(q, got.get(q.key()));
      }
    }

    @Override
    boolean waits() {
      return false;
    }
  },

  /**
   * A stateless request: the answers come with the request's retry ({@code inputResponses});
   * what is still missing is one {@code input_required} round, which never waits.
   */
  BY_ROUND {
    @Override
    void ask(RealRequestContext ctx, List<RealInputRequests.Question> questions,
        BiConsumer<RealInputRequests.Question, JsonNode> answered) {
      MrtrRound round = ctx.view().round();
      if (round == null) {
        throw McpException.invalidRequest("Invalid Request: " + ctx.method()
            + " cannot ask the client for input");
      }
      ObjectNode missing = McpJson.object();
      for (RealInputRequests.Question q : questions) {
        JsonNode answer = round.answer(q.key());
        if (answer == null) {
          missing.set(q.key(), request(q));
        } else {
          answered.accept(q, answer); // an answer that does not parse fails before a new round
        }
      }
      if (!missing.isEmpty()) {
        throw ctx.raise(new InputRequiredSignal(missing));
      }
    }

    @Override
    boolean waits() {
      return false;
    }
  };

  /**
   * Asks every question and hands each answer to {@code answered}, in order.
   *
   * @throws InputRequiredSignal when the answers must come in a later round
   */
  abstract void ask(RealRequestContext ctx, List<RealInputRequests.Question> questions,
      BiConsumer<RealInputRequests.Question, JsonNode> answered);

  /** Returns true when asking blocks the thread until the client answers. */
  abstract boolean waits();

  private static ObjectNode request(RealInputRequests.Question q) {
    ObjectNode request = McpJson.object();
    request.put("method", q.method());
    request.set("params", q.params() == null ? McpJson.object() : q.params());
    return request;
  }
}
