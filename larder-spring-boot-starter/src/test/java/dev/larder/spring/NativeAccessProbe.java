package dev.larder.spring;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/**
 * The main class of the executable jar {@link NativeAccessWarningTest} builds: loads Larder through
 * a class loader of its own, as Boot's launcher loads an application's nested jars, and builds an
 * off-heap cache, the first use of the FFM linker.
 */
public final class NativeAccessProbe {

  private NativeAccessProbe() {}

  /**
   * Builds an off-heap cache from Larder loaded off the given class path, and exits.
   *
   * @param args the class path to load Larder from
   * @throws Exception if Larder cannot be loaded or the cache built
   */
  public static void main(String[] args) throws Exception {
    List<URL> urls = new ArrayList<>();
    for (String entry : args[0].split(File.pathSeparator, -1)) {
      urls.add(new File(entry).toURI().toURL());
    }
    try (URLClassLoader loader =
        new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
      Class<?> cache = loader.loadClass("dev.larder.Cache");
      Object builder =
          cache
              .getMethod("builder", Class.class, Class.class)
              .invoke(null, String.class, String.class);
      builder = builder.getClass().getMethod("maximumMemory", long.class).invoke(builder, 1L << 20);
      Object built = builder.getClass().getMethod("build").invoke(builder);
      cache.getMethod("put", Object.class, Object.class).invoke(built, "k", "v");
      System.out.println(
          "value " + cache.getMethod("getIfPresent", Object.class).invoke(built, "k"));
      cache.getMethod("close").invoke(built);
    }
  }
}
