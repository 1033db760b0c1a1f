package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisURI;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The endpoint properties become the URI the library connects with. */
class LeaseholdEndpointUnitTests {
  private static LeaseholdProperties properties(String uri, boolean cluster, LeaseholdProperties.Sentinel sentinel) {
    return new LeaseholdProperties(true, uri, cluster, sentinel, null, null, null, null, null, null, null,
        new LeaseholdProperties.ReplicaAck(0, null), null);
  }

  @Test
  void sentinelNodes_becomeASentinelUri() {
    RedisURI uri = LeaseholdEndpoint.of(properties(null, false,
        new LeaseholdProperties.Sentinel(" mymaster ", List.of("127.0.0.1:26379", " [::1]:26380 "))));
    assertThat(uri.getSentinelMasterId()).isEqualTo("mymaster");
    assertThat(uri.getSentinels()).extracting(RedisURI::getHost, RedisURI::getPort)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("127.0.0.1", 26379), org.assertj.core.groups.Tuple.tuple("::1", 26380));
  }

  @Test
  void aUri_isTakenAsGiven() {
    RedisURI uri = LeaseholdEndpoint.of(properties(" redis://127.0.0.1:6390/2 ", false, new LeaseholdProperties.Sentinel(null, List.of())));
    assertThat(uri.getHost()).isEqualTo("127.0.0.1");
    assertThat(uri.getPort()).isEqualTo(6390);
    assertThat(uri.getDatabase()).isEqualTo(2);
    assertThat(uri.getSentinels()).isEmpty();
    RedisURI sentinel = LeaseholdEndpoint.of(properties("redis-sentinel://127.0.0.1:26379,127.0.0.1:26380#primary", false, null));
    assertThat(sentinel.getSentinelMasterId()).isEqualTo("primary");
    assertThat(sentinel.getSentinels()).hasSize(2);
  }
}
