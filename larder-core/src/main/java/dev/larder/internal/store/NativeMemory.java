package dev.larder.internal.store;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.Optional;

/**
 * The three Linux system calls that page memory needs, bound through the FFM linker: {@code mmap}
 * of anonymous private memory, {@code madvise(MADV_DONTNEED)} to give a range's physical pages back
 * while keeping it mapped, and {@code munmap}, which only {@link #unmapWhenUnreachable} schedules.
 *
 * <p>Why not {@code malloc} or an {@link java.lang.foreign.Arena}: memory the system gives back on
 * request is what keeps the process's resident set near what the cache holds. glibc's malloc keeps
 * freed chunks (its mmap threshold rises to the size of the largest chunk freed, so pages end up in
 * its heaps and fragment them), and an arena frees only when closed, which for a shared arena stops
 * every thread. A range discarded with {@code MADV_DONTNEED} stays mapped and reads as zeros, so a
 * lock-free reader that still holds it can never fault.
 *
 * <p>Available only on Linux, and only where the JVM grants this module native access (under the
 * JDK's default the first use prints the JVM's warning; {@code --enable-native-access} silences it;
 * {@code --illegal-native-access=deny} refuses it). Thread-safe: the calls are stateless.
 */
final class NativeMemory {

  private static final int PROT_READ = 0x1;
  private static final int PROT_WRITE = 0x2;
  private static final int MAP_PRIVATE = 0x02;
  private static final int MAP_ANONYMOUS = 0x20;
  private static final int MADV_DONTNEED = 4;
  private static final long MAP_FAILED = -1L;

  /** The longest of the doubling sleeps between attempts to map, in milliseconds. */
  private static final long MAP_RETRY_SLEEP_LIMIT = 256;

  /** The system page size assumed; every mapping and discard is a multiple of it. */
  static final int OS_PAGE = 4096;

  private static final Calls CALLS = Calls.bind().orElse(null);

  private NativeMemory() {}

  /** Returns true if the calls are bound and may be used. */
  static boolean available() {
    return CALLS != null;
  }

  /**
   * Maps {@code bytes} of zeroed memory, reserved but not resident until touched. If the system
   * refuses, closed caches' mappings that only wait for the collector (see {@link
   * #unmapWhenUnreachable}) may be what fills the address space or the map count: a collection is
   * requested and the mapping tried again, for up to about half a second, as the JDK does for
   * direct buffers.
   *
   * @param bytes a positive multiple of {@link #OS_PAGE}
   * @return the address
   * @throws OutOfMemoryError if the system still refuses
   */
  static long map(long bytes) {
    long address = tryMap(bytes);
    for (long sleep = 1; address == 0 && sleep <= MAP_RETRY_SLEEP_LIMIT; sleep <<= 1) {
      System.gc();
      try {
        Thread.sleep(sleep);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      address = tryMap(bytes);
    }
    if (address == 0) {
      throw new OutOfMemoryError("mmap of " + bytes + " bytes for cache pages failed");
    }
    return address;
  }

  /** Returns the address of a new mapping, or 0 if the system refused. */
  private static long tryMap(long bytes) {
    long address;
    try {
      address =
          (long)
              CALLS.mmap.invokeExact(
                  0L, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);
    } catch (Throwable e) {
      throw new IllegalStateException("mmap failed", e);
    }
    return address == MAP_FAILED ? 0 : address;
  }

  /** Gives the physical pages of a mapped range back; the range stays mapped and reads zeros. */
  static void discard(long address, long bytes) {
    int result;
    try {
      result = (int) CALLS.madvise.invokeExact(address, bytes, MADV_DONTNEED);
    } catch (Throwable e) {
      throw new IllegalStateException("madvise failed", e);
    }
    if (result != 0) {
      throw new IllegalStateException("madvise(MADV_DONTNEED) of " + bytes + " bytes failed");
    }
  }

  /**
   * Has a mapping unmapped once {@code arena} (an automatic one) has become unreachable, that is,
   * once no segment of it is reachable and no thread is inside an access to one: the JDK keeps an
   * arena's scope reachable for the length of every access through its segments, so this is the
   * moment after which nothing can touch the mapping.
   *
   * @param address the mapping's address, from {@link #map}
   * @param bytes its length
   * @param arena the automatic arena whose segments are the only way to reach the mapping
   */
  @SuppressWarnings("restricted") // native access is checked once, in Calls.bind
  static void unmapWhenUnreachable(long address, long bytes, Arena arena) {
    try {
      // The cleanup is a static method: a lambda capturing the arena would keep it reachable.
      MemorySegment.ofAddress(address).reinterpret(bytes, arena, NativeMemory::unmap);
    } catch (RuntimeException | Error e) {
      unmap(address, bytes);
      throw e;
    }
  }

  /** Unmaps a mapping handed to {@link #unmapWhenUnreachable}, from the arena's cleaner. */
  private static void unmap(MemorySegment mapping) {
    unmap(mapping.address(), mapping.byteSize());
  }

  /** Unmaps a range; nothing may touch it afterwards. */
  private static void unmap(long address, long bytes) {
    int result;
    try {
      result = (int) CALLS.munmap.invokeExact(address, bytes);
    } catch (Throwable e) {
      throw new IllegalStateException("munmap failed", e);
    }
    if (result != 0) {
      throw new IllegalStateException("munmap of " + bytes + " bytes failed");
    }
  }

  /** Returns {@code bytes} rounded up to a multiple of {@link #OS_PAGE}. */
  static long roundUp(long bytes) {
    return (bytes + OS_PAGE - 1) & -OS_PAGE;
  }

  /** The bound method handles; pointers and sizes pass as longs (LP64). */
  private record Calls(MethodHandle mmap, MethodHandle madvise, MethodHandle munmap) {

    @SuppressWarnings("restricted") // refused where native access is denied: caught below
    static Optional<Calls> bind() {
      String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
      if (!os.startsWith("linux") || ValueLayout.ADDRESS.byteSize() != Long.BYTES) {
        return Optional.empty();
      }
      try {
        Linker linker = Linker.nativeLinker();
        SymbolLookup lookup = linker.defaultLookup();
        ValueLayout.OfLong word = ValueLayout.JAVA_LONG;
        ValueLayout.OfInt integer = ValueLayout.JAVA_INT;
        return Optional.of(
            new Calls(
                linker.downcallHandle(
                    lookup.findOrThrow("mmap"),
                    FunctionDescriptor.of(word, word, word, integer, integer, integer, word)),
                linker.downcallHandle(
                    lookup.findOrThrow("madvise"),
                    FunctionDescriptor.of(integer, word, word, integer)),
                linker.downcallHandle(
                    lookup.findOrThrow("munmap"), FunctionDescriptor.of(integer, word, word))));
      } catch (IllegalCallerException
          | UnsupportedOperationException
          | java.util.NoSuchElementException e) {
        // Native access denied, or no such symbols: pages fall back to automatic arenas.
        return Optional.empty();
      }
    }
  }
}
