package dev.leasehold.jdbc;

import java.sql.Connection;

/** {@link FenceContract} on MariaDB (InnoDB) at its default isolation, REPEATABLE READ, where a plain read sees the transaction's snapshot. */
class MariaDbFenceIntegrationTests extends FenceContract {
  @Override
  TestDatabase database() {
    return MariaDbDatabase.get();
  }

  @Override
  int isolation() {
    return Connection.TRANSACTION_REPEATABLE_READ;
  }
}
