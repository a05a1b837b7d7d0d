package dev.keel.mcp.test.annotations;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.keel.mcp.core.schema.Completion;
import dev.keel.mcp.core.schema.GetPromptResult;
import dev.keel.mcp.core.schema.PromptMessage;
import dev.keel.mcp.core.schema.ReadResourceResult;
import dev.keel.mcp.core.schema.ResourceContents;
import dev.keel.mcp.server.McpCompletion;
import dev.keel.mcp.server.McpPrompt;
import dev.keel.mcp.server.McpResource;
import dev.keel.mcp.server.McpTool;
import dev.keel.mcp.server.PromptArg;
import dev.keel.mcp.server.RequestContext;
import dev.keel.mcp.server.ToolParam;
import dev.keel.mcp.server.UriVariable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** One class with every kind of annotated feature, as an application would write it. */
final class Library {

  /** The text of every failure the features throw: it must never reach a client. */
  static final String SECRET = "SECRET-shelf-password";

  enum Genre { NOVEL, POETRY }

  /** A book, as results show it: Jackson annotations rename and describe. */
  record Book(@JsonProperty("isbn_13") String isbn, String title,
      @JsonPropertyDescription("the year it was printed") int year, Genre genre) {}

  /** A search, as a JavaBean: Jackson annotations decide its schema. */
  static final class Query {
    @JsonProperty(required = true)
    @JsonPropertyDescription("words of the title")
    public String words;

    @JsonIgnore
    public String internalNote;

    @JsonProperty("kind")
    public Genre genre;
  }

  static final List<Book> BOOKS = List.of(
      new Book("9780000000001", "Dune", 1965, Genre.NOVEL),
      new Book("9780000000002", "Leaves of Grass", 1855, Genre.POETRY),
      new Book("9780000000003", "Dubliners", 1914, Genre.NOVEL));

  @McpTool(description = "Finds books by words of their title", readOnly = true)
  List<Book> search(@ToolParam(description = "what to look for") Query query,
      @ToolParam(description = "how many at most", defaultValue = "2") int limit) {
    return BOOKS.stream()
        .filter(b -> b.title().toLowerCase().contains(query.words.toLowerCase()))
        .filter(b -> query.genre == null || b.genre() == query.genre)
        .limit(limit).toList();
  }

  @McpTool(description = "The first book of a genre")
  Book first(@ToolParam(defaultValue = "POETRY") Genre genre) {
    return BOOKS.stream().filter(b -> b.genre() == genre).findFirst().orElseThrow();
  }

  @McpTool(description = "Always fails")
  String boom() {
    throw new IllegalStateException(SECRET);
  }

  @McpResource(uri = "library://catalog", description = "Every title, one a line")
  String catalog() {
    return String.join("\n", BOOKS.stream().map(Book::title).toList());
  }

  @McpResource(uri = "library://covers/{isbn}", description = "A cover image")
  byte[] cover(String isbn) {
    return ("cover of " + isbn).getBytes(StandardCharsets.UTF_8);
  }

  @McpResource(uri = "library://books/{isbn}", description = "One book as JSON")
  Book book(@UriVariable("isbn") String number) {
    return BOOKS.stream().filter(b -> b.isbn().equals(number)).findFirst().orElse(null);
  }

  @McpResource(uri = "library://shelves/{n}", mimeType = "text/markdown")
  ReadResourceResult shelf(int n, RequestContext ctx) {
    return ReadResourceResult.of(ResourceContents.text("library://shelves/" + n,
        "text/markdown", "# Shelf " + n + " for " + (ctx.principal() != null)));
  }

  @McpResource(uri = "library://broken")
  String broken() throws IOException {
    throw new IOException(SECRET);
  }

  @McpPrompt(description = "Writes a review of a book")
  String review(@PromptArg(description = "its ISBN") String isbn,
      @PromptArg(description = "the tone", defaultValue = "friendly") String tone,
      Optional<Integer> words) {
    return "Review " + isbn + " in a " + tone + " tone"
        + words.map(w -> " in " + w + " words").orElse("");
  }

  @McpPrompt(name = "discuss", title = "Discussion")
  List<PromptMessage> dialogue(Genre genre) {
    return List.of(PromptMessage.user("Let us talk about " + genre),
        PromptMessage.user("Which one first?"));
  }

  @McpPrompt
  GetPromptResult welcome() {
    return new GetPromptResult("as is", List.of(PromptMessage.user("Welcome")), null);
  }

  @McpPrompt
  String sulk() {
    throw new IllegalStateException(SECRET);
  }

  @McpCompletion(prompt = "review", argument = "tone")
  List<String> tones(String prefix) {
    return List.of("friendly", "frank", "formal").stream()
        .filter(t -> t.startsWith(prefix)).toList();
  }

  @McpCompletion(resource = "library://books/{isbn}", argument = "isbn")
  Completion isbns(String prefix, Map<String, String> chosen) {
    return Completion.matching(BOOKS.stream().map(Book::isbn).toList(), prefix);
  }

  @McpCompletion(prompt = "discuss", argument = "genre")
  List<String> genres(String prefix) {
    throw new IllegalStateException(SECRET);
  }
}
