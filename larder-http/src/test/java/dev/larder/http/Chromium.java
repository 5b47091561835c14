package dev.larder.http;

import dev.larder.testing.RequiredTool;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's headless Chromium through the system chromedriver, for the console's browser tests
 * (skipped saying what to install when either is missing, failed under CI). Selenium Manager is
 * never asked for a driver: the driver's path is given, and surefire sets {@code SE_OFFLINE=true}.
 */
final class Chromium {

  static final Path BINARY = Path.of("/usr/bin/chromium");
  static final Path DRIVER = Path.of("/usr/bin/chromedriver");

  private Chromium() {}

  /**
   * Returns a running browser; quit it when done.
   *
   * @param width the window's width in CSS pixels
   * @param height its height
   * @param arguments further Chromium arguments
   */
  static ChromeDriver start(int width, int height, String... arguments) {
    RequiredTool.at(BINARY, "chromium");
    RequiredTool.at(DRIVER, "chromium-driver");
    System.setProperty("webdriver.chrome.driver", DRIVER.toString());
    ChromeOptions options = new ChromeOptions();
    options.setBinary(BINARY.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=" + width + "," + height,
        "--hide-scrollbars",
        "--force-device-scale-factor=1");
    options.addArguments(arguments);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(DRIVER.toString()))
            .usingAnyFreePort()
            .build();
    return new ChromeDriver(service, options);
  }

  /**
   * Saves the page as {@code target/<name>.png}, where the test output is.
   *
   * @return the file
   */
  static Path screenshot(ChromeDriver driver, String name) throws java.io.IOException {
    Path shot = Path.of("target", "console-screenshots", name + ".png");
    Files.createDirectories(shot.getParent());
    Files.write(shot, driver.getScreenshotAs(OutputType.BYTES));
    return shot;
  }
}
