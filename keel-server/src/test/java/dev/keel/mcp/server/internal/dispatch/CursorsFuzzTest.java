package dev.keel.mcp.server.internal.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Fuzzes list cursors, which a client echoes back verbatim: a cursor from nowhere either names
 * a page of the list (never past its end, never a negative offset) or is refused with -32602;
 * following the cursors the server hands out visits every item once.
 */
class CursorsFuzzTest {

  @FuzzTest
  void pageAnything(FuzzedDataProvider data) {
    int size = data.consumeInt(0, 300);
    int pageSize = data.consumeInt(1, 100);
    List<Integer> all = IntStream.range(0, size).boxed().toList();
    String cursor = data.consumeRemainingAsString();
    try {
      Cursors.Page<Integer> page = Cursors.page(all, cursor, pageSize);
      assertThat(page.items().size()).isLessThanOrEqualTo(pageSize);
      assertThat(all).containsAll(page.items());
    } catch (McpException e) {
      assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    }
    List<Integer> seen = new java.util.ArrayList<>();
    String next = null;
    do {
      Cursors.Page<Integer> page = Cursors.page(all, next, pageSize);
      seen.addAll(page.items());
      next = page.nextCursor();
    } while (next != null);
    assertThat(seen).isEqualTo(all);
  }
}
