package io.ccm4j.lab;

import java.util.ArrayList;
import java.util.List;

/**
 * Places a timeline row's labels so that none overlaps another or runs off the chart: each label
 * goes right of its point, or left of it where it would run past the right edge, in the first lane
 * (a line below the row's axis) where it clears the labels already there. The row grows by as many
 * lanes as it needs.
 */
final class LabelLayout {

  /** Width of one character of the labels' font (9 px sans-serif), a little generous. */
  static final double CHAR_WIDTH = 5.6;

  private static final double GAP = 6;

  /** A label to place: its point's x and its text. */
  record Label(double x, String text) {}

  /** Where a label goes: its text's left edge, its lane (0 the first), and its width. */
  record Placed(double left, int lane, double width) {
    double right() {
      return left + width;
    }
  }

  private LabelLayout() {}

  /**
   * @param labels in the order they should claim lanes (by time)
   * @param minX the chart's left edge
   * @param maxX the chart's right edge
   */
  static List<Placed> place(List<Label> labels, double minX, double maxX) {
    List<List<Placed>> lanes = new ArrayList<>();
    List<Placed> placed = new ArrayList<>();
    for (Label label : labels) {
      double width = label.text().length() * CHAR_WIDTH;
      double left = label.x() + GAP;
      if (left + width > maxX) {
        left = label.x() - GAP - width; // to the left of the point
      }
      left = Math.max(minX, Math.min(left, maxX - width));
      int lane = 0;
      while (true) {
        if (lane == lanes.size()) {
          lanes.add(new ArrayList<>());
        }
        double candidateLeft = left;
        boolean clear =
            lanes.get(lane).stream()
                .allMatch(
                    other ->
                        candidateLeft + width + GAP <= other.left()
                            || other.right() + GAP <= candidateLeft);
        if (clear) {
          break;
        }
        lane++;
      }
      Placed result = new Placed(left, lane, width);
      lanes.get(lane).add(result);
      placed.add(result);
    }
    return placed;
  }
}
