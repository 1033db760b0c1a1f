package dev.leasehold.testkit.blackbox;

/**
 * One step of a black-box chain. Clients are numbered from 0; times are in ms. The names are the
 * spec's where the spec has the action ({@code TryAcquire}, {@code Replay}, {@code Renew},
 * {@code Release}, {@code State}, {@code Tick}, {@code Pause}, {@code LoseReply}).
 * {@link Delayed} is the lane's own: the spec's clients already interleave at every message.
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

  /**
   * A call ({@link TryAcquire}, {@link Renew} or {@link Release}) with every reply held for
   * {@code ms}; once the server has answered its first command, the other client, if it holds
   * nothing, tries to acquire again and again until the call returns. A call of two round trips
   * (check, then act) acts {@code ms} after its check, and a client that counts its validity from
   * the reply counts {@code ms} late.
   */
  record Delayed(LaneAction call, long ms) implements LaneAction {
    public Delayed {
      if (!(call instanceof TryAcquire || call instanceof Renew || call instanceof Release)) {
        throw new IllegalArgumentException("only an acquire, a renew or a release is delayed: " + call);
      }
    }

    int client() {
      return call instanceof TryAcquire a ? a.client() : call instanceof Renew r ? r.client() : ((Release) call).client();
    }
  }
}
