package dev.larder.testing;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {

  @Test
  void returnsOnceTheConditionHolds() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    Await.until("the third call", Duration.ofSeconds(30), () -> calls.incrementAndGet() >= 3);
    assertTrue(calls.get() >= 3);
  }

  @Test
  void failsSayingWhatWasAwaitedWhenItNeverHolds() {
    AssertionError error =
        assertThrows(
            AssertionError.class,
            () -> Await.until("pigs fly", Duration.ofMillis(20), () -> false));
    assertTrue(error.getMessage().endsWith(": pigs fly"), error.getMessage());
  }
}
