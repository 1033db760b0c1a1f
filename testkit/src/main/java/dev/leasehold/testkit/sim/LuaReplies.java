package dev.leasehold.testkit.sim;

import java.util.ArrayList;
import java.util.List;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

/**
 * Converts between Redis replies and Lua values the way Redis does for scripts: a nil bulk is
 * {@code false}, an integer a number, a status reply {@code {ok=...}}, an error {@code {err=...}};
 * back from Lua a number truncates to an integer, {@code false} is nil and an array stops at its
 * first nil.
 *
 * <p>This class is stateless.
 */
final class LuaReplies {
  static final LuaString ERR = LuaValue.valueOf("err");
  static final LuaString OK = LuaValue.valueOf("ok");

  private LuaReplies() {}

  static LuaTable array(List<String> values) {
    LuaValue[] items = new LuaValue[values.size()];
    for (int i = 0; i < items.length; i++) {
      items[i] = LuaValue.valueOf(values.get(i));
    }
    return LuaValue.listOf(items);
  }

  static LuaTable errorTable(String message) {
    return LuaValue.tableOf(new LuaValue[] {ERR, LuaValue.valueOf(message)});
  }

  /** A Redis reply as Lua sees it. */
  static LuaValue toLua(Object reply) {
    if (reply == null) {
      return LuaValue.FALSE;
    }
    if (reply instanceof Long n) {
      return LuaValue.valueOf((double) n);
    }
    if (reply instanceof String s) {
      return LuaValue.valueOf(s);
    }
    if (reply instanceof StatusReply status) {
      return LuaValue.tableOf(new LuaValue[] {OK, LuaValue.valueOf(status.text())});
    }
    List<?> items = (List<?>) reply;
    LuaValue[] values = new LuaValue[items.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = toLua(items.get(i));
    }
    return LuaValue.listOf(values);
  }

  /** A script's Lua result as Redis replies with it. */
  static Object toReply(LuaValue value) {
    switch (value.type()) {
      case LuaValue.TSTRING:
        return value.tojstring();
      case LuaValue.TNUMBER:
        return (long) value.todouble();
      case LuaValue.TBOOLEAN:
        return value.toboolean() ? 1L : null;
      case LuaValue.TTABLE:
        LuaValue err = value.get(ERR);
        if (err.type() == LuaValue.TSTRING) {
          throw new RedisError(err.tojstring());
        }
        LuaValue ok = value.get(OK);
        if (ok.type() == LuaValue.TSTRING) {
          return new StatusReply(ok.tojstring());
        }
        List<Object> items = new ArrayList<>();
        for (int i = 1; ; i++) {
          LuaValue item = value.get(i);
          if (item.isnil()) {
            return items;
          }
          items.add(toReply(item));
        }
      default:
        return null;
    }
  }
}
