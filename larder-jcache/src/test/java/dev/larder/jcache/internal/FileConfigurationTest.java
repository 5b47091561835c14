package dev.larder.jcache.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.codec.Codecs;
import dev.larder.jcache.LarderConfiguration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.cache.CacheException;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.expiry.EternalExpiryPolicy;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.expiry.TouchedExpiryPolicy;
import org.junit.jupiter.api.Test;

class FileConfigurationTest {

  private static FileConfiguration parse(String... keyValues) {
    StringBuilder text = new StringBuilder(FileConfiguration.FORMAT_KEY + " = 1\n");
    for (int i = 0; i < keyValues.length; i += 2) {
      text.append(keyValues[i]).append(" = ").append(keyValues[i + 1]).append('\n');
    }
    return FileConfiguration.parse(NumberedProperties.parse(text.toString()), "test");
  }

  private FileSettingsApplier applier(String cacheName) {
    return new FileSettingsApplier(
        getClass().getClassLoader(), "cache '" + cacheName + "'", setting -> "test");
  }

  @Test
  void cacheSettingsOverrideDefaults() {
    FileConfiguration file =
        parse(
            "default.maximumMemory",
            "2m",
            "default.storage",
            "HEAP",
            "cache.a.maximumMemory",
            "4m");
    Map<FileSetting, String> a = file.settingsFor("a");
    assertEquals("4m", a.get(FileSetting.MAXIMUM_MEMORY));
    assertEquals("HEAP", a.get(FileSetting.STORAGE));
    assertEquals("2m", file.settingsFor("b").get(FileSetting.MAXIMUM_MEMORY));
    assertEquals(Set.of("a"), file.cacheNames());
  }

  @Test
  void aCacheBoundReplacesADefaultBoundOfTheOtherKind() {
    FileConfiguration file = parse("default.maximumMemory", "2m", "cache.a.maximumEntries", "10");
    assertEquals(Map.of(FileSetting.MAXIMUM_ENTRIES, "10"), file.settingsFor("a"));
    LarderConfiguration<Object, Object> config = new LarderConfiguration<>();
    CacheException both =
        assertThrows(
            CacheException.class,
            () ->
                applier("b")
                    .apply(
                        Map.of(FileSetting.MAXIMUM_MEMORY, "1m", FileSetting.MAXIMUM_ENTRIES, "5"),
                        config));
    assertTrue(both.getMessage().contains("exclusive"), both.getMessage());
  }

  @Test
  void keysMustBeDefaultOrCache() {
    assertThrows(CacheException.class, () -> parse("caches.a.storage", "HEAP"));
    assertThrows(CacheException.class, () -> parse("default.a.storage", "HEAP"));
    assertThrows(CacheException.class, () -> parse("cache.storage", "HEAP"));
  }

  @Test
  void onlyFormatVersionOneIsAccepted() {
    CacheException e =
        assertThrows(
            CacheException.class,
            () ->
                FileConfiguration.parse(
                    NumberedProperties.parse("# comment\n\nlarder.jcache.format = 2\n"),
                    "f.properties"));
    assertTrue(e.getMessage().startsWith("f.properties, line 3:"), e.getMessage());
  }

  @Test
  void sizes() {
    assertEquals(65536, FileSettingsApplier.parseSize("65536"));
    assertEquals(64L << 10, FileSettingsApplier.parseSize("64k"));
    assertEquals(64L << 10, FileSettingsApplier.parseSize("64KiB"));
    assertEquals(256L << 20, FileSettingsApplier.parseSize("256MB"));
    assertEquals(2L << 30, FileSettingsApplier.parseSize("2g"));
    assertEquals(12, FileSettingsApplier.parseSize("12b"));
    assertThrows(NumberFormatException.class, () -> FileSettingsApplier.parseSize("1b0"));
    assertThrows(NumberFormatException.class, () -> FileSettingsApplier.parseSize("lots"));
    assertThrows(ArithmeticException.class, () -> FileSettingsApplier.parseSize("99999999999g"));
  }

  @Test
  void durationsAndExpiry() {
    assertEquals(
        new Duration(TimeUnit.MILLISECONDS, 250), FileSettingsApplier.parseDuration("250ms"));
    assertEquals(new Duration(TimeUnit.HOURS, 2), FileSettingsApplier.parseDuration("2h"));
    assertThrows(IllegalArgumentException.class, () -> FileSettingsApplier.parseDuration("2w"));
    ExpiryPolicy created = FileSettingsApplier.expiry("created:10s").create();
    assertTrue(created instanceof CreatedExpiryPolicy);
    assertEquals(new Duration(TimeUnit.SECONDS, 10), created.getExpiryForCreation());
    assertTrue(FileSettingsApplier.expiry("touched:1d").create() instanceof TouchedExpiryPolicy);
    assertTrue(FileSettingsApplier.expiry("eternal").create() instanceof EternalExpiryPolicy);
    assertThrows(IllegalArgumentException.class, () -> FileSettingsApplier.expiry("sometimes:1s"));
  }

  @Test
  void codecsByNameAndByClass() {
    LarderConfiguration<Object, Object> config = new LarderConfiguration<>();
    FileSettingsApplier applier = applier("c");
    applier.apply(
        Map.of(
            FileSetting.KEY_CODEC,
            "string",
            FileSetting.VALUE_CODEC,
            UpperCaseCodec.class.getName()),
        config);
    assertEquals(Codecs.strings(), config.getKeyCodec());
    Object valueCodec = config.getValueCodec();
    assertTrue(valueCodec instanceof UpperCaseCodec);
  }

  @Test
  void badValuesNameCacheSettingAndValue() {
    LarderConfiguration<Object, Object> config = new LarderConfiguration<>();
    FileSettingsApplier applier = applier("c");
    CacheException e =
        assertThrows(
            CacheException.class, () -> applier.apply(Map.of(FileSetting.STORAGE, "DISK"), config));
    assertTrue(
        e.getMessage().contains("'c'")
            && e.getMessage().contains("storage")
            && e.getMessage().contains("DISK"),
        e.getMessage());
    assertThrows(
        CacheException.class,
        () -> applier.apply(Map.of(FileSetting.VALUE_CODEC, "java.lang.String"), config));
    assertThrows(
        CacheException.class,
        () -> applier.apply(Map.of(FileSetting.MAXIMUM_MEMORY, "1k"), config));
  }

  @Test
  void theReadmeAndTheSpecListEverySetting() throws java.io.IOException {
    for (String doc : new String[] {"README.md", "../docs/spec/jcache-config-file.md"}) {
      String text = java.nio.file.Files.readString(java.nio.file.Path.of(doc));
      for (FileSetting setting : FileSetting.values()) {
        assertTrue(text.contains("| `" + setting.key() + "` |"), doc + ": " + setting.key());
      }
    }
  }

  @Test
  void everySettingIsDocumentedOnce() {
    for (FileSetting setting : FileSetting.values()) {
      assertEquals(setting, FileSetting.byKey(setting.key()).orElseThrow());
      assertTrue(!setting.description().isBlank() && !setting.defaultValue().isBlank());
    }
  }
}
