package dev.leasehold.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.redis.FenceMode;
import dev.leasehold.redis.GatewayException;
import dev.leasehold.redis.GatewayReply;
import dev.leasehold.redis.LeaseKeys;
import dev.leasehold.redis.LeaseScript;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The simulated server runs the production scripts themselves, with Redis's reply conversions,
 * errors and expiry. {@code SimulatedRedisDifferentialIntegrationTests} checks the same against a
 * real redis-server; these pin the rules one by one.
 */
class SimulatedRedisUnitTests {
  private static final LeaseKeys KEYS = new LeaseKeys("t:lease:v1:{p:d}");
  private static final String MINE = "owner-a:op-1";
  private static final String FOREIGN = "owner-b:op-1";

  private final VirtualClock clock = new VirtualClock();
  private final SimulatedRedis redis = new SimulatedRedis(clock);
  private final SimulatedGateway gateway = new SimulatedGateway(redis);

  private static byte[] resourceBytes(LeaseScript script) throws IOException {
    String name = "/dev/leasehold/redis/" + script.name().toLowerCase(Locale.ROOT) + ".lua";
    try (InputStream in = LeaseScript.class.getResourceAsStream(name)) {
      return in.readAllBytes();
    }
  }

  private static String resource(LeaseScript script) throws IOException {
    return new String(resourceBytes(script), StandardCharsets.UTF_8);
  }

  private Object eval(String script, String... keysThenArgs) {
    String[] argv = new String[3 + keysThenArgs.length];
    argv[0] = "EVAL";
    argv[1] = script;
    argv[2] = "1";
    System.arraycopy(keysThenArgs, 0, argv, 3, keysThenArgs.length);
    return redis.call(argv);
  }

  private void advanceMs(long ms) {
    clock.advance(ms * 1_000_000L);
  }

  @Test
  void theServerRunsImplsScriptFilesByteForByte() throws Exception {
    for (LeaseScript script : LeaseScript.values()) {
      byte[] file = resourceBytes(script);
      assertArrayEquals(file, script.source(true).getBytes(StandardCharsets.UTF_8), script.name());
      String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(file));
      assertEquals(sha, redis.scriptLoad(script.source(true)), script.name());
      assertEquals(script.sha1(true), sha, script.name());
      assertEquals(script.sha1(false), redis.scriptLoad(script.source(false)), script.name());
    }
    assertTrue(resource(LeaseScript.ACQUIRE).startsWith("#!lua\n"));
    assertTrue(resource(LeaseScript.INSPECT).startsWith("#!lua flags=no-writes\n"));
  }

  /** The owner check removed from a copy of renew.lua: a foreign renew now extends the lease. */
  @Test
  void anEditedScriptChangesWhatTheSimulatedServerDoes() throws IOException {
    String renew = resource(LeaseScript.RENEW);
    String edited = renew.replace("  elseif holder ~= ARGV[2 * i] then\n    replies[i] = -1\n", "");
    assertNotEquals(renew, edited, "renew.lua no longer has the owner check this test removes");

    assertInstanceOf(GatewayReply.Granted.class, gateway.acquire(KEYS, MINE, "owner-a", 1_000, FenceMode.COUNTER, 0));
    assertEquals(GatewayReply.Change.OTHER, gateway.renew(KEYS, FOREIGN, 60_000, 0));
    assertEquals(1_000L, redis.call("PTTL", KEYS.lease()));

    SimulatedGateway editedGateway = new SimulatedGateway(redis, Map.of(LeaseScript.RENEW, edited));
    assertEquals(GatewayReply.Change.APPLIED, editedGateway.renew(KEYS, FOREIGN, 60_000, 0));
    assertEquals(60_000L, redis.call("PTTL", KEYS.lease()));
    assertEquals(MINE, redis.entry(KEYS).value());
  }

  @Test
  void theGatewayDecodesWhatTheScriptsReply() {
    GatewayReply.Granted granted = (GatewayReply.Granted) gateway.acquire(KEYS, MINE, "owner-a", 500, FenceMode.COUNTER, 0);
    assertEquals(new GatewayReply.Granted(1), granted);
    advanceMs(100);
    assertEquals(new GatewayReply.Replayed(1, 400), gateway.acquire(KEYS, MINE, "owner-a", 500, FenceMode.COUNTER, 0));
    assertEquals(new GatewayReply.HeldByOther(400, true), gateway.acquire(KEYS, "owner-a:op-2", "owner-a", 500, FenceMode.COUNTER, 0));
    assertEquals(new GatewayReply.HeldByOther(400, false), gateway.acquire(KEYS, FOREIGN, "owner-b", 500, FenceMode.COUNTER, 0));
    assertEquals(new GatewayReply.Occupied(true, 400, 1), gateway.inspect(KEYS, MINE));
    assertEquals(new GatewayReply.Occupied(false, 400, 1), gateway.inspect(KEYS, FOREIGN));
    assertEquals(GatewayReply.Change.APPLIED, gateway.renew(KEYS, MINE, 900, 0));
    assertEquals(new SimulatedRedis.Entry(MINE, 100 + 900), redis.entry(KEYS));
    assertEquals(GatewayReply.Change.OTHER, gateway.release(KEYS, FOREIGN));
    assertEquals(GatewayReply.Change.APPLIED, gateway.release(KEYS, MINE));
    assertEquals(GatewayReply.Change.ABSENT, gateway.release(KEYS, MINE));
    assertEquals(GatewayReply.Change.ABSENT, gateway.renew(KEYS, MINE, 900, 0));
    assertEquals(new GatewayReply.Vacant(), gateway.inspect(KEYS, MINE));
    assertEquals(List.of(1L), redis.grantLog());
  }

  /** CLOCK_FLOOR: the token is the server's TIME in microseconds, stored whole (LuaJ's own %d would cut it to 32 bits). */
  @Test
  void aClockFloorTokenIsTheServerTimeStoredWhole() {
    advanceMs(7);
    long micros = redis.serverMicros();
    assertTrue(micros > 1L << 50);
    GatewayReply.Granted granted = (GatewayReply.Granted) gateway.acquire(KEYS, MINE, "owner-a", 500, FenceMode.CLOCK_FLOOR, 60_000);
    assertEquals(micros, granted.fencingToken());
    assertEquals(Long.toString(micros), redis.call("GET", KEYS.fence()));
    assertEquals(micros, redis.counter(KEYS));
    List<?> time = (List<?>) redis.call("TIME");
    assertEquals(List.of(Long.toString(micros / 1_000_000), Long.toString(micros % 1_000_000)), time);
    // A counter already past the clock: the counter plus one wins.
    redis.call("SET", KEYS.fence(), Long.toString(micros + 1_000_000));
    redis.call("DEL", KEYS.lease());
    assertEquals(micros + 1_000_001, ((GatewayReply.Granted) gateway.acquire(KEYS, MINE, "owner-a", 500, FenceMode.CLOCK_FLOOR, 60_000)).fencingToken());
    assertEquals(List.of(micros, micros + 1_000_001), redis.grantLog());
  }

  @Test
  void stringFormatHasLua51sIntegerConversions() {
    assertEquals("1780000000123456|-42|  -42|-0042|007|+5|5    ",
        eval("return string.format('%d|%i|%5d|%05d|%.3d|%+d|%-5d', 1780000000123456, -42.9, -42, -42, 7, 5, 5)", "k"));
    assertEquals("x=10000000000 y=ab %", eval("return string.format('x=%x y=%s %%', 2^40, 'ab')", "k"));
  }

  @Test
  void repliesConvertAsRedisConvertsThem() {
    assertEquals(3L, eval("return 3.99", "k"));
    assertEquals(-3L, eval("return -3.99", "k"));
    assertEquals(List.of(1L, 2L), eval("return {1, 2, nil, 4}", "k"));
    assertEquals(Arrays.asList(1L, null, "a", 1L), eval("return {1, false, 'a', true}", "k"));
    assertNull(eval("return false", "k"));
    assertNull(eval("return nil", "k"));
    assertEquals(new StatusReply("fine"), eval("return {ok = 'fine'}", "k"));
    assertEquals("MYERR boom", assertThrows(RedisError.class, () -> eval("return {err = 'MYERR boom'}", "k")).getMessage());
    assertEquals(List.of(List.of("a", 2L)), eval("return {{'a', 2}}", "k"));
  }

  @Test
  void commandRepliesReachLuaAsRedisHandsThem() {
    assertEquals(new StatusReply("none"), eval("return redis.call('TYPE', KEYS[1])", "k"));
    assertEquals("none", eval("return redis.call('TYPE', KEYS[1])['ok']", "k"));
    assertEquals(1L, eval("return redis.call('GET', KEYS[1]) == false", "k"));
    assertEquals(new StatusReply("OK"), eval("return redis.call('SET', KEYS[1], 'v')", "k"));
    assertEquals("string", eval("return redis.call('TYPE', KEYS[1]).ok", "k"));
    assertEquals(List.of(1L, 1L), eval("return {redis.call('EXISTS', KEYS[1]), redis.call('PUBLISH', 'c', 'm') + 1}", "k"));
    assertEquals(1L, eval("return redis.call('INCR', 'n') == 1", "k"));
    assertEquals("number", eval("return type(redis.call('INCR', 'n'))", "k"));
    assertEquals(1L, eval("return #redis.call('TIME') == 2 and type(redis.call('TIME')[1]) == 'string'", "k"));
  }

  @Test
  void aNonStringKeyAnswersWrongtype() {
    redis.call("HSET", "k", "f", "v");
    assertEquals(new StatusReply("hash"), redis.call("TYPE", "k"));
    String script = "\nlocal v = redis.call('GET', KEYS[1])\nreturn v";
    RedisError e = assertThrows(RedisError.class, () -> eval(script, "k"));
    assertEquals(RedisError.WRONGTYPE + " script: " + CompiledScript.sha1(script) + ", on @user_script:2.", e.getMessage());
    assertEquals(RedisError.WRONGTYPE, eval("return redis.pcall('INCR', KEYS[1])['err']", "k"));
    assertEquals(1L, eval("local ok, e = pcall(redis.call, 'GET', KEYS[1]); return (not ok) and e.err ~= nil", "k"));
    // The scripts treat a non-string key as another value and leave it be.
    assertEquals(new GatewayReply.HeldByOther(-1, false), gateway.acquire(new LeaseKeys("k"), MINE, "owner-a", 100,
        FenceMode.COUNTER, 0));
    assertEquals(GatewayReply.Change.OTHER, gateway.renew(new LeaseKeys("k"), MINE, 100, 0));
    assertEquals(GatewayReply.Change.OTHER, gateway.release(new LeaseKeys("k"), MINE));
    // A hash where the counter should be: INSPECT's GET fails, and the gateway says so as lettuce's would.
    redis.call("SET", "j", MINE, "PX", "100");
    redis.call("HSET", "j:fence", "f", "v");
    GatewayException failed = assertThrows(GatewayException.class, () -> gateway.inspect(new LeaseKeys("j"), MINE));
    assertEquals(GatewayException.Failure.AMBIGUOUS, failed.failure());
    assertTrue(failed.getMessage().contains("WRONGTYPE"), failed.getMessage());
  }

  /** Redis's expiry: the key lives through its last millisecond (PTTL 0) and is gone after it. */
  @Test
  void aKeyExpiresWhenTheClockIsPastItsExpiry() {
    assertEquals(-2L, redis.call("PTTL", "k"));
    redis.call("SET", "k", "v");
    assertEquals(-1L, redis.call("PTTL", "k"));
    redis.call("SET", "k", "v", "PX", "10");
    advanceMs(9);
    assertEquals(1L, redis.call("PTTL", "k"));
    clock.advance(1_999_999L);
    assertEquals(0L, redis.call("PTTL", "k"));
    assertEquals("v", redis.call("GET", "k"));
    clock.advance(1L);
    assertNull(redis.call("GET", "k"));
    assertEquals(-2L, redis.call("PTTL", "k"));
    redis.call("SET", "k", "v", "PX", "10");
    assertEquals(1L, redis.call("PERSIST", "k"));
    assertEquals(0L, redis.call("PERSIST", "k"));
    assertEquals(1L, redis.call("PEXPIRE", "k", "0"));
    assertEquals(0L, redis.call("EXISTS", "k"));
    assertEquals("ERR invalid expire time in 'set' command",
        assertThrows(RedisError.class, () -> redis.call("SET", "k", "v", "PX", "0")).getMessage());
    assertEquals(RedisError.NOT_AN_INTEGER, assertThrows(RedisError.class, () -> redis.call("PEXPIRE", "k", "01")).getMessage());
  }

  @Test
  void scriptFlushMakesTheGatewayLoadAgain() {
    gateway.inspect(KEYS, MINE);
    assertEquals(1, redis.scriptLoads());
    gateway.inspect(KEYS, MINE);
    assertEquals(1, redis.scriptLoads());
    assertEquals(StatusReply.OK, redis.call("SCRIPT", "FLUSH"));
    assertEquals(RedisError.NOSCRIPT, assertThrows(RedisError.class,
        () -> redis.evalsha(LeaseScript.INSPECT.sha1(true), true, List.of(KEYS.lease(), KEYS.fence()), List.of(MINE))).getMessage());
    assertEquals(new GatewayReply.Vacant(), gateway.inspect(KEYS, MINE));
    assertEquals(2, redis.scriptLoads());
    redis.restart();
    assertEquals(List.of(0L), redis.call("SCRIPT", "EXISTS", LeaseScript.INSPECT.sha1(true)));
  }

  @Test
  void shebangFlagsAndReadOnlyCallsAreEnforced() {
    String reader = redis.scriptLoad("#!lua flags=no-writes\nreturn redis.call('SET', KEYS[1], 'v')");
    assertTrue(assertThrows(RedisError.class, () -> redis.call("EVALSHA", reader, "1", "k")).getMessage()
        .startsWith("ERR Write commands are not allowed from read-only scripts."));
    String acquire = redis.scriptLoad(LeaseScript.ACQUIRE.source(true));
    assertEquals("ERR Can not run script with write flag on readonly command",
        assertThrows(RedisError.class, () -> redis.call("EVALSHA_RO", acquire, "2", "a", "b", "o:1", "o:", "10", "counter", "0"))
            .getMessage());
    assertEquals("ERR Unexpected engine in script shebang",
        assertThrows(RedisError.class, () -> redis.scriptLoad("#!python\nreturn 1")).getMessage());
    assertEquals(1L, redis.call("EVAL", "return 1", "0"));
  }

  @Test
  void globalsAreReadOnly() {
    assertTrue(assertThrows(RedisError.class, () -> eval("x = 1", "k")).getMessage().contains("Attempt to modify a readonly table"));
    assertTrue(assertThrows(RedisError.class, () -> eval("return y", "k")).getMessage()
        .contains("Script attempted to access nonexistent global variable 'y'"));
    assertEquals("ERR Unknown Redis command called from script", eval("return redis.pcall('FLUSHALL')['err']", "k"));
    assertArrayEquals(new Object[] {"k", "a"}, ((List<?>) eval("return {KEYS[1], ARGV[1]}", "k", "a")).toArray());
  }
}
