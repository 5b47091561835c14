package dev.larder.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GhostTableTest {

  @Test
  void remembersWhereAKeyLeftAndHowFarTheFlowMovedSince() {
    GhostTable ghosts = new GhostTable(1024, 8);
    ghosts.fitStep(4096);
    long hash = 0x1234_5678_9ABC_DEF0L;
    ghosts.add(hash, GhostTable.WINDOW, 100_000, false);
    long distance = ghosts.distance(hash, 100_000 + 3000, 7);
    assertTrue(Math.abs(distance - 3000) <= 16, "distance " + distance);
    assertEquals(GhostTable.WINDOW, ghosts.queueOf(hash));
  }

  @Test
  void mainGhostsMeasureMainsFlow() {
    GhostTable ghosts = new GhostTable(1024, 8);
    ghosts.fitStep(256);
    long hash = 42;
    ghosts.add(hash, GhostTable.MAIN, 5000, false);
    assertEquals(GhostTable.MAIN, ghosts.queueOf(hash));
    assertEquals(200, ghosts.distance(hash, 0, 5200));
  }

  @Test
  void remembersWhetherTheDecisionWasMarginalWithoutDisturbingTheRest() {
    GhostTable ghosts = new GhostTable(1024, 8);
    ghosts.fitStep(256);
    long marginal = 0x7FFF_0000_1234_5678L;
    long ordinary = 0x0000_FFFF_8765_4321L;
    ghosts.add(marginal, GhostTable.MAIN, 5000, true);
    ghosts.add(ordinary, GhostTable.WINDOW, 300, false);
    assertTrue(ghosts.marginal(marginal));
    assertEquals(GhostTable.MAIN, ghosts.queueOf(marginal));
    assertEquals(200, ghosts.distance(marginal, 0, 5200));
    assertFalse(ghosts.marginal(ordinary));
    assertEquals(GhostTable.WINDOW, ghosts.queueOf(ordinary));
    assertEquals(100, ghosts.distance(ordinary, 400, 0));
  }

  @Test
  void unknownAndRemovedKeysAreNotGhosts() {
    GhostTable ghosts = new GhostTable(1024, 8);
    assertEquals(-1, ghosts.distance(99, 0, 0));
    ghosts.add(99, GhostTable.WINDOW, 10, false);
    ghosts.remove(99);
    assertEquals(-1, ghosts.distance(99, 10, 10));
  }

  @Test
  void aChangedResolutionForgetsEverything() {
    GhostTable ghosts = new GhostTable(1024, 8);
    ghosts.fitStep(256);
    ghosts.add(7, GhostTable.WINDOW, 10, false);
    ghosts.fitStep(1 << 20);
    assertEquals(-1, ghosts.distance(7, 10, 10));
  }

  @Test
  void memoryIsAboutHalfAByteAnEntry() {
    assertEquals(16 + 4 * (1 << 17), new GhostTable(1 << 20, 8).bytes());
  }

  @Test
  void anEntryBoundsTableHasASlotPerEntry() {
    GhostTable ghosts = new GhostTable(1 << 10, 1);
    assertEquals(16 + 4 * (1 << 10), ghosts.bytes());
    assertEquals(4L * ((1 << 12) - (1 << 10)), ghosts.growthFor(1 << 12));
  }
}
