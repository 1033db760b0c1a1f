package dev.leasehold.testkit.blackbox;

import io.lettuce.core.api.sync.RedisCommands;
import java.util.Map;

/** {@link ServerView} over the kit's own connection. This class is threadsafe as lettuce is. */
final class LettuceServerView implements ServerView {
  private final RedisCommands<String, String> redis;

  LettuceServerView(RedisCommands<String, String> redis) {
    this.redis = redis;
  }

  @Override
  public String get(String key) {
    return redis.get(key);
  }

  @Override
  public Map<String, String> hgetall(String key) {
    return redis.hgetall(key);
  }

  @Override
  public long pttl(String key) {
    return redis.pttl(key);
  }
}
