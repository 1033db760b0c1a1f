package dev.leasehold.model.properties;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseGuarantee;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.RedisLeaseAdapter;
import dev.leasehold.redis.RedisLeaseConfig;
import dev.leasehold.testkit.runner.ActionKind;
import dev.leasehold.testkit.runner.Param;
import dev.leasehold.testkit.runner.PropertyViolation;
import dev.leasehold.testkit.runner.StateMachine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * The adapter's settings as a {@link StateMachine}: {@code configure} draws every setting of
 * {@link RedisLeaseConfig} (one of them, or none, outside its documented range, at its boundaries
 * or null), then the adapter built from it acquires, replays, is contended, renews and asks for
 * TTLs in and out of range on a simulated server. The oracle is the documented contract
 * ({@link Settings}), not the adapter's own checks: a setting or TTL out of range is an
 * IllegalArgumentException naming it before any I/O; one in range works as documented (keys under
 * the namespace and key version, WAIT after a grant iff replicas are asked for, the guarantee,
 * the contention retry-after when the holder has no expiry).
 *
 * <p>This class is immutable; each chain gets its own {@link SettingsWorld}.
 */
final class SettingsMachine implements StateMachine<SettingsWorld> {
  static final String PURPOSE = "settings";
  static final String DIGEST = "sha256:" + "cd".repeat(32);

  @Override
  public SettingsWorld setUp(long seed) {
    return new SettingsWorld();
  }

  @Override
  public List<ActionKind<SettingsWorld>> actions() {
    List<ActionKind<SettingsWorld>> list = new ArrayList<>();
    List<Param> settings = new ArrayList<>();
    for (int i = 0; i < Settings.COUNT; i++) {
      settings.add(new Param(Settings.NAMES.get(i), 0, Settings.candidates(i) - 1));
    }
    // 1: the builder alone; 0: the record's public constructor first, then the builder.
    settings.add(new Param("viaBuilder", 0, 1));
    list.add(action("configure", 3, settings, w -> true, Settings::draw, this::configure));
    Param ttl = new Param("ttl", 0, Settings.TTLS - 1);
    list.add(action("tryAcquire", 4, List.of(ttl), w -> w.adapter != null && w.handle == null,
        null, this::tryAcquire));
    list.add(action("replay", 2, List.of(), w -> w.handle != null, null, this::replay));
    Param waitMs = new Param("waitMs", 0, 200);
    list.add(action("contend", 3, List.of(new Param("persisted", 0, 1), waitMs), w -> w.handle != null, null,
        this::contend));
    list.add(action("interrupted", 2, List.of(new Param("kind", 0, 4), waitMs), w -> w.handle != null, null,
        this::interrupted));
    list.add(action("renew", 4, List.of(ttl), w -> w.handle != null, null, this::renew));
    list.add(action("replicas", 1, List.of(new Param("count", 0, 3)), w -> true, null, (w, a) -> {
      w.redis.replicas((int) a[0]);
      return "ok";
    }));
    list.add(action("misuse", 1, List.of(), w -> w.adapter != null, null, this::misuse));
    // close() releases a live handle, ignoring the outcome; KeyWhileHeld sees whether it did.
    list.add(action("release", 2, List.of(new Param("viaClose", 0, 1)), w -> w.handle != null, null, (w, a) -> {
      String v = "close";
      if (a[0] == 1) {
        w.handle.close();
      } else {
        v = w.handle.release().getClass().getSimpleName();
      }
      w.handle = null;
      return v;
    }));
    return list;
  }

  @Override
  public void checkInvariants(SettingsWorld w) {
    // The lease key is there exactly while the chain holds a handle: nothing else touches it.
    LeaseKeys keys = w.settings == null ? null : w.settings.keys();
    boolean present = keys != null && w.redis.entry(keys) != null;
    check("KeyWhileHeld", present == (w.handle != null), "key present " + present + ", handle " + w.handle);
  }

  @Override
  public void tearDown(SettingsWorld w) {
    w.gateway.close();
  }

  // ------------------------------------------------------------------ the actions

  private String configure(SettingsWorld w, long[] a) {
    Settings s = Settings.of(a, w);
    String expected = s.firstOutOfRange();
    long calls = w.calls();
    RedisLeaseAdapter built;
    try {
      // The record's own constructor is public too: it must judge alone, before any builder.
      if (a[Settings.COUNT] == 0) {
        s.record();
      }
      built = s.viaBuilder();
    } catch (IllegalArgumentException e) {
      if ("gateway".equals(expected)) {
        check("BuilderNeedsGateway", rejects(() -> RedisLeaseAdapter.builder(null)), "builder(null) returned a builder");
      }
      check("RejectedNamesSetting", expected != null && e.getMessage().startsWith(expected + " "),
          "expected " + (expected == null ? "no rejection" : expected) + ", got: " + e.getMessage());
      check("NothingSent", w.calls() == calls, "a rejected configuration sent a command");
      return "rejected:" + expected;
    }
    check("RejectedNamesSetting", expected == null, "built although " + expected + " is out of range");
    check("SettingsKept", built.config().equals(s.record()), "config() differs from the settings given");
    check("KeysUnderNamespace", built.keys(PURPOSE, DIGEST).equals(s.keys()), "keys() " + built.keys(PURPOSE, DIGEST));
    if (w.handle != null) {
      w.handle.release();
      check("KeyWhileHeld", w.redis.entry(w.settings.keys()) == null, "the old configuration's key outlived its release");
    }
    w.settings = s;
    w.adapter = built;
    w.handle = null;
    return "built";
  }

  private String tryAcquire(SettingsWorld w, long[] a) {
    Duration ttl = w.settings.ttl(a[0]);
    long calls = w.calls();
    long waits = w.waits();
    long counter = w.redis.counter(w.settings.keys());
    w.attempt = w.adapter.newAttempt("op-" + calls);
    AcquireOutcome outcome = judgedTtl(w, ttl, () -> w.adapter.tryAcquire(LeaseRequest.once(PURPOSE, DIGEST, ttl,
        w.attempt)));
    if (outcome == null) {
      return "rejected";
    }
    check("Acquired", outcome instanceof AcquireOutcome.Acquired, "on a free key: " + outcome);
    w.handle = ((AcquireOutcome.Acquired) outcome).handle();
    boolean asked = w.settings.replicaAcks() > 0;
    check("WaitIffAsked", w.waits() - waits == (asked ? 1 : 0), "WAITs " + (w.waits() - waits));
    w.granted = !asked || w.redis.replicas() >= w.settings.replicaAcks()
        ? LeaseGuarantee.FENCED : LeaseGuarantee.EFFICIENCY_ONLY;
    check("GuaranteeAsStated", w.handle.guarantee() == w.granted, "guarantee " + w.handle.guarantee());
    String shown = w.handle.toString();
    check("ToStringNamesKeyNotOwner", shown.contains(w.settings.keys().lease()) && !shown.contains(w.attempt.ownerToken()),
        "toString() of the handle must name its key and never show the owner token");
    // COUNTER: the next counter value; CLOCK_FLOOR: never below the server clock in microseconds.
    long expected = w.settings.fenceMode() == FenceMode.COUNTER ? counter + 1
        : Math.max(counter + 1, w.redis.serverMicros());
    check("TokenOfFenceMode", w.handle.fencingToken().getAsLong() == expected,
        w.settings.fenceMode() + " token " + w.handle.fencingToken() + ", expected " + expected);
    // CLOCK_FLOOR: the counter outlives the key by the retention; COUNTER: it never expires.
    long retention = w.settings.counterRetentionMillis();
    long leaseTtl = (Long) w.redis.call("PTTL", w.settings.keys().lease());
    Object counterTtl = w.redis.call("PTTL", w.settings.keys().fence());
    check("CounterRetentionOfFenceMode", counterTtl.equals(retention == 0 ? -1L : leaseTtl + retention),
        w.settings.fenceMode() + " counter PTTL " + counterTtl + " with the key's " + leaseTtl);
    return w.granted.name();
  }

  private String replay(SettingsWorld w, long[] a) {
    AcquireOutcome outcome = w.adapter.tryAcquire(LeaseRequest.once(PURPOSE, DIGEST, w.settings.ttl(0), w.attempt));
    check("Replayed", outcome instanceof AcquireOutcome.ReplayedSameOperation r && r.handle() == w.handle,
        "a replay of the live grant: " + outcome);
    check("ReplayKeepsGuarantee", w.handle.guarantee() == w.granted, "guarantee " + w.handle.guarantee());
    return "replayed";
  }

  /**
   * Another attempt while the chain holds the lease, waiting at most half the handle's validity (so
   * that the handle stays ACTIVE): Contended with the holder's PTTL, or the configured retry-after
   * when the key has no expiry; every pause within its documented bounds.
   */
  private String contend(SettingsWorld w, long[] a) {
    if (a[0] == 1) {
      w.redis.call("PERSIST", w.settings.keys().lease());
    }
    long before = pttl(w);
    AcquireOutcome outcome = waitAsOther(w, a[1]);
    long after = pttl(w);
    check("PausesInBounds", w.pauseProblems.isEmpty(), String.join("; ", w.pauseProblems));
    boolean ok = outcome instanceof AcquireOutcome.Contended c && (before > 0
        ? c.retryAfter().compareTo(Duration.ofMillis(before)) <= 0 && c.retryAfter().compareTo(Duration.ofMillis(after)) >= 0
        : c.retryAfter().equals(w.settings.contentionRetryAfter()));
    check("ContendedRetryAfter", ok, "PTTL " + before + ".." + after + ": " + outcome);
    return before > 0 ? "pttl" : "noExpiry";
  }

  private static long pttl(SettingsWorld w) {
    return (Long) w.redis.call("PTTL", w.settings.keys().lease());
  }

  private static AcquireOutcome waitAsOther(SettingsWorld w, long waitMs) {
    long wait = Math.min(waitMs, w.handle.remainingValidity().toMillis() / 2);
    w.pauseProblems.clear();
    w.deadline = w.clock.clientNanos() + Duration.ofMillis(wait).toNanos();
    LeaseAttempt other = w.adapter.newAttempt("other");
    return w.adapter.tryAcquire(new LeaseRequest(PURPOSE, DIGEST, Duration.ofMillis(wait), w.settings.ttl(0), other));
  }

  /**
   * An interrupted caller (documented on the port and the handle): a renew sends nothing and is
   * Unavailable; a waiting tryAcquire interrupted before it, in a pause, or by a sleeper that kept
   * the flag makes one try only; a release still releases. The flag is set afterwards every time.
   */
  private String interrupted(SettingsWorld w, long[] a) {
    int kind = (int) a[0];
    long calls = w.calls();
    String label;
    try {
      if (kind == 0 || kind == 1 || kind == 4) {
        Thread.currentThread().interrupt();
      }
      w.sleepMode = kind == 2 ? 1 : kind == 3 ? 2 : 0;
      if (kind == 0) {
        RenewOutcome outcome = w.handle.renew(w.settings.ttl(0));
        check("InterruptedRenewUnsent", outcome instanceof RenewOutcome.Unavailable && w.calls() == calls,
            outcome + ", calls " + (w.calls() - calls));
        label = "renew";
      } else if (kind == 4) {
        check("ReleaseNotInterruptible", w.handle.release() instanceof ReleaseOutcome.Released,
            "release on an interrupted thread");
        w.handle = null;
        label = "release";
      } else {
        boolean waits = w.handle.remainingValidity().toMillis() / 2 > 0 && a[1] > 0;
        AcquireOutcome outcome = waitAsOther(w, a[1]);
        check("InterruptedWaitTriesOnce", outcome instanceof AcquireOutcome.Contended && w.calls() == calls + 1,
            outcome + ", calls " + (w.calls() - calls));
        check("PausesInBounds", w.pauseProblems.isEmpty(), String.join("; ", w.pauseProblems));
        label = waits ? "wait" : "once";
      }
      check("InterruptFlagKept", Thread.currentThread().isInterrupted() || kind >= 2 && !label.equals("wait"),
          "the interrupt flag was cleared");
    } finally {
      Thread.interrupted();
      w.sleepMode = 0;
    }
    return label + kind;
  }

  private String renew(SettingsWorld w, long[] a) {
    Duration ttl = w.settings.ttl(a[0]);
    RenewOutcome outcome = judgedTtl(w, ttl, () -> w.handle.renew(ttl));
    if (outcome == null) {
      return "rejected";
    }
    check("Renewed", outcome instanceof RenewOutcome.Renewed, "time stands still: " + outcome);
    long pttl = (Long) w.redis.call("PTTL", w.settings.keys().lease());
    check("RenewedToTtl", pttl == ttl.toMillis(), "PTTL " + pttl + " after a renew to " + ttl);
    return "renewed";
  }

  /**
   * A call with {@code ttl}: rejected before any I/O exactly when the TTL is out of its documented
   * range (then null), else its outcome.
   */
  private static <T> T judgedTtl(SettingsWorld w, Duration ttl, Supplier<T> call) {
    boolean inRange = w.settings.ttlInRange(ttl);
    long calls = w.calls();
    try {
      T outcome = call.get();
      check("TtlInRange", inRange, "a TTL out of range was accepted: " + ttl);
      return outcome;
    } catch (IllegalArgumentException e) {
      check("TtlInRange", !inRange, "a TTL in range was rejected: " + e.getMessage());
      check("NothingSent", w.calls() == calls, "a rejected TTL was sent");
      return null;
    }
  }

  /** Null where the API takes a request or an inspection. */
  private String misuse(SettingsWorld w, long[] a) {
    long calls = w.calls();
    for (Runnable call : List.<Runnable>of(() -> w.adapter.tryAcquire(null), () -> w.adapter.inspect((LeaseInspection) null))) {
      try {
        call.run();
        throw new PropertyViolation("NullRejected", "a null argument was accepted");
      } catch (IllegalArgumentException expected) {
        check("NullRejected", expected.getMessage().endsWith("must not be null"), expected.getMessage());
      }
    }
    check("NothingSent", w.calls() == calls, "a null argument sent a command");
    return "rejected";
  }

  // ------------------------------------------------------------------ plumbing

  private static boolean rejects(Runnable call) {
    try {
      call.run();
      return false;
    } catch (IllegalArgumentException expected) {
      return true;
    }
  }

  private static void check(String property, boolean ok, String message) {
    if (!ok) {
      throw new PropertyViolation(property, message);
    }
  }

  private interface Body {
    String run(SettingsWorld w, long[] args);
  }

  private interface Gen {
    long[] generate(SplittableRandom r);
  }

  private static ActionKind<SettingsWorld> action(String name, int weight, List<Param> params,
      java.util.function.Predicate<SettingsWorld> pre, Gen gen, Body body) {
    return new ActionKind<>() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public int weight() {
        return weight;
      }

      @Override
      public List<Param> params() {
        return params;
      }

      @Override
      public boolean enabled(SettingsWorld w, long[] args) {
        return pre.test(w);
      }

      @Override
      public long[] generate(SettingsWorld w, SplittableRandom r) {
        return gen == null ? ActionKind.super.generate(w, r) : gen.generate(r);
      }

      @Override
      public String run(SettingsWorld w, long[] args) {
        return Objects.requireNonNull(body.run(w, args));
      }
    };
  }
}
