package dev.larder.spring;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Starts the sample application with properties, as the tests need it. */
final class Apps {

  private Apps() {}

  static ConfigurableApplicationContext start(String... properties) {
    return new SpringApplicationBuilder(SampleApplication.class)
        .web(WebApplicationType.NONE)
        .properties("spring.main.banner-mode=off", "logging.level.root=warn")
        .properties(properties)
        .run();
  }

  /** Returns every exception of the chain, one per line, class and message. */
  static String chain(Throwable e) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      text.append(t.getClass().getName()).append(": ").append(t.getMessage()).append('\n');
    }
    return text.toString();
  }
}
