package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.regex.Pattern;

/**
 * The argument checks of this package, run before any statement is sent. A message names the
 * argument and never shows its value: a resource name or a row key can be an application's own
 * identifier, and identifiers are only ever spliced into SQL after they passed {@link #IDENTIFIER}.
 *
 * <p>This class is stateless and threadsafe.
 */
final class FenceChecks {
  /** A table or column name, optionally schema-qualified: nothing that needs quoting, nothing to inject. */
  static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");
  /** What the fence table's {@code resource VARCHAR(255)} (ASCII, binary collation on MariaDB) holds. */
  static final Pattern RESOURCE = Pattern.compile("[\\x21-\\x7e]{1,255}");

  private FenceChecks() {}

  static String identifier(String what, String name) {
    if (name == null || !IDENTIFIER.matcher(name).matches()) {
      throw new IllegalArgumentException(what + " must be an unquoted SQL identifier, optionally schema-qualified"
          + " ([A-Za-z_][A-Za-z0-9_]{0,62}, one dot at most)" + lengthOf(name));
    }
    return name;
  }

  static String resource(String resource) {
    if (resource == null || !RESOURCE.matcher(resource).matches()) {
      throw new IllegalArgumentException("resource must be 1 to 255 printable ASCII characters without spaces"
          + " (a resource digest, or the lease's fence key)" + lengthOf(resource));
    }
    return resource;
  }

  static long token(long token) {
    if (token < 1) {
      // Leasehold's tokens start at 1; 0 is what INSPECT reports for "no token".
      throw new IllegalArgumentException("token must be at least 1 but was " + token);
    }
    return token;
  }

  static <T> T notNull(String what, T value) {
    if (value == null) {
      throw new IllegalArgumentException(what + " must not be null");
    }
    return value;
  }

  /**
   * The connection must be inside a transaction of the caller's: with autocommit on, the row lock
   * that holds the check would be released before the caller's write, and a newer holder could
   * write in between.
   */
  static Connection inTransaction(Connection connection) throws SQLException {
    notNull("connection", connection);
    if (connection.getAutoCommit()) {
      throw new IllegalArgumentException("connection must have autocommit off: the fence holds only until the"
          + " transaction ends, so the check and the caller's write must share one transaction");
    }
    return connection;
  }

  private static String lengthOf(String value) {
    return value == null ? ", but was null" : ", but the value given has " + value.length() + " characters";
  }
}
