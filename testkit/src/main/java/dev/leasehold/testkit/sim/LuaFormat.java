package dev.leasehold.testkit.sim;

import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * {@code string.format} with Lua 5.1's {@code %d} and {@code %i}: the number cast to a 64-bit C
 * {@code long} (truncated toward zero), with C's flags, width and precision. LuaJ 3.0.1 casts
 * them to a 32-bit int, so {@code string.format('%d', 1780000000123456)} gives
 * {@code -1951063488} there: acquire.lua's clock-floor token would be stored wrong. Every other
 * conversion is passed to LuaJ's own format, one conversion at a time.
 *
 * <p>This class is stateless and threadsafe.
 */
final class LuaFormat extends VarArgFunction {
  private static final String FLAGS = "-+ #0";

  private final LuaValue luaj;

  LuaFormat(LuaValue luaj) {
    this.luaj = luaj;
  }

  @Override
  public Varargs invoke(Varargs args) {
    String format = args.checkjstring(1);
    if (!format.contains("d") && !format.contains("i")) {
      return luaj.invoke(args);
    }
    StringBuilder out = new StringBuilder();
    int arg = 2;
    for (int i = 0; i < format.length(); i++) {
      char c = format.charAt(i);
      if (c != '%') {
        out.append(c);
        continue;
      }
      if (i + 1 < format.length() && format.charAt(i + 1) == '%') {
        out.append('%');
        i++;
        continue;
      }
      int j = i + 1;
      while (j < format.length() && FLAGS.indexOf(format.charAt(j)) >= 0) {
        j++;
      }
      String flags = format.substring(i + 1, j);
      int widthStart = j;
      while (j < format.length() && Character.isDigit(format.charAt(j))) {
        j++;
      }
      int width = j > widthStart ? Integer.parseInt(format.substring(widthStart, j)) : 0;
      int precision = -1;
      if (j < format.length() && format.charAt(j) == '.') {
        int precisionStart = ++j;
        while (j < format.length() && Character.isDigit(format.charAt(j))) {
          j++;
        }
        precision = j > precisionStart ? Integer.parseInt(format.substring(precisionStart, j)) : 0;
      }
      if (j >= format.length()) {
        return luaj.invoke(args); // LuaJ reports the malformed format
      }
      char conversion = format.charAt(j);
      if (conversion == 'd' || conversion == 'i') {
        out.append(integer(flags, width, precision, (long) args.checknumber(arg++).todouble()));
      } else {
        out.append(luaj.invoke(LuaValue.varargsOf(LuaValue.valueOf(format.substring(i, j + 1)), args.arg(arg++)))
            .arg1().tojstring());
      }
      i = j;
    }
    return LuaValue.valueOf(out.toString());
  }

  /** C's {@code %d} of a long. */
  static String integer(String flags, int width, int precision, long value) {
    String digits = value < 0 ? Long.toString(value).substring(1) : Long.toString(value);
    if (precision == 0 && value == 0) {
      digits = "";
    }
    StringBuilder body = new StringBuilder();
    for (int k = digits.length(); k < precision; k++) {
      body.append('0');
    }
    body.append(digits);
    String sign = value < 0 ? "-" : flags.contains("+") ? "+" : flags.contains(" ") ? " " : "";
    int pad = width - sign.length() - body.length();
    if (pad <= 0) {
      return sign + body;
    }
    if (flags.contains("-")) {
      return sign + body + " ".repeat(pad);
    }
    if (flags.contains("0") && precision < 0) {
      return sign + "0".repeat(pad) + body;
    }
    return " ".repeat(pad) + sign + body;
  }
}
