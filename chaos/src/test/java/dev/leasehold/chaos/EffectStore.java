package dev.leasehold.chaos;

import java.sql.SQLException;

/**
 * Where a worker's effect lands: one PostgreSQL row per resource. A write returns what the row
 * was before it, read under the row lock in the same transaction, so the order of accepted
 * writes ({@link WriteResult#seq()}) is the database's own.
 */
public interface EffectStore {
  /** What one write did. {@code seq} counts accepted writes of the row (0 when rejected). */
  record WriteResult(boolean accepted, long seq, long prevFence, String prevHolder) {}

  /** "fenced" or "control". */
  String name();

  /** Creates the row for {@code resource} (fence 0) if it is missing. */
  void prepare(String resource) throws SQLException;

  /** Writes {@code value} to {@code resource} with the writer's fencing token. */
  WriteResult write(String resource, long token, String holder, String value) throws SQLException;
}
