package org.d2l.multigpu.parallel;

import java.io.PrintStream;
import java.util.Locale;

/** A one-line text progress bar for an epoch, redrawn in place with a carriage return. */
public final class ProgressBar {

    private static final int WIDTH = 30;
    private static final int REDRAWS = 20;

    private final PrintStream out;
    private final String label;
    private final long total;
    private long done;
    private int drawn = -1;

    /** A bar for {@code total} examples written to {@code out}. */
    public ProgressBar(PrintStream out, String label, long total) {
        this.out = out;
        this.label = label;
        this.total = Math.max(1, total);
    }

    /** Whether progress bars are on: env {@code D2L_PROGRESS} or property {@code d2l.progress} = false turns them off. */
    public static boolean enabledByDefault() {
        String v = System.getenv("D2L_PROGRESS");
        if (v == null) {
            v = System.getProperty("d2l.progress", "true");
        }
        return !v.equalsIgnoreCase("false") && !v.equals("0");
    }

    /** Adds {@code n} finished examples and redraws when the bar has moved by a twentieth. */
    public void step(long n, String info) {
        done = Math.min(total, done + n);
        int tick = (int) (done * REDRAWS / total);
        if (tick != drawn) {
            drawn = tick;
            int filled = (int) (done * WIDTH / total);
            out.print(String.format(Locale.ROOT, "\r%s [%s%s] %3d%% %s", label, "=".repeat(filled),
                    " ".repeat(WIDTH - filled), done * 100 / total, info));
            out.flush();
        }
    }

    /** Ends the bar's line. */
    public void finish() {
        out.println();
    }
}
