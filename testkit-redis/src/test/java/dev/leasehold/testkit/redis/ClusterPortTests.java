package dev.leasehold.testkit.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A cluster node's port leaves its cluster bus port free: a node whose bus port (10,000 higher)
 * another process holds, or that is past 65,535, exits at start and takes the whole cluster with it.
 */
class ClusterPortTests {
  @Test
  void aPortWhoseBusPortIsTaken_orOutOfRange_isPassedOver() throws IOException {
    try (ServerSocket bus = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int taken = bus.getLocalPort() - RedisProcess.CLUSTER_BUS_OFFSET;
      int free = RedisProcess.freeClusterPort();
      Iterator<Integer> candidates = List.of(60_000, taken, free).iterator();

      // 60,000's bus port is past 65,535; the second candidate's is held open here.
      assertEquals(free, RedisProcess.clusterPort(candidates::next, RedisProcess::isFree));
    }
  }

  @Test
  void noCandidateWithAFreeBusPort_isAClearFailure() {
    assertThrows(IllegalStateException.class, () -> RedisProcess.clusterPort(() -> 40_000, port -> false));
  }

  @Test
  void freeClusterPort_hasItsBusPortFree() throws IOException {
    int port = RedisProcess.freeClusterPort();
    try (ServerSocket bus = new ServerSocket(port + RedisProcess.CLUSTER_BUS_OFFSET, 1, InetAddress.getLoopbackAddress())) {
      assertEquals(port + RedisProcess.CLUSTER_BUS_OFFSET, bus.getLocalPort());
    }
  }
}
