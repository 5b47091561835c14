package dev.larder.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every {@code larder.*} property is declared once (the properties classes), described in the
 * generated configuration metadata IDEs read, and documented in docs/spring.md's table.
 */
class PropertiesMetadataTest {

  private static final Pattern PROPERTY =
      Pattern.compile(
          "\\{\\s*\"name\"\\s*:\\s*\"([^\"]+)\"[^}]*?\"description\"\\s*:\\s*\"([^\"]*)\"");

  private static Map<String, String> metadata() throws Exception {
    try (InputStream in =
        PropertiesMetadataTest.class.getResourceAsStream(
            "/META-INF/spring-configuration-metadata.json")) {
      assertTrue(
          in != null,
          "no spring-configuration-metadata.json: is the configuration" + " processor running?");
      String json = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      int properties = json.indexOf("\"properties\"");
      Matcher m = PROPERTY.matcher(json.substring(properties));
      Map<String, String> out = new TreeMap<>();
      while (m.find()) {
        out.put(m.group(1), m.group(2));
      }
      return out;
    }
  }

  private static SortedSet<String> specProperties() throws Exception {
    TreeSet<String> names = new TreeSet<>();
    for (PropertyDescriptor p :
        Introspector.getBeanInfo(CacheSpec.class, Object.class).getPropertyDescriptors()) {
      if (p.getWriteMethod() != null) {
        names.add(p.getName().replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT));
      }
    }
    return names;
  }

  @Test
  void everyPropertyHasMetadataWithADescription() throws Exception {
    Map<String, String> metadata = metadata();
    for (String property : specProperties()) {
      String description = metadata.get("larder.defaults." + property);
      assertTrue(
          description != null && !description.isBlank(),
          "larder.defaults." + property + " in " + metadata.keySet());
    }
    assertFalse(metadata.get("larder.enabled").isBlank());
    assertFalse(metadata.get("larder.caches").isBlank());
    assertEquals(specProperties().size() + 2, metadata.size(), metadata.keySet().toString());
  }

  @Test
  void everyPropertyIsInTheDocsTableWithTheDefaultBound() throws Exception {
    String docs = Files.readString(Path.of("..", "docs", "spring.md"));
    for (String property : specProperties()) {
      assertTrue(docs.contains("| `" + property + "` |"), property + " in docs/spring.md");
    }
    assertTrue(docs.contains("| `larder.enabled` |"), "larder.enabled in docs/spring.md");
    assertTrue(docs.contains("64MB"), "the default bound in docs/spring.md");
    assertEquals(64L << 20, LarderCacheManager.DEFAULT_MAXIMUM_MEMORY);
  }
}
