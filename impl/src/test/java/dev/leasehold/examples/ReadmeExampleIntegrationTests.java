package dev.leasehold.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.testkit.redis.RedisServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Runs the README example against a real redis-server. */
class ReadmeExampleIntegrationTests {
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
