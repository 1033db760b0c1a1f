-- leasehold-jdbc's fence table for PostgreSQL (JdbcFence): one row per sequence of fencing
-- tokens, holding the newest token a write was admitted with. A token is comparable only with
-- tokens of the same lease (namespace, key version, purpose, resource digest): name that lease in
-- `resource`, e.g. RedisLeases.keys(purpose, digest).fence(), or the digest when one purpose
-- guards the resource.
CREATE TABLE IF NOT EXISTS leasehold_fence (
  resource VARCHAR(255) PRIMARY KEY,
  token    BIGINT       NOT NULL CHECK (token > 0)
)
