package example;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.server.McpCompletion;
import dev.keel.mcp.server.McpPrompt;
import dev.keel.mcp.server.McpResource;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.McpTool;
import dev.keel.mcp.server.PromptArg;
import dev.keel.mcp.server.ToolParam;
import java.util.List;
import java.util.Map;

public final class Bookshop {
  record Book(String isbn, String title, @JsonPropertyDescription("in cents") long price) {}

  private final Map<String, Book> books = Map.of(
      "9780441013593", new Book("9780441013593", "Dune", 1099),
      "9780141182803", new Book("9780141182803", "Dubliners", 899));

  @McpTool(description = "Finds books by a word of their title", readOnly = true)
  List<Book> search(@ToolParam(description = "a word of the title") String word,
      @ToolParam(description = "how many at most", defaultValue = "10") int limit) {
    return books.values().stream().filter(b -> b.title().contains(word)).limit(limit).toList();
  }

  @McpTool(description = "Orders a book")
  String order(String isbn, @ToolParam(defaultValue = "1") int copies) {
    if (!books.containsKey(isbn)) {
      throw McpException.invalidParams("No book " + isbn); // the client sees this
    }
    return "Ordered " + copies + " of " + books.get(isbn).title();
  }

  @McpResource(uri = "books://{isbn}", description = "One book, as JSON")
  Book book(String isbn) {
    return books.get(isbn); // null: resource not found
  }

  @McpResource(uri = "books://catalog", description = "Every title, one a line")
  String catalog() {
    return String.join("\n", books.values().stream().map(Book::title).sorted().toList());
  }

  @McpPrompt(description = "Asks for a review of a book")
  String review(@PromptArg(description = "the book's ISBN") String isbn,
      @PromptArg(description = "the review's tone", defaultValue = "friendly") String tone) {
    return "Write a " + tone + " review of " + books.get(isbn).title() + ".";
  }

  @McpCompletion(resource = "books://{isbn}", argument = "isbn")
  List<String> isbns(String prefix) {
    return books.keySet().stream().filter(i -> i.startsWith(prefix)).sorted().toList();
  }

  @McpCompletion(prompt = "review", argument = "isbn")
  List<String> reviewIsbns(String prefix) {
    return isbns(prefix);
  }

  public static McpServer server() {
    return McpServer.builder().name("bookshop").version("1.0.0")
        .annotated(new Bookshop())
        .build();
  }
}
