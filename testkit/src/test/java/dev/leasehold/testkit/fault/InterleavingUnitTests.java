package dev.leasehold.testkit.fault;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * How a lane's lock is told apart: blocked on the controller's monitor is the lane taking it back
 * (a loaded machine may keep it there for long), blocked on any other lock is a lock the stopped lane
 * holds across its I/O.
 */
class InterleavingUnitTests {
  @Test
  void aThreadBlockedOnTheControllersMonitor_isNotBlockedElsewhere_butOnAnotherLockItIs() throws Exception {
    Object monitor = new Object();
    Object other = new Object();
    CountDownLatch started = new CountDownLatch(1);
    synchronized (monitor) {
      Thread t = new Thread(() -> {
        started.countDown();
        synchronized (monitor) {
          // Entered once the test lets go.
        }
      });
      t.start();
      started.await();
      awaitBlocked(t);
      assertFalse(Interleaving.blockedElsewhere(t, monitor), "blocked on the controller's own monitor");
      assertTrue(Interleaving.blockedElsewhere(t, other), "blocked on a monitor that is not the controller's");
    }
  }

  @Test
  void aThreadThatIsNotBlocked_isNotBlockedElsewhere() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Thread t = new Thread(() -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    t.start();
    try {
      assertFalse(Interleaving.blockedElsewhere(t, new Object()), "waiting is not blocked");
      assertFalse(Interleaving.blockedElsewhere(null, new Object()), "no thread yet");
    } finally {
      release.countDown();
      t.join();
    }
  }

  /** Until {@code t} is BLOCKED: the JVM's word, however long the machine takes to get it there. */
  private static void awaitBlocked(Thread t) throws InterruptedException {
    while (t.getState() != Thread.State.BLOCKED) {
      Thread.sleep(1);
    }
  }
}
