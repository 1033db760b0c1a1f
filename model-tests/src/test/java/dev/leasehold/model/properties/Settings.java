package dev.leasehold.model.properties;

import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.LeaseGateway;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.RedisLeaseAdapter;
import dev.leasehold.redis.RedisLeaseConfig;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * One draw of every setting of {@link RedisLeaseConfig}, in the record's order, and the documented
 * range of each (its javadoc and {@code RedisLeaseConfig}'s): the oracle of {@link SettingsMachine}.
 * Each setting has candidates: index 0 is the default, the others are boundaries on both sides,
 * null, and values out of range; shrinking moves toward the defaults.
 *
 * <p>This record is immutable.
 */
record Settings(Object[] values) {
  static final List<String> NAMES = List.of("gateway", "namespace", "keyVersion", "driftBudget",
      "contentionRetryAfter", "fenceMode", "counterRetention", "replicaAcks", "replicaAckTimeout", "monotonicNanos", "wallClock",
      "random", "sleeper");
  static final int COUNT = NAMES.size();
  /** Written as documented, not taken from LeaseKeys. */
  private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");
  private static final Duration MINUTE = Duration.ofMinutes(1);
  private static final Duration TEN_S = Duration.ofSeconds(10);
  private static final Duration YEAR = Duration.ofDays(365);
  /** Stands for the chain's own gateway, clocks, random and sleeper. */
  private static final Object WORLD = new Object();
  private static final List<List<Object>> CANDIDATES = List.of(
      Arrays.asList(WORLD, null),
      Arrays.asList("leasehold", "a", "x.y_z-1", "a" + "b".repeat(63), "a".repeat(65), "", null, "Upper", "-lead",
          "a:b"),
      Arrays.asList(1, 2, 999, 0, 1000, -1),
      Arrays.asList(Duration.ofMillis(10), Duration.ZERO, Duration.ofNanos(1), MINUTE, MINUTE.plusNanos(1),
          Duration.ofNanos(-1), null),
      Arrays.asList(Duration.ofMillis(50), Duration.ofMillis(1), MINUTE, Duration.ofNanos(999_999), Duration.ZERO,
          MINUTE.plusNanos(1), Duration.ofMillis(-1), null),
      Arrays.asList(FenceMode.CLOCK_FLOOR, FenceMode.COUNTER, null),
      Arrays.asList(Duration.ofMinutes(60), Duration.ofMillis(1), YEAR, Duration.ofNanos(999_999), Duration.ZERO,
          YEAR.plusNanos(1), Duration.ofMillis(-1), null),
      Arrays.asList(0, 1, 16, 2, -1, 17),
      Arrays.asList(Duration.ofMillis(100), Duration.ofMillis(1), TEN_S, Duration.ZERO, Duration.ofNanos(999_999),
          TEN_S.plusNanos(1), Duration.ofNanos(-1), null),
      Arrays.asList(WORLD, null),
      Arrays.asList(WORLD, null),
      Arrays.asList(WORLD, null),
      Arrays.asList(WORLD, null));
  /** TTL candidates ({@link #ttl}). */
  static final int TTLS = 13;

  static int candidates(int setting) {
    return CANDIDATES.get(setting).size();
  }

  /** One setting (or none) may be anything; the others are drawn in range, so most builds succeed. */
  static long[] draw(SplittableRandom r) {
    int loose = r.nextInt(2 * COUNT);
    long[] args = new long[COUNT + 1];
    for (int i = 0; i < COUNT; i++) {
      int setting = i;
      List<Integer> pool = IntStream.range(0, candidates(i))
          .filter(c -> setting == loose || inRange(setting, CANDIDATES.get(setting).get(c))).boxed().toList();
      args[i] = pool.get(r.nextInt(pool.size()));
    }
    args[COUNT] = r.nextInt(2);
    return args;
  }

  static Settings of(long[] args, SettingsWorld w) {
    Object[] values = new Object[COUNT];
    for (int i = 0; i < COUNT; i++) {
      Object v = CANDIDATES.get(i).get((int) args[i]);
      values[i] = v != WORLD ? v : switch (i) {
        case 0 -> w.gateway;
        case 9 -> w.clock.monotonic();
        case 10 -> w.clock.wall();
        case 11 -> new SecureRandom();
        default -> (RedisLeaseConfig.Sleeper) w::sleep;
      };
    }
    return new Settings(values);
  }

  /** A setting's own documented range (the cross rule of replicaAckTimeout is in {@link #firstOutOfRange}). */
  private static boolean inRange(int setting, Object v) {
    return switch (setting) {
      case 1 -> v instanceof String s && NAMESPACE.matcher(s).matches();
      case 2, 7 -> v instanceof Integer n && n >= (setting == 2 ? 1 : 0) && n <= (setting == 2 ? 999 : 16);
      case 3 -> v instanceof Duration d && !d.isNegative() && d.compareTo(MINUTE) <= 0;
      case 4 -> v instanceof Duration d && d.toMillis() >= 1 && d.compareTo(MINUTE) <= 0;
      case 6 -> v instanceof Duration d && d.toMillis() >= 1 && d.compareTo(YEAR) <= 0;
      case 8 -> v instanceof Duration d && !d.isNegative() && d.compareTo(TEN_S) <= 0;
      default -> v != null;
    };
  }

  /** The name of the first setting out of its documented range, or null when all are in range. */
  String firstOutOfRange() {
    for (int i = 0; i < COUNT; i++) {
      boolean ok = inRange(i, values[i])
          // WAIT takes whole ms and WAIT n 0 blocks for ever: at least 1 ms when replicas are asked for.
          && (i != 8 || replicaAcks() == 0 || replicaAckTimeout().toMillis() >= 1);
      if (!ok) {
        return NAMES.get(i);
      }
    }
    return null;
  }

  RedisLeaseConfig record() {
    return new RedisLeaseConfig((LeaseGateway) values[0], (String) values[1], (Integer) values[2],
        (Duration) values[3], (Duration) values[4], (FenceMode) values[5], (Duration) values[6], (Integer) values[7],
        (Duration) values[8], (LongSupplier) values[9], (Clock) values[10], (SecureRandom) values[11],
        (RedisLeaseConfig.Sleeper) values[12]);
  }

  RedisLeaseAdapter viaBuilder() {
    return RedisLeaseAdapter.builder((LeaseGateway) values[0])
        .namespace((String) values[1])
        .keyVersion((Integer) values[2])
        .driftBudget((Duration) values[3])
        .contentionRetryAfter((Duration) values[4])
        .fenceMode((FenceMode) values[5])
        .counterRetention((Duration) values[6])
        .replicaAck((Integer) values[7], (Duration) values[8])
        .monotonicNanos((LongSupplier) values[9])
        .wallClock((Clock) values[10])
        .random((SecureRandom) values[11])
        .sleeper((RedisLeaseConfig.Sleeper) values[12])
        .build();
  }

  /** The key layout LeaseKeys documents: {@code <namespace>:lease:v<keyVersion>:{<purpose>:<digest>}} and its {@code :fence}. */
  LeaseKeys keys() {
    String lease = values[1] + ":lease:v" + values[2] + ":{" + SettingsMachine.PURPOSE + ":" + SettingsMachine.DIGEST + "}";
    return new LeaseKeys(lease);
  }

  Duration drift() {
    return (Duration) values[3];
  }

  Duration contentionRetryAfter() {
    return (Duration) values[4];
  }

  FenceMode fenceMode() {
    return (FenceMode) values[5];
  }

  /** The counter's retention the scripts are sent, in ms: 0 unless CLOCK_FLOOR. */
  long counterRetentionMillis() {
    return fenceMode() == FenceMode.CLOCK_FLOOR ? ((Duration) values[6]).toMillis() : 0;
  }

  int replicaAcks() {
    return (Integer) values[7];
  }

  Duration replicaAckTimeout() {
    return (Duration) values[8];
  }

  /** TTL candidate {@code index}: 0 an ordinary one, then null, zero, negative, and both sides of the drift and of the maximum. */
  Duration ttl(long index) {
    Duration whole = Duration.ofMillis(drift().toMillis());
    List<Duration> all = new ArrayList<>(Arrays.asList(whole.plusMillis(100), null, Duration.ofMillis(-1), Duration.ZERO,
        Duration.ofNanos(1), drift(), whole.plusNanos(999_999), whole.plusMillis(1), whole.plusMillis(1).plusNanos(500_000),
        LeaseRequest.MAX_LEASE_TTL, LeaseRequest.MAX_LEASE_TTL.plusNanos(1), LeaseRequest.MAX_LEASE_TTL.plusMillis(1),
        Duration.ofMillis(1)));
    return all.get((int) index);
  }

  /** Documented: positive, at most MAX_LEASE_TTL, and the whole milliseconds sent above the drift budget. */
  boolean ttlInRange(Duration ttl) {
    return ttl != null && ttl.compareTo(Duration.ZERO) > 0 && ttl.compareTo(LeaseRequest.MAX_LEASE_TTL) <= 0
        && Duration.ofMillis(ttl.toMillis()).compareTo(drift()) > 0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Settings s && Arrays.equals(values, s.values);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    return NAMES + "=" + Arrays.toString(values);
  }
}
