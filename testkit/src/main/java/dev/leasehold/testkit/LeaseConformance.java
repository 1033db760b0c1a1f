package dev.leasehold.testkit;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.testkit.fault.RealBackend;
import dev.leasehold.testkit.lease.LeaseMachine;
import dev.leasehold.testkit.lease.LeaseWorld;
import dev.leasehold.testkit.lease.PortFactory;
import dev.leasehold.testkit.lease.WorldConfig;
import dev.leasehold.testkit.runner.ChainFile;
import dev.leasehold.testkit.runner.PropertyRunner;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The conformance entry point: runs Leasehold's stateful property suite (the lease state machine,
 * every invariant of spec/tla/Lease.tla after every step, injected faults, shrinking) against a
 * {@link dev.leasehold.lease.DistributedLeasePort} made by the caller's {@link PortFactory}.
 *
 * <pre>{@code
 * LeaseConformance.of(PortFactory.FIXED).chains(500).assertConforms();
 * }</pre>
 *
 * <p>The port is built over the kit's gateway (simulated Redis with fault injection, or a real
 * server by URL) and the kit's clocks, so the kit decides when time passes and what fails. A failure
 * names the violated property, prints the seed that reproduces it and the shrunk chain, and writes
 * the chain to {@code <reportDir>/<name>.chain}.
 *
 * <p>A builder is not threadsafe; {@link #run()} may be called again and starts afresh.
 */
public final class LeaseConformance {
  /** The system property that fixes the run seed; unset (or {@code random}), each run draws one and prints it. */
  public static final String SEED_PROPERTY = "leasehold.conformance.seed";
  public static final int DEFAULT_CHAINS = 500;
  public static final int DEFAULT_MAX_LENGTH = 50;
  public static final Duration DEFAULT_DRIFT = Duration.ofMillis(10);

  private final PortFactory ports;
  private String name = "conformance";
  private RedisURI redis;
  private Duration drift = DEFAULT_DRIFT;
  /** TTL range (ms) the chains ask for; unset: 20-300 simulated, 50-200 on a real server (real time jitters). */
  private long[] ttlMs;
  private int chains = DEFAULT_CHAINS;
  private int maxLength = DEFAULT_MAX_LENGTH;
  private Long seed;
  private FenceMode fenceMode = FenceMode.CLOCK_FLOOR;
  private boolean waitLoop = true;
  private boolean concurrentSteps = true;
  private boolean externalWrites;
  private Path reportDir = Path.of("target", "leasehold-conformance");

  private LeaseConformance(PortFactory ports) {
    this.ports = notNull("ports", ports);
  }

  /** The suite for the ports {@code ports} makes (one per chain). */
  public static LeaseConformance of(PortFactory ports) {
    return new LeaseConformance(ports);
  }

  /** Names the run in reports and chain files. */
  public LeaseConformance name(String name) {
    if (name == null || !name.matches("[A-Za-z0-9._-]{1,64}")) {
      throw new IllegalArgumentException("name must be 1-64 letters, digits, '.', '_' or '-'");
    }
    this.name = name;
    return this;
  }

  /**
   * Runs against a real server instead of the simulated one. Each chain deletes the kit's own two
   * keys ({@link LeaseWorld#KEYS}) and nothing else, and the script cache may be flushed; restarts
   * are not injected. Time is real, so steps are coarser and fewer chains fit a budget.
   */
  public LeaseConformance againstRedis(RedisURI uri) {
    this.redis = notNull("uri", uri);
    return this;
  }

  /** The drift budget the port is built with; the kit lags the client clock by up to it. */
  public LeaseConformance drift(Duration drift) {
    if (drift == null || drift.isNegative() || drift.toMillis() < 1) {
      throw new IllegalArgumentException("drift must be at least 1 ms");
    }
    this.drift = drift;
    return this;
  }

  /** The range of TTLs the chains ask for, in ms. */
  public LeaseConformance ttlMillis(long min, long max) {
    if (min < 1 || max < min) {
      throw new IllegalArgumentException("TTL range must satisfy 1 <= min <= max, got " + min + ".." + max);
    }
    this.ttlMs = new long[] {min, max};
    return this;
  }

  /** The chain budget: how many chains, each of 1..maxLength actions. */
  public LeaseConformance chains(int chains, int maxLength) {
    if (chains < 1 || maxLength < 1) {
      throw new IllegalArgumentException("chains and maxLength must be positive");
    }
    this.chains = chains;
    this.maxLength = maxLength;
    return this;
  }

  /** Fixes the run seed (a failure prints the one it used); overrides {@link #SEED_PROPERTY}. */
  public LeaseConformance seed(long seed) {
    this.seed = seed;
    return this;
  }

  public LeaseConformance fenceMode(FenceMode mode) {
    this.fenceMode = notNull("mode", mode);
    return this;
  }

  /**
   * Whether chains ask {@code tryAcquire} to wait (the port's wait loop, checked against the
   * model's). Off: every tryAcquire asks for one try, for ports without a wait loop.
   */
  public LeaseConformance waitLoop(boolean on) {
    this.waitLoop = on;
    return this;
  }

  /**
   * Whether chains run the concurrent steps (a replay of an attempt on a second thread beside a
   * renew or release of its handle, interleaved at the gateway by a seeded schedule). On by default
   * on the simulated server; never on a real one, whose replies cannot be held at a point.
   */
  public LeaseConformance concurrentSteps(boolean on) {
    this.concurrentSteps = on;
    return this;
  }

  /**
   * Whether chains include someone else's DEL, SET, PERSIST or HSET of the lease key. Off by
   * default: the spec assumes only the scripts touch the key, so these chains waive ActiveHoldsKey,
   * ValidityWithinServerLease and MutualExclusion and check everything else.
   */
  public LeaseConformance externalWrites(boolean on) {
    this.externalWrites = on;
    return this;
  }

  /** Where statistics and failing chains are written. */
  public LeaseConformance reportDir(Path dir) {
    this.reportDir = notNull("dir", dir);
    return this;
  }

  /** What a run found. {@code statistics} is the Markdown report also written to the report dir. */
  public record Result(long seed, int chainsRun, Optional<PropertyRunner.Failure> failure, String statistics) {
    /** The violated property, if the run failed. */
    public Optional<String> violatedProperty() {
      return failure.map(f -> f.violation().property());
    }
  }

  /** Runs the suite and returns what it found, failing or not. */
  public Result run() {
    long runSeed = seed != null ? seed : seedFromEnvironment();
    RealBackend real = redis == null ? null : new RealBackend(redis);
    try {
      LeaseMachine machine = new LeaseMachine(config(real));
      PropertyRunner<LeaseWorld> runner = new PropertyRunner<>(machine).printTo(s -> {});
      PropertyRunner.Report report = runner.run(PropertyRunner.Config.of(runSeed, chains, maxLength));
      String stats = report.stats().markdown(name + " (seed " + runSeed + ")", machine.expectedOutcomes());
      write(name + "-stats.md", stats);
      Path chainFile = reportDir.resolve(name + ".chain");
      report.failure().ifPresent(f -> ChainFile.write(chainFile, f.chainSeed(), runner.renderSteps(f.shrunk()),
          "replay with -Dmodel.replay=" + chainFile.toAbsolutePath() + "\n" + f.violation().getMessage()));
      return new Result(runSeed, report.chainsRun(), report.failure(), stats);
    } finally {
      if (real != null) {
        real.close();
      }
    }
  }

  /** Runs the suite and throws {@link AssertionError} naming the violated property, the seed and the shrunk chain. */
  public Result assertConforms() {
    Result r = run();
    r.failure().ifPresent(f -> {
      throw new AssertionError(String.format(
          "%s: property %s violated (run seed %d, chain %d; rerun with -D%s=%d; chain file %s)%n%s",
          name, f.violation().property(), r.seed(), f.chainIndex() + 1, SEED_PROPERTY, r.seed(),
          reportDir.resolve(name + ".chain"), f.rendered()));
    });
    return r;
  }

  private WorldConfig config(RealBackend real) {
    WorldConfig c = WorldConfig.simulated(ports).withDrift(drift).withFenceMode(fenceMode);
    c = waitLoop ? c : c.withoutWaitLoop();
    c = externalWrites ? c.withExternalWrites() : c;
    if (real == null) {
      c = concurrentSteps ? c.withConcurrentSteps() : c;
      long[] ttl = ttlMs != null ? ttlMs : new long[] {20, 300};
      return c.withTimes(1, 150, ttl[0], ttl[1]);
    }
    WorldConfig onReal = c.onRealServer(real);
    return ttlMs == null ? onReal : onReal.withTimes(onReal.timeStepMicros(), onReal.maxTimeStepMs(), ttlMs[0], ttlMs[1]);
  }

  private static long seedFromEnvironment() {
    String s = System.getProperty(SEED_PROPERTY);
    return s == null || s.isBlank() || s.trim().equals("random") ? System.nanoTime() : Long.parseLong(s.trim());
  }

  private void write(String file, String text) {
    try {
      Files.createDirectories(reportDir);
      Files.writeString(reportDir.resolve(file), text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The public API's rule: a null argument is an IllegalArgumentException naming it. */
  private static <T> T notNull(String name, T value) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
    return value;
  }
}
