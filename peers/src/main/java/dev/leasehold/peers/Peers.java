package dev.leasehold.peers;

import dev.leasehold.testkit.blackbox.LockLibrary;
import java.util.List;

/** The libraries the peer table compares, in its order. */
public final class Peers {
  private Peers() {}

  public static List<LockLibrary> all() {
    return List.of(LeaseholdPort.library(), new RedissonPort(true), new RedissonPort(false), new RedissonFencedPort(),
        new SpringRegistryPort(), new ShedLockPort(false), new ShedLockPort(true));
  }
}
