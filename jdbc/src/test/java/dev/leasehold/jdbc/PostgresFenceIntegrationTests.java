package dev.leasehold.jdbc;

import java.sql.Connection;

/** {@link FenceContract} on PostgreSQL at its default isolation, READ COMMITTED. */
class PostgresFenceIntegrationTests extends FenceContract {
  @Override
  TestDatabase database() {
    return PostgresDatabase.get();
  }

  @Override
  int isolation() {
    return Connection.TRANSACTION_READ_COMMITTED;
  }
}
