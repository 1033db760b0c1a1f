package dev.leasehold.testkit.blackbox;

import dev.leasehold.testkit.blackbox.Verdict.Finding;
import dev.leasehold.testkit.redis.RedisServer;
import dev.leasehold.testkit.runner.ChainFile;
import dev.leasehold.testkit.runner.PropertyRunner;
import dev.leasehold.testkit.runner.PropertyViolation;
import dev.leasehold.testkit.runner.Stats;
import dev.leasehold.testkit.runner.Step;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The black-box entry point: checks any Redis lock library, through its {@link LockLibrary} port,
 * against the properties of spec/tla/Lease.tla that can be seen from outside
 * ({@link BlackBoxProperty}).
 *
 * <pre>{@code
 * Verdict verdict = BlackBoxConformance.of(new MyLibraryPort()).run();
 * }</pre>
 *
 * <p>The kit starts its own {@code redis-server} (it flushes it before every chain) and puts a
 * fault-injecting proxy between it and each of two clients. Chains of random steps (acquire, renew,
 * release, state, real time passing, a paused client, a lost reply) run in real time; after a
 * violation the chain is shrunk (ticks merged, a pause that did not matter written as a tick, steps
 * removed, parameters lowered), the
 * chain to save is the most shrunk one that replays the violation at least 9 times in 10
 * ({@link ReplayMargin}; if none does, the report says how often the best did), it is written to
 * {@code <reportDir>/<library>-<Property>.chain}, and the run goes on looking for the other
 * properties.
 *
 * <p>A builder is not threadsafe; {@link #run()} may be called again and starts afresh.
 */
public final class BlackBoxConformance {
  private final LockLibrary library;
  // The default budget: with it, each planted defect class of the kit's own tests is found with 95%
  // probability (docs/black-box.md gives the measurement).
  private int chains = 48;
  private int maxLength = 16;
  private long seed = 1;
  private int maxShrinkRuns = 24;
  private Duration maxTtl = Duration.ofMillis(400);
  private Duration commandTimeout = Duration.ofMillis(200);
  private Path reportDir = Path.of("target", "black-box");
  private Consumer<String> out = System.out::println;
  private List<Path> regressions = List.of();
  private int regressionTries = 1;

  private BlackBoxConformance(LockLibrary library) {
    if (library == null) {
      throw new IllegalArgumentException("library must not be null");
    }
    this.library = library;
  }

  public static BlackBoxConformance of(LockLibrary library) {
    return new BlackBoxConformance(library);
  }

  public BlackBoxConformance chains(int chains) {
    this.chains = positive("chains", chains);
    return this;
  }

  public BlackBoxConformance maxLength(int maxLength) {
    this.maxLength = positive("maxLength", maxLength);
    return this;
  }

  public BlackBoxConformance seed(long seed) {
    this.seed = seed;
    return this;
  }

  /** Replays a shrink may spend on one violation. */
  public BlackBoxConformance maxShrinkRuns(int maxShrinkRuns) {
    this.maxShrinkRuns = positive("maxShrinkRuns", maxShrinkRuns);
    return this;
  }

  /** The longest TTL a step asks for (from 250 ms); steps ask for a fifth of it up to all of it. */
  public BlackBoxConformance maxTtl(Duration maxTtl) {
    if (maxTtl == null || maxTtl.toMillis() < 250) {
      throw new IllegalArgumentException("maxTtl must be at least 250 ms");
    }
    this.maxTtl = maxTtl;
    return this;
  }

  /** The command timeout clients are asked to use, so a lost reply costs this long. */
  public BlackBoxConformance commandTimeout(Duration commandTimeout) {
    if (commandTimeout == null || commandTimeout.toMillis() < 1) {
      throw new IllegalArgumentException("commandTimeout must be at least 1 ms");
    }
    this.commandTimeout = commandTimeout;
    return this;
  }

  public BlackBoxConformance reportDir(Path reportDir) {
    if (reportDir == null) {
      throw new IllegalArgumentException("reportDir must not be null");
    }
    this.reportDir = reportDir;
    return this;
  }

  /**
   * Chain files replayed after the random chains, each up to {@code tries} times until it shows a
   * violation (more than once for a finding that needs a race); a violation of a property the random
   * chains did not break is recorded with the file as its chain, so the verdict says which findings
   * random chains make on their own.
   */
  public BlackBoxConformance regressions(List<Path> chainFiles, int tries) {
    if (chainFiles == null) {
      throw new IllegalArgumentException("chainFiles must not be null");
    }
    this.regressions = List.copyOf(chainFiles);
    this.regressionTries = positive("tries", tries);
    return this;
  }

  /** Where failures are printed (System.out by default). */
  public BlackBoxConformance printTo(Consumer<String> out) {
    this.out = out == null ? s -> {} : out;
    return this;
  }

  /** Runs every chain and returns what was found; never throws for a violation. */
  public Verdict run() {
    Judge judge = new Judge();
    Stats stats = new Stats();
    Map<BlackBoxProperty, Finding> findings = new EnumMap<>(BlackBoxProperty.class);
    try (Lane lane = Lane.start(library, commandTimeout, maxTtl)) {
      PropertyRunner<LaneWorld> runner = new PropertyRunner<>(lane.machine(judge)).printTo(out);
      int done = 0;
      while (done < chains) {
        long runSeed = PropertyRunner.chainSeed(seed, done);
        var report = runner.run(new PropertyRunner.Config(runSeed, chains - done, maxLength, maxShrinkRuns, true));
        stats.add(report.stats());
        done += report.chainsRun();
        if (report.failure().isPresent()) {
          var failure = report.failure().get();
          PropertyViolation violation = failure.violation();
          BlackBoxProperty property = propertyOf(violation, failure.rendered());
          judge.found(property);
          ReplayMargin.Choice saved = ReplayMargin.choose(failure.path(),
              steps -> replayShows(lane, property, failure.chainSeed(), steps));
          List<String> steps = runner.renderSteps(saved.steps());
          Path file = reportDir.resolve(library.name() + "-" + property.name() + ".chain");
          ChainFile.write(file, failure.chainSeed(), Optional.of(property.name()), steps, library.name() + ": "
              + violation.getMessage() + "\n" + saved.summary() + "\nreplay with BlackBoxConformance.replay(<this file>)");
          String message = violation.getMessage() + (saved.reliable() ? "" : " (this chain " + saved.summary() + ")");
          findings.put(property, new Finding.Violated(message, steps, Optional.of(file)));
        }
      }
      for (Path file : regressions) {
        for (int t = 0; t < regressionTries; t++) {
          PropertyViolation v = replay(lane, file);
          if (v != null) {
            BlackBoxProperty property = propertyOf(v, v.getMessage());
            if (!findings.containsKey(property)) {
              judge.found(property);
              findings.put(property, new Finding.Violated(v.getMessage(), ChainFile.renderedSteps(file), Optional.of(file)));
            }
            break;
          }
        }
      }
    }
    for (BlackBoxProperty p : BlackBoxProperty.values()) {
      if (!p.promisedBy(library.traits())) {
        findings.put(p, new Finding.NotPromised());
      } else if (!findings.containsKey(p)) {
        findings.put(p, judge.firstFailure(p)
            .<Finding>map(message -> new Finding.Violated(message, List.of(), Optional.empty()))
            .orElseGet(() -> new Finding.Held(judge.reached(p))));
      }
    }
    Map<String, Long> outcomes = stats.outcomes();
    return new Verdict(library.name(), library.traits(), stats.chains(), stats.steps(), findings, outcomes);
  }

  /**
   * How many random chains of this run's settings it took to break {@code property} (judged alone,
   * without shrinking), or empty if none of {@link #chains} did: the measure behind the default
   * budget, for the kit's own tests.
   */
  OptionalInt chainsToFind(BlackBoxProperty property) {
    try (Lane lane = Lane.start(library, commandTimeout, maxTtl)) {
      PropertyRunner<LaneWorld> runner = new PropertyRunner<>(lane.machine(Judge.only(property))).printTo(s -> {});
      var failure = runner.run(new PropertyRunner.Config(seed, chains, maxLength, 0, true)).failure();
      return failure.filter(f -> f.violation().property().equals(property.name()))
          .map(f -> OptionalInt.of(f.chainIndex() + 1)).orElseGet(OptionalInt::empty);
    }
  }

  /**
   * Replays a chain file on a fresh server; returns the violation it shows, or null. A file that
   * names the property it was saved for (as a run writes them) is judged on that property alone: the
   * run that saved it judged no property it had already found, so another one may break earlier in
   * the chain. A file that names none (one written by hand) is judged on every property.
   *
   * @throws IllegalArgumentException if the file names a property the lane does not know
   */
  public PropertyViolation replay(Path chainFile) {
    try (Lane lane = Lane.start(library, commandTimeout, maxTtl)) {
      return replay(lane, chainFile);
    }
  }

  /** A replay on {@code lane}'s server with a judge of its own; each chain starts on a flushed server. */
  private PropertyViolation replay(Lane lane, Path chainFile) {
    ChainFile file = ChainFile.read(chainFile);
    Judge judge = file.property().map(name -> named(name).orElseThrow(
        () -> new IllegalArgumentException("the chain file names an unknown property: " + name))).map(Judge::only)
        .orElseGet(Judge::new);
    return new PropertyRunner<>(lane.machine(judge)).printTo(out).replay(file.seed(), file.steps(), new Stats())
        .violation();
  }

  /** Whether {@code steps} show a violation of {@code property} when replayed once on {@code lane}'s server. */
  private boolean replayShows(Lane lane, BlackBoxProperty property, long chainSeed, List<Step> steps) {
    PropertyViolation v = new PropertyRunner<>(lane.machine(Judge.only(property))).printTo(s -> {})
        .replay(chainSeed, steps, new Stats()).violation();
    return v != null && v.property().equals(property.name());
  }

  /** The property named {@code name}, if the lane judges one of that name. */
  private static Optional<BlackBoxProperty> named(String name) {
    for (BlackBoxProperty p : BlackBoxProperty.values()) {
      if (p.name().equals(name)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  private static BlackBoxProperty propertyOf(PropertyViolation violation, String rendered) {
    Optional<BlackBoxProperty> property = named(violation.property());
    if (property.isPresent()) {
      return property.get();
    }
    // Not a property: the port or the kit threw where it must answer.
    throw new IllegalStateException("the black-box run crashed:\n" + rendered, violation);
  }

  private static int positive(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be at least 1");
    }
    return value;
  }

  /** The server and the kit's own connection to it, over which the machines run. */
  private static final class Lane implements AutoCloseable {
    private final LockLibrary library;
    private final RedisServer server;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final Duration commandTimeout;
    private final Duration maxTtl;

    private Lane(LockLibrary library, RedisServer server, RedisClient client,
        StatefulRedisConnection<String, String> connection, Duration commandTimeout, Duration maxTtl) {
      this.library = library;
      this.server = server;
      this.client = client;
      this.connection = connection;
      this.commandTimeout = commandTimeout;
      this.maxTtl = maxTtl;
    }

    static Lane start(LockLibrary library, Duration commandTimeout, Duration maxTtl) {
      RedisServer server = RedisServer.start("black-box-" + library.name());
      if (server.process().isEmpty()) {
        server.close();
        throw new IllegalStateException("the black-box lane flushes its server: it needs a redis-server on PATH");
      }
      RedisClient client = RedisClient.create(server.uri());
      StatefulRedisConnection<String, String> connection = client.connect();
      return new Lane(library, server, client, connection, commandTimeout, maxTtl);
    }

    /** A machine whose chains {@code judge} judges. */
    BlackBoxMachine machine(Judge judge) {
      return new BlackBoxMachine(library, new LettuceServerView(connection.sync()), () -> connection.sync().flushall(),
          server.uri().getPort(), commandTimeout, maxTtl.toMillis(), judge);
    }

    @Override
    public void close() {
      connection.close();
      client.shutdown();
      server.close();
    }
  }
}
