package dev.leasehold.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.docs.MarkdownDocs;
import dev.leasehold.testkit.redis.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Runs the README example against a real redis-server. */
class ReadmeExampleIntegrationTests {
  /**
   * The quick start's {@code main}, as a reader runs it, prints what the README says it prints:
   * the lines of the README's text block under "Quick start", the fencing token being any number.
   */
  @Test
  void theQuickStartsMain_printsWhatTheReadmeShows() {
    String shown = MarkdownDocs.blocks(MarkdownDocs.page("README.md")).stream()
        .filter(b -> b.heading().equals("Quick start") && b.language().equals("text")).findFirst()
        .orElseThrow(() -> new AssertionError("README.md shows no output under \"Quick start\"")).code().strip();
    String expected = Pattern.quote(shown).replaceAll("fencing token \\d+", "fencing token \\\\E\\\\d+\\\\Q");
    try (RedisServer redis = RedisServer.start("readme-main-it")) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      PrintStream stdout = System.out;
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      try {
        ReadmeExample.main(new String[] {"redis://127.0.0.1:" + redis.uri().getPort()});
      } finally {
        System.setOut(stdout);
      }
      String printed = out.toString(StandardCharsets.UTF_8).strip().replace("\r\n", "\n");
      assertTrue(printed.matches(expected), () -> "main printed:\n" + printed + "\nthe README shows:\n" + shown);
    }
  }

  @Test
  void theReadmeExampleRuns_andWritesWithARisingFencingToken() {
    try (RedisServer redis = RedisServer.start("readme-it")) {
      List<Long> tokens = new ArrayList<>();
      ReadmeExample.FencedStore store = (key, value, token) -> {
        if (!tokens.isEmpty() && token < tokens.get(tokens.size() - 1)) {
          throw new IllegalStateException("stale token " + token);
        }
        tokens.add(token);
      };
      String uri = "redis://127.0.0.1:" + redis.uri().getPort();
      assertEquals("sent", ReadmeExample.run(uri, store));
      assertEquals("sent", ReadmeExample.run(uri, store), "the first run released its lease");
      assertEquals(2, tokens.size());
      assertTrue(tokens.get(1) > tokens.get(0), "fencing tokens rise: " + tokens);
    }
  }
}
