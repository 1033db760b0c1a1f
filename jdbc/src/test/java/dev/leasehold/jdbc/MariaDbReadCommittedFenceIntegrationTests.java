package dev.leasehold.jdbc;

import java.sql.Connection;

/** {@link FenceContract} on MariaDB (InnoDB) at READ COMMITTED. */
class MariaDbReadCommittedFenceIntegrationTests extends FenceContract {
  @Override
  TestDatabase database() {
    return MariaDbDatabase.get();
  }

  @Override
  int isolation() {
    return Connection.TRANSACTION_READ_COMMITTED;
  }
}
