package dev.larder.server.internal.keyspace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The stored keys of chunked collections' chunks and index pages: layout and what they name. */
class ChunkKeyTest {
  @Test
  void chunkKeysNameTheirCollectionAndCannotBeAClientKey() {
    byte[] head = {3, 'q', 'u', 'e', 'u', 'e'};
    byte[] chunk = ChunkKey.of(head, 42L, 7);
    assertTrue(ChunkKey.isChunkKey(chunk));
    assertFalse(ChunkKey.isChunkKey(head));
    assertEquals((byte) 0x83, chunk[0], "the chunk space of database 3");
    assertArrayEquals(head, ChunkKey.headKeyOf(chunk));
    assertEquals(42L, ChunkKey.idOf(chunk));
    assertEquals(7, ChunkKey.numberOf(chunk));
    assertTrue(ChunkKey.isChunkOf(chunk, head));
    assertFalse(ChunkKey.isChunkOf(chunk, new byte[] {2, 'q', 'u', 'e', 'u', 'e'}), "another db");
    assertFalse(ChunkKey.isChunkOf(chunk, new byte[] {3, 'q', 'u', 'e', 'u'}), "another key");
    assertArrayEquals(HexFormat.of().parseHex("83000000000000002a000000077175657565"), chunk);
    for (int db = 0; db < Keyspace.DATABASES; db++) {
      assertFalse(ChunkKey.isChunkKey(Keyspace.storedKey(db, new byte[] {(byte) 0x80})));
    }
  }
}
