package dev.leasehold.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Gathers the renewals sent without waiting ({@link LettuceLeaseGateway#renewAsync}) into RENEW
 * calls of up to {@link #MAX_BATCH} leases: those queued within {@link #LINGER_NANOS} of the first
 * go out together, a full batch at once. A call's leases share one slot (a script cannot span
 * slots in a Redis Cluster, where a batch is then the leases of one resource and the calls to one
 * node go out pipelined) and one counter retention. Each lease is judged on its own element of the
 * call's reply; a call that fails fails each of its leases with the same {@link GatewayException}.
 * No thread waits for a reply: a node that stops answering delays only the leases it holds, until
 * the command timeout fails them.
 *
 * <p>This class is threadsafe.
 */
final class RenewBatcher {
  /** Leases per RENEW call, as Redisson renews up to 100 locks per script. */
  static final int MAX_BATCH = 100;
  /** How long the first renewal of a batch waits for others: 1 ms, far below any lease's TTL. */
  static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private record Pending(ScriptCalls.Renewal renewal, long counterRetentionMillis,
      CompletableFuture<GatewayReply.Change> reply) {}

  /** What the leases of one call share. */
  private record Group(int slot, long counterRetentionMillis) {}

  /** Runs a flush after a delay: lettuce's event executors, or a test's hand. */
  @FunctionalInterface
  interface Linger {
    /** @throws RejectedExecutionException if it can no longer run anything */
    void after(long nanos, Runnable flush);

    static Linger on(ScheduledExecutorService executor) {
      return (nanos, flush) -> executor.schedule(flush, nanos, TimeUnit.NANOSECONDS);
    }
  }

  private final RedisClusterAsyncCommands<String, String> commands;
  private final boolean shebang;
  private final boolean cluster;
  private final Linger linger;
  private List<Pending> queue = new ArrayList<>();
  private boolean flushScheduled;

  /**
   * @param cluster whether the leases of one call must share a slot
   * @param linger where a batch that is not full waits out {@link #LINGER_NANOS}
   */
  RenewBatcher(RedisClusterAsyncCommands<String, String> commands, boolean shebang, boolean cluster, Linger linger) {
    this.commands = commands;
    this.shebang = shebang;
    this.cluster = cluster;
    this.linger = linger;
  }

  CompletableFuture<GatewayReply.Change> renew(ScriptCalls.Renewal renewal, long counterRetentionMillis) {
    CompletableFuture<GatewayReply.Change> reply = new CompletableFuture<>();
    boolean full;
    boolean schedule;
    synchronized (this) {
      queue.add(new Pending(renewal, counterRetentionMillis, reply));
      full = queue.size() >= MAX_BATCH;
      schedule = !full && !flushScheduled;
      flushScheduled |= schedule;
    }
    if (full) {
      flush();
    } else if (schedule) {
      try {
        linger.after(LINGER_NANOS, this::flush);
      } catch (RejectedExecutionException e) {
        // The client is shutting down: send now, and lettuce fails what it can no longer send.
        flush();
      }
    }
    return reply;
  }

  /** Sends everything queued, a call per group and per {@link #MAX_BATCH} leases of it. */
  void flush() {
    List<Pending> taken;
    synchronized (this) {
      taken = queue;
      queue = new ArrayList<>();
      flushScheduled = false;
    }
    Map<Group, List<Pending>> groups = new LinkedHashMap<>();
    for (Pending p : taken) {
      int slot = cluster ? SlotHash.getSlot(p.renewal().keys().lease()) : 0;
      groups.computeIfAbsent(new Group(slot, p.counterRetentionMillis()), g -> new ArrayList<>()).add(p);
    }
    groups.forEach((group, pending) -> {
      for (int from = 0; from < pending.size(); from += MAX_BATCH) {
        send(group.counterRetentionMillis(), pending.subList(from, Math.min(pending.size(), from + MAX_BATCH)));
      }
    });
  }

  private void send(long counterRetentionMillis, List<Pending> batch) {
    ScriptCalls.Call call = ScriptCalls.renewAll(batch.stream().map(Pending::renewal).toList(), counterRetentionMillis);
    evalsha(call).whenComplete((reply, failure) -> {
      if (failure != null) {
        GatewayException e = LettuceFailures.classify(failure instanceof CompletionException c && c.getCause() != null
            ? c.getCause() : failure);
        batch.forEach(p -> p.reply().completeExceptionally(e));
        return;
      }
      List<GatewayReply.Change> changes;
      try {
        changes = ScriptCalls.renewReply(reply, batch.size());
      } catch (GatewayException e) {
        batch.forEach(p -> p.reply().completeExceptionally(e));
        return;
      }
      for (int i = 0; i < batch.size(); i++) {
        batch.get(i).reply().complete(changes.get(i));
      }
    });
  }

  /**
   * EVALSHA; on {@code NOSCRIPT} only (the script did not run), EVAL of the script's text, which
   * runs it and caches it. Not SCRIPT LOAD: in a Cluster lettuce sends that to every node, and one
   * stalled node would hold back the renewals of all the others.
   */
  private CompletionStage<List<Object>> evalsha(ScriptCalls.Call call) {
    String sha = call.script().sha1(shebang);
    CompletionStage<List<Object>> first;
    try {
      first = commands.evalsha(sha, ScriptOutputType.MULTI, call.keyArray(), call.argArray());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return first.handle((reply, failure) -> {
      Throwable cause = failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure;
      if (!(cause instanceof RedisNoScriptException)) {
        return failure == null ? CompletableFuture.completedFuture(reply) : CompletableFuture.<List<Object>>failedFuture(cause);
      }
      return commands.<List<Object>>eval(call.script().source(shebang), ScriptOutputType.MULTI, call.keyArray(),
          call.argArray());
    }).thenCompose(stage -> stage);
  }
}
