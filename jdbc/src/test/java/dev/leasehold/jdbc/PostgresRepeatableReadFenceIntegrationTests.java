package dev.leasehold.jdbc;

import java.sql.Connection;

/** {@link FenceContract} on PostgreSQL at REPEATABLE READ, where a write whose snapshot predates a newer one fails with 40001. */
class PostgresRepeatableReadFenceIntegrationTests extends FenceContract {
  @Override
  TestDatabase database() {
    return PostgresDatabase.get();
  }

  @Override
  int isolation() {
    return Connection.TRANSACTION_REPEATABLE_READ;
  }
}
