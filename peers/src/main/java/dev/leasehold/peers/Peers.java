package dev.leasehold.peers;

import dev.leasehold.testkit.blackbox.LockLibrary;
import java.util.List;

/** The libraries the peer table compares, in its order. */
public final class Peers {
  private Peers() {}

  /** Leasehold itself and its adapters, whose conformance the module asserts; the others' is reported. */
  public static List<String> leaseholds() {
    return List.of("leasehold", "leasehold-lockregistry", "leasehold-shedlock");
  }

  public static List<LockLibrary> all() {
    return List.of(LeaseholdPort.library(), new RedissonPort(true), new RedissonPort(false), new RedissonFencedPort(),
        new SpringRegistryPort(), new LeaseholdRegistryPort(), new ShedLockPort(false), new ShedLockPort(true),
        new LeaseholdShedLockPort());
  }
}
