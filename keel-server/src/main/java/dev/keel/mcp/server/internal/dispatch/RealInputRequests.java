package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.ClientCapabilities;
import dev.keel.mcp.core.schema.CreateMessageRequest;
import dev.keel.mcp.core.schema.CreateMessageResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.ListRootsResult;
import dev.keel.mcp.core.schema.Root;
import dev.keel.mcp.server.InputAnswers;
import dev.keel.mcp.server.InputRequests;
import dev.keel.mcp.server.McpErrors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Questions to the client, collected and checked against the client's capabilities here, and
 * asked the way the request's context asks ({@link Asking}): requests on the request's stream
 * (legacy), one {@code input_required} round (stateless), or a stateless task's input requests.
 */
final class RealInputRequests implements InputRequests {

  enum Kind {
    ELICIT("elicitation/create"), SAMPLE("sampling/createMessage"), ROOTS("roots/list");

    final String method;

    Kind(String method) {
      this.method = method;
    }
  }

  /** One question, under the key its answer is known by. */
  record Question(String key, Kind kind, ObjectNode params) {
    String method() {
      return kind.method;
    }
  }

  private final RealRequestContext ctx;
  private final List<Question> questions = new ArrayList<>();

  RealInputRequests(RealRequestContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public InputRequests elicit(String key, ElicitRequest request) {
    return add(key, Kind.ELICIT, ctx.core().json().toObject(request));
  }

  @Override
  public InputRequests sample(String key, CreateMessageRequest request) {
    return add(key, Kind.SAMPLE, ctx.core().json().toObject(request));
  }

  @Override
  public InputRequests listRoots(String key) {
    return add(key, Kind.ROOTS, null);
  }

  private InputRequests add(String key, Kind kind, ObjectNode params) {
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException("an input request needs a non-blank key");
    }
    if (questions.stream().anyMatch(q -> q.key().equals(key))) {
      throw new IllegalArgumentException("input key used twice: " + key);
    }
    questions.add(new Question(key, kind, params));
    return this;
  }

  @Override
  public InputAnswers collect() {
    if (ctx.signalled() != null) {
      // the handler swallowed an earlier signal and asks again: the first outcome stands
      throw ctx.signalled();
    }
    for (Question q : questions) {
      requireCapability(q);
    }
    Map<String, Object> answers = new LinkedHashMap<>();
    ctx.asking().ask(ctx, questions, (q, answer) -> answers.put(q.key(), parse(q, answer)));
    return new Answers(answers);
  }

  private void requireCapability(Question q) {
    ClientCapabilities caps = ctx.clientCapabilities();
    switch (q.kind()) {
      case ELICIT -> {
        boolean url = q.params() != null && "url".equals(q.params().path("mode").asString(""));
        if (url ? !caps.supportsElicitationUrl() : !caps.supportsElicitationForm()) {
          throw McpErrors.missingCapability(url ? "elicitation.url" : "elicitation");
        }
      }
      case SAMPLE -> {
        if (!caps.supportsSampling()) {
          throw McpErrors.missingCapability("sampling");
        }
        if (q.params() != null && q.params().has("tools") && !caps.supportsSamplingTools()) {
          throw McpErrors.missingCapability("sampling.tools");
        }
      }
      case ROOTS -> {
        if (!caps.supportsRoots()) {
          throw McpErrors.missingCapability("roots");
        }
      }
    }
  }

  private Object parse(Question q, JsonNode answer) {
    if (answer == null || !answer.isObject()) {
      throw McpException.invalidParams("Invalid input response: " + q.key());
    }
    try {
      return switch (q.kind()) {
        case ELICIT -> ctx.core().json().fromTree(answer, ElicitResult.class);
        case SAMPLE -> ctx.core().json().fromTree(answer, CreateMessageResult.class);
        case ROOTS -> ctx.core().json().fromTree(answer, ListRootsResult.class).roots();
      };
    } catch (McpException e) {
      throw McpException.invalidParams("Invalid input response: " + q.key());
    }
  }

  private static final class Answers implements InputAnswers {
    private final Map<String, Object> byKey;

    Answers(Map<String, Object> byKey) {
      this.byKey = byKey;
    }

    @Override
    public ElicitResult elicitation(String key) {
      return get(key, ElicitResult.class);
    }

    @Override
    public CreateMessageResult sampling(String key) {
      return get(key, CreateMessageResult.class);
    }

    @Override
    @SuppressWarnings("unchecked")
    public List<Root> roots(String key) {
      return get(key, List.class);
    }

    private <T> T get(String key, Class<T> type) {
      Object value = byKey.get(key);
      if (!type.isInstance(value)) {
        throw new IllegalArgumentException("no " + type.getSimpleName() + " answer under " + key);
      }
      return type.cast(value);
    }
  }
}
