package io.ccm4j.lab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A lab report laid out by a real browser: Debian's Chromium, headless, renders the page with a
 * script that measures every text of the SVG timeline (its rendered box, in the browser's fonts)
 * and lists what overlaps another text, leaves the chart, or runs from the subjects' column into
 * the timeline. {@code scripts/test} installs Chromium where it can; without it there is no browser
 * to ask ({@link #find} is empty).
 */
public final class HeadlessChromium {

  private static final String CHECK =
      """
      <script>
      (() => {
        const svg = document.querySelector('svg');
        const chart = svg.getBoundingClientRect();
        const timelineStart = chart.left + Number(svg.dataset.left);
        const texts = [...svg.querySelectorAll('text')].map(t => ({
          text: t.textContent, box: t.getBoundingClientRect(), subject: t.classList.contains('subject')}));
        const problems = [];
        for (const t of texts) {
          if (t.box.left < chart.left - 0.5 || t.box.right > chart.right + 0.5
              || t.box.top < chart.top - 0.5 || t.box.bottom > chart.bottom + 0.5) {
            problems.push('outside the chart: ' + t.text);
          }
          if (t.subject && t.box.right > timelineStart - 2) {
            problems.push('runs into the timeline: ' + t.text);
          }
        }
        for (let i = 0; i < texts.length; i++) {
          for (let j = i + 1; j < texts.length; j++) {
            const a = texts[i].box, b = texts[j].box;
            const wide = Math.min(a.right, b.right) - Math.max(a.left, b.left);
            const high = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
            if (wide > 0.5 && high > 0.5) {
              problems.push('overlap: ' + texts[i].text + ' | ' + texts[j].text);
            }
          }
        }
        const out = document.createElement('pre');
        out.id = 'layout-check';
        out.textContent = 'texts=' + texts.length + '\\n' + problems.join('\\n');
        document.body.appendChild(out);
      })();
      </script>
      """;

  private static final Pattern RESULT =
      Pattern.compile("<pre id=\"layout-check\">texts=(\\d+)\\n?(.*?)</pre>", Pattern.DOTALL);

  private final Path executable;

  private HeadlessChromium(Path executable) {
    this.executable = executable;
  }

  /** Chromium, if this machine has one that starts. */
  public static Optional<HeadlessChromium> find() {
    for (String candidate : List.of("/usr/bin/chromium", "/usr/bin/chromium-browser")) {
      Path path = Path.of(candidate);
      if (Files.isExecutable(path)) {
        try {
          Process version =
              new ProcessBuilder(candidate, "--version").redirectErrorStream(true).start();
          if (version.waitFor(30, TimeUnit.SECONDS) && version.exitValue() == 0) {
            return Optional.of(new HeadlessChromium(path));
          }
          version.destroyForcibly();
        } catch (IOException e) {
          // not a working browser (Ubuntu's snap stub without snapd, for one)
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    return Optional.empty();
  }

  /** The texts the browser rendered and the layout problems it found. */
  public record Layout(int texts, List<String> problems) {}

  /** Renders the report (with the measuring script added) and reads what the script found. */
  public Layout layout(String reportHtml, Path workDirectory)
      throws IOException, InterruptedException {
    Path page = workDirectory.resolve("layout-check.html");
    Files.writeString(page, reportHtml.replace("</body>", CHECK + "</body>"));
    Path profile = Files.createTempDirectory(workDirectory, "chromium-profile");
    Path dom = workDirectory.resolve("layout-check.dom");
    Process browser =
        new ProcessBuilder(
                executable.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--user-data-dir=" + profile,
                "--dump-dom",
                page.toUri().toString())
            .redirectOutput(dom.toFile())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!browser.waitFor(90, TimeUnit.SECONDS)) {
      browser.destroyForcibly();
      throw new IOException("Chromium did not render " + page + " in 90 s");
    }
    String html = Files.readString(dom, StandardCharsets.UTF_8);
    Matcher result = RESULT.matcher(html);
    if (!result.find()) {
      throw new IOException(
          "Chromium (exit %d) rendered no layout check; its DOM began: %s"
              .formatted(browser.exitValue(), html.substring(0, Math.min(300, html.length()))));
    }
    List<String> problems = new ArrayList<>();
    for (String line : result.group(2).split("\n")) {
      if (!line.isBlank()) {
        problems.add(line.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"));
      }
    }
    return new Layout(Integer.parseInt(result.group(1)), problems);
  }
}
