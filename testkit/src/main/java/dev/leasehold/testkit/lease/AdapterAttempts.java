package dev.leasehold.testkit.lease;

import dev.leasehold.lease.DistributedLeasePort;
import dev.leasehold.lease.LeaseAttempt;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;

/**
 * The adapter's attempts of one chain by id (the twin's attempt ids follow them), each with its
 * owner: attempts that share an owner token share an owner id, so that NoInheritance can tell
 * another operation of the same owner from the attempt itself.
 *
 * <p>This class is not threadsafe; one chain runs on one thread.
 */
final class AdapterAttempts extends AbstractList<LeaseAttempt> {
  private final List<LeaseAttempt> attempts = new ArrayList<>();
  private final List<Integer> ownerOf = new ArrayList<>();
  private int owners;

  @Override
  public LeaseAttempt get(int id) {
    return attempts.get(id);
  }

  @Override
  public int size() {
    return attempts.size();
  }

  /**
   * Adds attempt {@code "op-" + id}: with the owner token of attempt {@code shareWith} (modulo the
   * attempts so far) if it is at least 0 and there is one, else a new one from {@code port}.
   * Returns its owner.
   */
  int add(DistributedLeasePort port, int shareWith) {
    int n = attempts.size();
    LeaseAttempt a;
    int owner;
    if (shareWith >= 0 && n > 0) {
      LeaseAttempt other = attempts.get(shareWith % n);
      a = new LeaseAttempt(other.ownerToken(), "op-" + n);
      owner = ownerOf.get(shareWith % n);
    } else {
      a = port.newAttempt("op-" + n);
      owner = owners++;
    }
    attempts.add(a);
    ownerOf.add(owner);
    return owner;
  }

  /** The owner of each attempt, by id; it grows with the attempts. */
  List<Integer> owners() {
    return ownerOf;
  }

  /** The last attempt whose server value is {@code ownership}, or -1. */
  int withOwnership(String ownership) {
    int found = -1;
    for (int i = 0; i < attempts.size(); i++) {
      if (attempts.get(i).ownership().equals(ownership)) {
        found = i;
      }
    }
    return found;
  }
}
