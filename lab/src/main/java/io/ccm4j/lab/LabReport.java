package io.ccm4j.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A self-contained HTML page: the verdict, which kubelets the nodes ran on and an SVG timeline of
 * the bootstrap, one row per subject; zero is when the manifests were applied, the setup before it
 * at negative times. Beside it, where the lab collected its evidence, the JSON of {@link
 * LabEvidence}.
 */
public final class LabReport {

  /** Width of one character of the subjects' font (11 px sans-serif), a little generous. */
  static final double SUBJECT_CHAR_WIDTH = 6.6;

  private LabReport() {}

  /** Writes {@code lab-<scenario>.html} and, with evidence, {@code lab-<scenario>.json}. */
  public static Path write(LabResult result, Path directory) throws IOException {
    Files.createDirectories(directory);
    Path file = directory.resolve("lab-" + result.scenario() + ".html");
    Files.writeString(file, html(result));
    if (result.evidence().isPresent()) {
      result.evidence().get().write(result, directory);
    }
    return file;
  }

  /** Which kubelets the nodes ran on, with each node's kubelet and runtime as it reported them. */
  static String nodesParagraph(LabEvidence evidence) {
    return "<p class=\"kubelets\">On %s kubelets: %s</p>"
        .formatted(
            escape(evidence.kubelets()),
            escape(
                String.join(
                    ", ",
                    evidence.nodes().stream()
                        .map(
                            n ->
                                "%s (kubelet %s, %s)"
                                    .formatted(
                                        n.name(), n.kubeletVersion(), n.containerRuntimeVersion()))
                        .toList())));
  }

  static String html(LabResult result) {
    List<Timeline.Entry> entries = result.timeline().entries();
    Map<String, List<Timeline.Entry>> rows = new LinkedHashMap<>();
    entries.forEach(e -> rows.computeIfAbsent(e.subject(), s -> new ArrayList<>()).add(e));
    // From the earliest setup moment (negative: before the manifests were applied) to the end.
    double begin =
        Math.min(0, entries.stream().mapToDouble(Timeline.Entry::seconds).min().orElse(0));
    double end =
        Math.max(
            1,
            Math.max(
                result.seconds(),
                entries.stream().mapToDouble(Timeline.Entry::seconds).max().orElse(1)));
    // The subjects' column is as wide as the longest subject (a CCM pod's name is long).
    int left =
        (int)
            Math.ceil(
                Math.max(
                    120,
                    rows.keySet().stream().mapToInt(String::length).max().orElse(0)
                            * SUBJECT_CHAR_WIDTH
                        + 12));
    int width = 900;
    int laneHeight = 12;
    double span = end - begin;
    Map<String, List<LabelLayout.Placed>> layouts = new LinkedHashMap<>();
    int height = 40;
    for (Map.Entry<String, List<Timeline.Entry>> subject : rows.entrySet()) {
      List<LabelLayout.Label> labels =
          subject.getValue().stream()
              .map(
                  e ->
                      new LabelLayout.Label(
                          left + (e.seconds() - begin) / span * width, fitted(e.what(), width)))
              .toList();
      List<LabelLayout.Placed> placed = LabelLayout.place(labels, left, left + width);
      layouts.put(subject.getKey(), placed);
      int lanes = placed.stream().mapToInt(LabelLayout.Placed::lane).max().orElse(0) + 1;
      height += 18 + lanes * laneHeight;
    }
    StringBuilder svg = new StringBuilder();
    svg.append(
        "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' font-family='sans-serif' font-size='11' data-left='%d'>"
            .formatted(left + width + 40, height, left));
    double step = Math.max(1, Math.ceil(span / 10));
    for (double s = Math.ceil(begin / step) * step; s <= end; s += step) {
      double x = left + (s - begin) / span * width;
      svg.append(
          "<line x1='%.1f' y1='20' x2='%.1f' y2='%d' stroke='%s'/>"
              .formatted(x, x, height, s == 0 ? "#888" : "#ddd"));
      // + 0.0: a tick at -0.0 reads 0s, not -0s
      svg.append("<text x='%.1f' y='14' text-anchor='middle'>%.0fs</text>".formatted(x, s + 0.0));
    }
    int y = 40;
    for (Map.Entry<String, List<Timeline.Entry>> subject : rows.entrySet()) {
      List<LabelLayout.Placed> placed = layouts.get(subject.getKey());
      svg.append(
          "<text class='subject' x='4' y='%d'>%s</text>"
              .formatted(y + 4, escape(subject.getKey())));
      svg.append(
          "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#999'/>"
              .formatted(left, y, left + width, y));
      List<Timeline.Entry> moments = subject.getValue();
      for (int i = 0; i < moments.size(); i++) {
        Timeline.Entry entry = moments.get(i);
        double x = left + (entry.seconds() - begin) / span * width;
        svg.append(
            "<circle cx='%.1f' cy='%d' r='5' fill='%s'><title>%.1f s: %s</title></circle>"
                .formatted(x, y, color(entry.what()), entry.seconds(), escape(entry.what())));
        LabelLayout.Placed label = placed.get(i);
        svg.append(
            "<text x='%.1f' y='%d' font-size='9'>%s</text>"
                .formatted(
                    label.left(),
                    y + 16 + label.lane() * laneHeight,
                    escape(fitted(entry.what(), width))));
      }
      int lanes = placed.stream().mapToInt(LabelLayout.Placed::lane).max().orElse(0) + 1;
      y += 18 + lanes * laneHeight;
    }
    svg.append("</svg>");
    StringBuilder table =
        new StringBuilder("<table><tr><th>s</th><th>subject</th><th>what</th></tr>");
    for (Timeline.Entry entry : entries) {
      table.append(
          "<tr><td>%.1f</td><td>%s</td><td>%s</td></tr>"
              .formatted(entry.seconds(), escape(entry.subject()), escape(entry.what())));
    }
    table.append("</table>");
    String verdict =
        LabResult.BOOTSTRAPPED.equals(result.verdict())
            ? "Bootstrapped in %.1f s".formatted(result.seconds())
            : "%s after %.1f s".formatted(result.verdict(), result.seconds());
    StringBuilder explanation = new StringBuilder();
    result
        .explanation()
        .forEach(line -> explanation.append("<li>").append(escape(line)).append("</li>"));
    String traffic =
        result
            .traffic()
            .map(
                t ->
                    "<p class=\"%s\">Traffic: %s</p>"
                        .formatted(t.answered() ? "ok" : "bad", escape(t.summary())))
            .orElse("");
    return """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>ccm4j lab: %s</title>
        <style>body{font-family:sans-serif;margin:2em} td,th{padding:2px 8px;text-align:left} .ok{color:#1a7f37} .bad{color:#cf222e}</style>
        </head><body>
        <h1>ccm4j lab: %s</h1>
        <h2 class="%s">%s</h2>
        <ul>%s</ul>
        %s
        %s
        %s
        <h3>Timeline</h3>
        %s
        </body></html>
        """
        .formatted(
            escape(result.scenario()),
            escape(result.scenario()),
            result.succeeded() ? "ok" : "bad",
            escape(verdict),
            explanation,
            result.evidence().map(LabReport::nodesParagraph).orElse(""),
            traffic,
            svg,
            table);
  }

  /**
   * A label no wider than the chart, cut with an ellipsis (the dot's tooltip and the table below
   * keep the whole text).
   */
  static String fitted(String text, int chartWidth) {
    int max = (int) (chartWidth / LabelLayout.CHAR_WIDTH);
    return text.length() <= max ? text : text.substring(0, max - 1) + "\u2026";
  }

  private static String color(String what) {
    if (what.contains("initialised") || what.contains("Ready") || what.contains("leads")) {
      return "#1a7f37";
    }
    if (what.contains("pending") || what.contains("waiting") || what.contains("NotReady")) {
      return "#cf222e";
    }
    return "#0969da";
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("'", "&#39;");
  }
}
