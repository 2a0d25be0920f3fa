package org.d2l.multigpu.bench;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The table of the peer suite: examples per second, median step time and its ratio to PyTorch's
 * (or, without PyTorch, to the first Java run's), minor page faults per step and peak RSS, with the
 * per-round figures below it.
 */
final class PeerReport {

    private PeerReport() {}

    /** Formats the runs of every configuration ({@code [examples/s, peak RSS kB, ms/step, faults/step]} each). */
    static String table(String model, int batch, int steps, int warmup, int rounds, int limit, String threads,
            Map<String, List<double[]>> runs) throws IOException {
        StringBuilder sb = new StringBuilder(Bench.heading(model, batch, steps, warmup, rounds, limit));
        String base = runs.keySet().iterator().next();
        if (!base.equals("torch")) {
            sb.append("PyTorch peer not run (no python3 with torch): ratios are to the first Java run.\n\n");
        }
        sb.append(String.format(Locale.ROOT, "%s intra-op threads in every run; ms/step is the median of the timed "
                + "steps' times; a ratio above 1 is slower than %s.%n%n", threads, Bench.label(base, batch)));
        sb.append("| run | examples/s (median) | ms/step (median) | step time / ").append(base.equals("torch") ? "PyTorch's" : "first run's")
                .append(" (median of per-round ratios) | minor page faults per step (median) | peak RSS MB (max) |\n")
                .append("|---|---|---|---|---|---|\n");
        List<double[]> ref = runs.get(base);
        for (Map.Entry<String, List<double[]>> e : runs.entrySet()) {
            List<double[]> v = e.getValue();
            double[] ratios = new double[v.size()];
            for (int i = 0; i < v.size(); i++) {
                ratios[i] = v.get(i)[2] / ref.get(i)[2];
            }
            sb.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.3f | %.0f | %.0f |%n", Bench.label(e.getKey(), batch),
                    Bench.median(column(v, 0)), Bench.median(column(v, 2)), Bench.median(ratios),
                    Bench.median(column(v, 3)), v.stream().mapToDouble(a -> a[1]).max().orElse(0) / 1024));
        }
        sb.append("\n```\n");
        for (int r = 0; r < rounds; r++) {
            for (Map.Entry<String, List<double[]>> e : runs.entrySet()) {
                double[] a = e.getValue().get(r);
                sb.append(String.format(Locale.ROOT, "round %d %-9s %8.1f ms/step %9.1f examples/s %7.0f faults/step %6.0f MB%n",
                        r + 1, e.getKey(), a[2], a[0], a[3], a[1] / 1024));
            }
        }
        return sb.append("```\n").toString();
    }

    private static double[] column(List<double[]> v, int i) {
        return v.stream().mapToDouble(a -> a[i]).toArray();
    }
}
