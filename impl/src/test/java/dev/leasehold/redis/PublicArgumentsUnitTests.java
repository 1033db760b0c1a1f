package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.leasehold.lease.LeaseWatchdog;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.testing.FakeRedis;
import io.lettuce.core.RedisURI;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The public API's rule for arguments: a null, malformed or out-of-range one is an
 * {@link IllegalArgumentException} that names it, before any I/O, and never shows a secret. The
 * builders point at a closed loopback port: a check that came after connecting would fail these
 * tests with a connection error instead.
 */
class PublicArgumentsUnitTests {
  static final String NOWHERE = "redis://127.0.0.1:1";

  @Test
  void aMalformedUriWithAPassword_isRefused_withoutShowingIt() {
    for (String uri : List.of("redis://user:secret@[::1:6379", "nosuchscheme://user:secret@127.0.0.1:6379")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RedisLeases.builder(uri),
          "a malformed URI of " + uri.length() + " characters");
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      assertFalse(trace.toString().contains("secret"), "the password reached the exception: " + trace);
      assertTrue(e.getMessage().startsWith("uri "), e.getMessage());
      assertNull(e.getCause(), "lettuce's own exception repeats the URI");
    }
  }

  /** Durations no setting accepts, at the edges where converting first would overflow. */
  static final List<Duration> EXTREMES = List.of(Duration.ofSeconds(Long.MIN_VALUE),
      Duration.ofSeconds(Long.MAX_VALUE, 999_999_999), Duration.ofSeconds(Long.MAX_VALUE / 1000 + 1),
      Duration.ofSeconds(Long.MIN_VALUE / 1000 - 1), Duration.ofNanos(-1));

  @Test
  void everyDurationSettingOfBothBuilders_judgesExtremes_withoutOverflow() throws Exception {
    List<String> settings = new ArrayList<>();
    settings.addAll(durationSettings(RedisLeases.Builder.class, () -> RedisLeases.builder(NOWHERE),
        b -> ((RedisLeases.Builder) b).build()));
    settings.addAll(durationSettings(RedisLeaseConfig.Builder.class,
        () -> RedisLeaseAdapter.builder(new FakeRedis(FakeRedis.Clock.virtual())), b -> ((RedisLeaseConfig.Builder) b).build()));
    assertEquals(List.of("commandTimeout", "contentionRetryAfter", "counterRetention", "driftBudget", "replicaAckTimeout",
        "contentionRetryAfter", "counterRetention", "driftBudget", "replicaAckTimeout"), settings);
    for (Duration extreme : EXTREMES) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> LettuceLeaseGateway.connect(RedisURI.create(NOWHERE), extreme), extreme.toString());
      assertTrue(e.getMessage().startsWith("commandTimeout "), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> LettuceLeaseGateway.clientOptions(extreme));
    }
  }

  interface Build {
    void build(Object builder);
  }

  /**
   * Sets each Duration setting of {@code type} to each extreme on a fresh builder and builds:
   * an IllegalArgumentException naming the setting, from the setter or from build(). Returns the
   * settings it found, sorted by method name, so that a new one is tried without a test change.
   */
  static List<String> durationSettings(Class<?> type, Supplier<Object> fresh, Build build) throws Exception {
    List<String> found = new ArrayList<>();
    Method[] methods = type.getMethods();
    Arrays.sort(methods, (a, b) -> a.getName().compareTo(b.getName()));
    for (Method m : methods) {
      int at = Arrays.asList(m.getParameterTypes()).indexOf(Duration.class);
      if (at < 0 || m.getDeclaringClass() != type) {
        continue;
      }
      String setting = m.getName().equals("replicaAck") ? "replicaAckTimeout" : m.getName();
      found.add(setting);
      for (Duration extreme : EXTREMES) {
        Object builder = fresh.get();
        Object[] args = m.getParameterCount() == 2 ? new Object[] {1, extreme} : new Object[] {extreme};
        try {
          m.invoke(builder, args);
          build.build(builder);
          fail(setting + " accepted " + extreme);
        } catch (InvocationTargetException e) {
          assertNames(setting, extreme, e.getCause());
        } catch (RuntimeException e) {
          assertNames(setting, extreme, e);
        }
      }
    }
    return found;
  }

  static void assertNames(String setting, Duration extreme, Throwable thrown) {
    if (!(thrown instanceof IllegalArgumentException) || !thrown.getMessage().contains(setting)) {
      throw new AssertionError(setting + " = " + extreme + " gave " + thrown + ", not an IllegalArgumentException naming it", thrown);
    }
  }

  @Test
  void aNullArgument_toAnyPublicFactoryOrSetter_isAnIllegalArgumentNamingIt() throws Exception {
    List<String> tried = new ArrayList<>();
    tried.addAll(nulls(RedisLeases.class, null, null));
    tried.addAll(nulls(RedisLeases.Builder.class, () -> RedisLeases.builder(NOWHERE), b -> ((RedisLeases.Builder) b).build()));
    tried.addAll(nulls(RedisLeaseAdapter.class, null, null));
    tried.addAll(nulls(RedisLeaseConfig.Builder.class, () -> RedisLeaseAdapter.builder(new FakeRedis(FakeRedis.Clock.virtual())),
        b -> ((RedisLeaseConfig.Builder) b).build()));
    tried.addAll(nulls(LettuceLeaseGateway.class, null, null));
    tried.addAll(nulls(ReleaseSignals.class, null, null));
    tried.addAll(nulls(LeaseWatchdog.Builder.class, LeaseWatchdog::builder, b -> ((LeaseWatchdog.Builder) b).build().close()));
    tried.addAll(nulls(ResourceDigests.class, null, null));
    // Every entry point of a user's set-up, so that one left out of the sweep shows here.
    for (String entry : List.of("RedisLeases.builder(String)", "RedisLeases.builder(RedisURI)", "RedisLeases.builder(RedisClient)",
        "RedisLeases.builder(RedisClusterClient)", "Builder.sslOptions(SslOptions)", "Builder.namespace(String)",
        "Builder.fenceMode(FenceMode)", "Builder.commandTimeout(Duration)", "Builder.meterRegistry(MeterRegistry)",
        "Builder.watchdogExecutor(ScheduledExecutorService)", "RedisLeaseAdapter.builder(LeaseGateway)",
        "Builder.sleeper(Sleeper)", "Builder.wallClock(Clock)", "LettuceLeaseGateway.connect(RedisURI, Duration)",
        "LettuceLeaseGateway.connectCluster(RedisURI, Duration)", "LettuceLeaseGateway.over(StatefulRedisConnection)",
        "LettuceLeaseGateway.over(StatefulRedisClusterConnection)", "ReleaseSignals.owning(StatefulRedisPubSubConnection)",
        "Builder.executor(ScheduledExecutorService)", "ResourceDigests.sha256(String)")) {
      assertTrue(tried.stream().anyMatch(t -> t.startsWith(entry)), entry + " was not tried; tried: " + tried);
    }
  }

  /**
   * For each public method declared by {@code type} (static ones when {@code fresh} is null, else
   * the builder's own) and each of its reference parameters: null there, a valid value elsewhere.
   * A setter that only stores the value is judged by {@code build}.
   */
  static List<String> nulls(Class<?> type, Supplier<Object> fresh, Build build) throws Exception {
    List<String> tried = new ArrayList<>();
    for (Method m : type.getDeclaredMethods()) {
      boolean isStatic = Modifier.isStatic(m.getModifiers());
      if (!Modifier.isPublic(m.getModifiers()) || isStatic != (fresh == null) || m.getParameterCount() == 0) {
        continue;
      }
      Class<?>[] types = m.getParameterTypes();
      for (int i = 0; i < types.length; i++) {
        if (types[i].isPrimitive()) {
          continue;
        }
        Object[] args = new Object[types.length];
        for (int j = 0; j < types.length; j++) {
          args[j] = j == i ? null : valid(types[j]);
        }
        String name = type.getSimpleName() + "." + m.getName() + "(" + String.join(", ",
            Arrays.stream(types).map(Class::getSimpleName).toList()) + ") null at " + i;
        tried.add(name);
        Object target = fresh == null ? null : fresh.get();
        Throwable thrown = null;
        try {
          Object result = m.invoke(target, args);
          if (build != null && result == target) {
            build.build(target);
          }
        } catch (InvocationTargetException e) {
          thrown = e.getCause();
        } catch (RuntimeException e) {
          thrown = e;
        }
        // Named: "<parameter> must not be null", or a range check of the setting that shows "null".
        if (!(thrown instanceof IllegalArgumentException)
            || !thrown.getMessage().matches("[a-z][A-Za-z]* (must not be null|must .* but was null)")) {
          throw new AssertionError(name + " gave " + thrown + ", not an IllegalArgumentException naming it", thrown);
        }
      }
    }
    return tried;
  }

  /** A valid value of a parameter type; interfaces get a proxy that no check needs to call. */
  static Object valid(Class<?> type) {
    if (type == int.class) {
      return 1;
    }
    if (type == boolean.class) {
      return false;
    }
    if (type == Duration.class) {
      return Duration.ofSeconds(1);
    }
    if (type == String.class) {
      return NOWHERE;
    }
    if (type == RedisURI.class) {
      return RedisURI.create(NOWHERE);
    }
    if (type.isInterface()) {
      return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, method, a) -> {
        throw new UnsupportedOperationException("a stand-in " + type.getSimpleName() + " was called: " + method.getName());
      });
    }
    throw new IllegalStateException("no valid value for " + type + ": add one");
  }
}
