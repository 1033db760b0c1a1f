package dev.leasehold.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leasehold.lease.AcquireOutcome;
import dev.leasehold.lease.InspectOutcome;
import dev.leasehold.lease.LeaseAttempt;
import dev.leasehold.lease.LeaseException;
import dev.leasehold.lease.LeaseHandle;
import dev.leasehold.lease.LeaseInspection;
import dev.leasehold.lease.LeaseRequest;
import dev.leasehold.lease.LeaseResult;
import dev.leasehold.lease.ReleaseOutcome;
import dev.leasehold.lease.RenewOutcome;
import dev.leasehold.lease.ResourceDigests;
import dev.leasehold.testkit.redis.RedisProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TLS, run for real: certificates made at test time with the machine's {@code openssl} (a CA, a
 * server certificate for IP 127.0.0.1) and the JDK's {@code keytool} (the PKCS12 trust store), a
 * {@code redis-server --tls-port}, and {@code RedisLeases} over {@code rediss://} with that trust
 * store; a trust store of another CA is refused during the handshake, before any lease command.
 */
@SuppressWarnings("unchecked") // assertInstanceOf on the generic LeaseResult records
class TlsIntegrationTests {
  static final String PURPOSE = "tls";
  static final String STORE_PASSWORD = "leasehold-test";

  static Path dir;
  static RedisProcess redis;
  static int tlsPort;
  static RedisClient side;
  static StatefulRedisConnection<String, String> plain;

  @BeforeAll
  static void startTlsServer() throws Exception {
    dir = Files.createDirectories(Path.of("target", "tls-it").toAbsolutePath());
    certificateAuthority("ca");
    certificateAuthority("other-ca");
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
        "-subj", "/CN=127.0.0.1");
    Files.writeString(dir.resolve("san.ext"), "subjectAltName=IP:127.0.0.1\n");
    run("openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "server.crt", "-days", "1", "-extfile", "san.ext");
    trustStore("ca");
    trustStore("other-ca");
    tlsPort = RedisProcess.freePort();
    // The plain port stays open for the test's own side connection (commandstats); the library
    // only ever uses the TLS port.
    redis = RedisProcess.start("tls-it", "--tls-port", Integer.toString(tlsPort),
        "--tls-cert-file", dir.resolve("server.crt").toString(), "--tls-key-file", dir.resolve("server.key").toString(),
        "--tls-ca-cert-file", dir.resolve("ca.crt").toString(), "--tls-auth-clients", "no");
    side = RedisClient.create(redis.uri());
    plain = side.connect();
  }

  @AfterAll
  static void stop() {
    if (plain != null) {
      plain.close();
      side.shutdown();
    }
    if (redis != null) {
      redis.close();
    }
  }

  private static void certificateAuthority(String name) throws Exception {
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".crt",
        "-days", "1", "-subj", "/CN=leasehold test " + name);
  }

  private static void trustStore(String ca) throws Exception {
    Files.deleteIfExists(dir.resolve(ca + ".p12"));
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    run(keytool.toString(), "-importcert", "-noprompt", "-alias", ca, "-file", ca + ".crt", "-keystore", ca + ".p12",
        "-storetype", "PKCS12", "-storepass", STORE_PASSWORD);
  }

  private static void run(String... command) throws IOException, InterruptedException {
    List<String> line = new ArrayList<>(List.of(command));
    Process process;
    try {
      process = new ProcessBuilder(line).directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(dir.resolve(Path.of(command[0]).getFileName() + ".log").toFile()).start();
    } catch (IOException e) {
      throw new IllegalStateException("TLS tests need " + command[0] + " (apt-get install openssl)", e);
    }
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", line) + " failed; see " + dir);
    }
  }

  static RedisLeases.Builder leases(String trustStore) {
    RedisURI uri = RedisURI.create("rediss://127.0.0.1:" + tlsPort);
    return RedisLeases.builder(uri).namespace("it-tls").commandTimeout(Duration.ofSeconds(2))
        .sslOptions(SslOptions.builder().jdkSslProvider()
            .truststore(dir.resolve(trustStore + ".p12").toFile(), STORE_PASSWORD).build());
  }

  static long evalshaCalls() {
    String stats = plain.sync().info("commandstats");
    int at = stats.indexOf("cmdstat_evalsha:calls=");
    return at < 0 ? 0 : Long.parseLong(stats.substring(at + 22, stats.indexOf(',', at)));
  }

  @Test
  void everyOperation_overTls_withTheTrustStore() {
    String digest = ResourceDigests.sha256("tls-resource");
    long before = evalshaCalls();
    try (RedisLeases leases = leases("ca").build()) {
      LeaseAttempt attempt = leases.newAttempt("op");
      LeaseHandle handle = assertInstanceOf(AcquireOutcome.Acquired.class,
          leases.port().tryAcquire(LeaseRequest.once(PURPOSE, digest, Duration.ofSeconds(5), attempt))).handle();
      assertTrue(assertInstanceOf(InspectOutcome.Held.class,
          leases.port().inspect(new LeaseInspection(PURPOSE, digest, attempt))).holderIsThisAttempt());
      assertInstanceOf(AcquireOutcome.Contended.class, leases.port().tryAcquire(
          LeaseRequest.once(PURPOSE, digest, Duration.ofSeconds(5), leases.newAttempt("other"))));
      assertInstanceOf(RenewOutcome.Renewed.class, handle.renew(Duration.ofSeconds(5)));
      assertInstanceOf(ReleaseOutcome.Released.class, handle.release());
      assertInstanceOf(LeaseResult.Completed.class, leases.withLease(
          new LeaseRequest(PURPOSE, digest, Duration.ZERO, Duration.ofSeconds(2), leases.newAttempt("work")), ctx -> "ok"));
    }
    assertTrue(evalshaCalls() >= before + 5, "the scripts ran on this server, through its TLS port");
  }

  @Test
  void aServerCertificateOfAnotherCa_isRefusedBeforeAnyLeaseCommand() {
    long before = evalshaCalls();
    LeaseException refused = assertThrows(LeaseException.class, () -> leases("other-ca").build());
    GatewayException cause = assertInstanceOf(GatewayException.class, refused.getCause());
    assertEquals(GatewayException.Failure.NOT_SENT, cause.failure(), "nothing was sent");
    // The message itself names the reason; lettuce's own says only "Unable to connect to ...".
    assertTrue(cause.getMessage().contains("unable to find valid certification path"),
        "names the certificate problem: " + cause.getMessage());
    assertEquals(before, evalshaCalls(), "no lease command reached the server");
  }
}
