package org.d2l.multigpu.bench;

import java.io.IOException;
import java.util.Locale;
import org.d2l.multigpu.bench.harness.MarkdownTable;
import org.d2l.multigpu.bench.harness.Measurements;

/**
 * The table of the peer suite: examples per second, median step time and its ratio to PyTorch's
 * (or, without PyTorch, to the first Java run's), minor page faults per step and peak RSS, with the
 * per-round figures below it.
 */
final class PeerReport {

    private PeerReport() {}

    /** Formats the runs of every configuration ({@code [examples/s, peak RSS kB, ms/step, faults/step]} each). */
    static String table(BenchOptions o, Measurements runs) throws IOException {
        StringBuilder sb = new StringBuilder(TrainerReport.heading(o));
        String base = runs.configs().get(0);
        if (!base.equals("torch")) {
            sb.append("PyTorch peer not run (no python3 with torch): ratios are to the first Java run.\n\n");
        }
        sb.append(String.format(Locale.ROOT, "%s intra-op threads in every run; ms/step is the median of the timed "
                + "steps' times; a ratio above 1 is slower than %s.%n%n", o.threads == null ? "PyTorch's default"
                : String.valueOf(o.threads), TrainerReport.label(base, o)));
        MarkdownTable t = new MarkdownTable().text("run").number("examples/s (median)", 1).number("ms/step (median)", 1)
                .number("step time / " + (base.equals("torch") ? "PyTorch's" : "first run's")
                        + " (median of per-round ratios)", 3)
                .number("minor page faults per step (median)", 0).number("peak RSS MB (max)", 0);
        for (String c : runs.configs()) {
            t.row(TrainerReport.label(c, o), runs.median(c, 0), runs.median(c, 2), runs.ratio(c, base, 2),
                    runs.median(c, 3), runs.max(c, 1) / 1024);
        }
        sb.append(t).append("\n```\n");
        for (int r = 0; r < runs.rounds(); r++) {
            for (String c : runs.configs()) {
                double[] a = runs.run(c, r);
                sb.append(String.format(Locale.ROOT, "round %d %-9s %8.1f ms/step %9.1f examples/s %7.0f faults/step %6.0f MB%n",
                        r + 1, c, a[2], a[0], a[3], a[1] / 1024));
            }
        }
        return sb.append("```\n").toString();
    }
}
