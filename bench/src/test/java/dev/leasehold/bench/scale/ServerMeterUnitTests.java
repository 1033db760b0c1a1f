package dev.leasehold.bench.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** What {@link ServerMeter} reads from {@code INFO commandstats}: the commands clients sent. */
class ServerMeterUnitTests {
  static final String COMMANDSTATS = String.join("\r\n",
      "# Commandstats",
      "cmdstat_evalsha:calls=40,usec=400,usec_per_call=10.00,rejected_calls=0,failed_calls=0",
      "cmdstat_eval:calls=2,usec=30,usec_per_call=15.00,rejected_calls=0,failed_calls=0",
      "cmdstat_subscribe:calls=3,usec=3,usec_per_call=1.00,rejected_calls=0,failed_calls=0",
      "cmdstat_unsubscribe:calls=1,usec=1,usec_per_call=1.00,rejected_calls=0,failed_calls=0",
      // Run by the scripts, or by the meter itself: not what a lock client sent.
      "cmdstat_set:calls=40,usec=80,usec_per_call=2.00,rejected_calls=0,failed_calls=0",
      "cmdstat_publish:calls=20,usec=40,usec_per_call=2.00,rejected_calls=0,failed_calls=0",
      "cmdstat_info:calls=7,usec=70,usec_per_call=10.00,rejected_calls=0,failed_calls=0",
      "");

  @Test
  void clientCommands_countScriptsAndSubscriptions_notWhatScriptsRunInside() {
    assertEquals(46, ServerMeter.clientCommands(COMMANDSTATS));
  }

  @Test
  void aReadingLessAnEarlierOne_isWhatHappenedBetween() {
    ServerMeter.Reading between = new ServerMeter.Reading(5.5, 100).minus(new ServerMeter.Reading(2.0, 40));
    assertEquals(3.5, between.cpuSeconds(), 1e-9);
    assertEquals(60, between.commands());
  }
}
