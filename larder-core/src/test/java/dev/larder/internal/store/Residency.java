package dev.larder.internal.store;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/** Asks Linux which pages of a range are resident ({@code mincore}), for tests. */
final class Residency {

  private static final MethodHandle MINCORE = bind();

  private Residency() {}

  @SuppressWarnings("restricted")
  private static MethodHandle bind() {
    Linker linker = Linker.nativeLinker();
    return linker.downcallHandle(
        linker.defaultLookup().findOrThrow("mincore"),
        FunctionDescriptor.of(
            ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_LONG,
            ValueLayout.ADDRESS));
  }

  /** Returns resident bytes of a mapped range, or -1 if any part of it is not mapped. */
  static long residentBytes(long address, long length) {
    int pages = (int) (length / NativeMemory.OS_PAGE);
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment vector = arena.allocate(pages);
      int result = (int) MINCORE.invokeExact(address, length, vector);
      if (result != 0) {
        return -1;
      }
      long resident = 0;
      for (int i = 0; i < pages; i++) {
        resident += (vector.get(ValueLayout.JAVA_BYTE, i) & 1) * (long) NativeMemory.OS_PAGE;
      }
      return resident;
    } catch (Throwable e) {
      throw new AssertionError(e);
    }
  }
}
