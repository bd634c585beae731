package io.purgatory.demo.broker.http;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The dashboard's browser tests' headless Chromium, driven through Debian's chromedriver by
 * Selenium: the browser is required, never skipped; without it a test fails and says how to
 * install it ({@code .ci/run} does). {@code -Dchromium.binary} and {@code -Dchromedriver.binary}
 * point elsewhere; Selenium Manager is never asked to download anything.
 *
 * <p>Not thread-safe: one test thread drives one browser.
 */
final class Browser implements AutoCloseable {
    private static final Path CHROMIUM = Path.of(System.getProperty("chromium.binary", "/usr/bin/chromium"));
    private static final Path CHROMEDRIVER = Path.of(System.getProperty("chromedriver.binary", "/usr/bin/chromedriver"));

    private final WebDriver driver;

    private Browser(WebDriver driver) {
        this.driver = driver;
    }

    /** Fails, saying how to install them, when Chromium or its driver is missing. */
    static void requireInstalled() {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            fail("the dashboard's browser test needs Chromium and its driver: " + CHROMIUM + " and " + CHROMEDRIVER
                    + " are not both there. Install them with 'apt-get install -y chromium chromium-driver'"
                    + " (.ci/run does), or point -Dchromium.binary and -Dchromedriver.binary at them.");
        }
    }

    /** Starts headless Chromium, 1400 pixels wide, recording the page's console. */
    static Browser start() {
        LoggingPreferences logging = new LoggingPreferences();
        logging.enable(LogType.BROWSER, Level.ALL);
        ChromeOptions options = new ChromeOptions()
                .setBinary(CHROMIUM.toFile())
                .addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                        "--window-size=1400,1200", "--hide-scrollbars");
        options.setCapability("goog:loggingPrefs", logging);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER.toString()))
                .usingAnyFreePort()
                .build();
        return new Browser(new ChromeDriver(service, options));
    }

    WebDriver driver() {
        return driver;
    }

    /** Waits for the page: polled every 50 ms, for 15 s at most. */
    static ConditionFactory page() {
        return Awaitility.await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50)).atMost(Duration.ofSeconds(15))
                .ignoreExceptions();
    }

    /** The text of the element with this id. */
    String text(String id) {
        return driver.findElement(By.id(id)).getText();
    }

    /** The page's console messages at SEVERE or above. */
    List<LogEntry> consoleErrors() {
        return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(entry -> entry.getLevel().intValue() >= Level.SEVERE.intValue())
                .collect(Collectors.toList());
    }

    /** Makes the page {@code width} CSS pixels wide (the window's height kept), and waits until it is. */
    void resizeTo(int width) {
        JavascriptExecutor js = (JavascriptExecutor) driver;
        Dimension size = driver.manage().window().getSize();
        long chrome = ((Number) js.executeScript("return window.outerWidth - window.innerWidth;")).longValue();
        driver.manage().window().setSize(new Dimension((int) (width + chrome), size.getHeight()));
        page().until(() -> ((Number) js.executeScript("return window.innerWidth;")).longValue() == width);
    }

    /** A screenshot of the whole page, the window first made as tall as the page (no blank area below the footer). */
    void screenshot(Path file) throws IOException {
        JavascriptExecutor js = (JavascriptExecutor) driver;
        long chrome = ((Number) js.executeScript("return window.outerHeight - window.innerHeight;")).longValue();
        String pageHeight = "return Math.ceil(document.body.getBoundingClientRect().height);";
        long page = ((Number) js.executeScript(pageHeight)).longValue();
        Dimension size = driver.manage().window().getSize();
        driver.manage().window().setSize(new Dimension(size.getWidth(), (int) (page + chrome)));
        page().until(() -> ((Number) js.executeScript("return window.innerHeight;")).longValue()
                == ((Number) js.executeScript(pageHeight)).longValue());
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.copy(((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE).toPath(), file, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void close() {
        driver.quit();
    }
}
