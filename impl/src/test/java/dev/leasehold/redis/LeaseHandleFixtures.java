package dev.leasehold.redis;

import dev.leasehold.lease.LeaseAttempt;

final class LeaseHandleFixtures {
  private LeaseHandleFixtures() {}

  static LeaseAttempt attempt() {
    return new LeaseAttempt("A".repeat(32), "fixture-op");
  }
}
