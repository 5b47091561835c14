package dev.larder.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What docs/spring.md tells a Boot user about the JVM's native-access warning: an executable jar
 * whose manifest says {@code Enable-Native-Access: ALL-UNNAMED} runs Larder loaded by a class
 * loader of the jar's own (as Boot's launcher loads nested jars) without the warning; without the
 * attribute the warning appears, naming the option.
 */
@Timeout(120)
class NativeAccessWarningTest {

  @Test
  void theManifestAttributeSilencesTheWarningForNestedClassLoaders(@TempDir Path dir)
      throws Exception {
    String without = run(jar(dir.resolve("plain.jar"), false));
    assertTrue(
        without.contains("restricted method")
            && without.contains("--enable-native-access=ALL-UNNAMED"),
        "the JVM warns without the attribute:\n" + without);
    String with = run(jar(dir.resolve("enabled.jar"), true));
    assertFalse(with.contains("WARNING"), "no warning with the attribute:\n" + with);
  }

  private static Path jar(Path file, boolean enableNativeAccess) throws Exception {
    Manifest manifest = new Manifest();
    Attributes main = manifest.getMainAttributes();
    main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
    main.put(Attributes.Name.MAIN_CLASS, NativeAccessProbe.class.getName());
    if (enableNativeAccess) {
      main.put(new Attributes.Name("Enable-Native-Access"), "ALL-UNNAMED");
    }
    String entry = NativeAccessProbe.class.getName().replace('.', '/') + ".class";
    try (OutputStream out = Files.newOutputStream(file);
        JarOutputStream jar = new JarOutputStream(out, manifest)) {
      jar.putNextEntry(new JarEntry(entry));
      jar.write(NativeAccessProbe.class.getResourceAsStream("/" + entry).readAllBytes());
      jar.closeEntry();
    }
    return file;
  }

  private static String run(Path jar) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(java, "-jar", jar.toString(), System.getProperty("java.class.path"))
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the probe finished");
    assertEquals(0, p.exitValue(), output);
    assertTrue(output.contains("value v"), output);
    return output;
  }
}
