package dev.larder.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/** The caches' MXBeans, registered as Boot's {@code spring.jmx.*} properties say. */
@ExtendWith(OutputCaptureExtension.class)
class JmxRegistrationTest {

  private static final String[] BOOKS = {
    "larder.caches.books.key-type=java.lang.Long",
    "larder.caches.books.value-type=dev.larder.spring.Book"
  };
  private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

  private static ObjectName name(String cache) throws Exception {
    return new ObjectName("dev.larder:type=Cache,name=" + ObjectName.quote(cache));
  }

  @Test
  void cachesAreRegisteredWithSpringJmxEnabledAndUnregisteredAtClose() throws Exception {
    try (ConfigurableApplicationContext context =
        Apps.start("spring.jmx.enabled=true", BOOKS[0], BOOKS[1])) {
      assertTrue(JMX.isRegistered(name("books")));
      context.getBean(BookService.class).find(4);
      context.getBean(BookService.class).find(4);
      assertEquals(1L, JMX.getAttribute(name("books"), "HitCount"));
      assertEquals(1L, JMX.getAttribute(name("books"), "EstimatedSize"));
    }
    assertFalse(JMX.isRegistered(name("books")), "unregistered when the context closes");
  }

  @Test
  void noCacheIsRegisteredWithoutSpringJmxEnabled() throws Exception {
    try (ConfigurableApplicationContext context = Apps.start(BOOKS)) {
      assertTrue(context.isActive());
      assertFalse(JMX.isRegistered(name("books")));
    }
  }

  @Test
  void twoContextsNeedUniqueNamesAndTheReportSaysSo(CapturedOutput output) throws Exception {
    try (ConfigurableApplicationContext first =
        Apps.start("spring.jmx.enabled=true", BOOKS[0], BOOKS[1])) {
      assertThrows(
          Exception.class, () -> Apps.start("spring.jmx.enabled=true", BOOKS[0], BOOKS[1]));
      assertTrue(output.toString().contains("APPLICATION FAILED TO START"), output.toString());
      assertTrue(output.toString().contains("spring.jmx.unique-names=true"), output.toString());
      assertTrue(
          first.isActive() && JMX.isRegistered(name("books")), "the first context keeps its cache");
    }
    try (ConfigurableApplicationContext a =
            Apps.start(
                "spring.jmx.enabled=true", "spring.jmx.unique-names=true", BOOKS[0], BOOKS[1]);
        ConfigurableApplicationContext b =
            Apps.start(
                "spring.jmx.enabled=true", "spring.jmx.unique-names=true", BOOKS[0], BOOKS[1])) {
      Set<ObjectName> names =
          JMX.queryNames(new ObjectName("dev.larder:type=Cache,name=\"books@*\""), null);
      assertEquals(2, names.size(), names.toString());
      assertTrue(a.isActive() && b.isActive());
    }
  }
}
