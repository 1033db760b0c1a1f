package dev.leasehold.testkit.blackbox;

/**
 * One step of a black-box chain. Clients are numbered from 0; times are in ms. The names are the
 * spec's where the spec has the action ({@code TryAcquire}, {@code Replay}, {@code Renew},
 * {@code Release}, {@code State}, {@code Tick}, {@code Pause}, {@code LoseReply}).
 */
sealed interface LaneAction {
  /** One attempt, without waiting, for {@code ttlMs}. */
  record TryAcquire(int client, long ttlMs) implements LaneAction {}

  /**
   * Sends the client's last acquire again after its outcome was unknown, for a library that replays
   * an attempt ({@link LockLibrary.Traits#replays()}).
   */
  record Replay(int client, long ttlMs) implements LaneAction {}

  /** Extends the client's hold to {@code ttlMs}. */
  record Renew(int client, long ttlMs) implements LaneAction {}

  /** Releases the client's hold. */
  record Release(int client) implements LaneAction {}

  /** Asks the client how long it believes its hold stays valid (its state), then reads the server. */
  record State(int client) implements LaneAction {}

  /** Lets {@code ms} of real time pass. */
  record Tick(long ms) implements LaneAction {}

  /** Nothing passes between the client and the server for {@code ms}; held bytes flow after. */
  record Pause(int client, long ms) implements LaneAction {}

  /** The client's next call loses its reply; its connection is reset after the call. */
  record LoseReply(int client) implements LaneAction {}
}
