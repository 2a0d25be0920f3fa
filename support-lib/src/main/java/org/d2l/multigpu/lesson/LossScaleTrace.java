package org.d2l.multigpu.lesson;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a dynamic loss scaler did step by step: the scale each step used, whether the step was skipped
 * for an overflowing gradient, and the step's training loss; printed as the scaler's story.
 */
public final class LossScaleTrace {

    /** One step: the scale it used, whether it was skipped, its mean training loss. */
    public record Step(float scale, boolean skipped, double loss) {}

    private final List<Step> steps = new ArrayList<>();

    /** Records the next step. */
    public void add(float scale, boolean skipped, double loss) {
        steps.add(new Step(scale, skipped, loss));
    }

    /** The steps recorded, first first. */
    public List<Step> steps() {
        return List.copyOf(steps);
    }

    /** The number of skipped steps. */
    public long skipped() {
        return steps.stream().filter(Step::skipped).count();
    }

    /** The number of skipped steps whose next step did not use half their scale (the last step has none to check). */
    public long skipsNotHalved() {
        long n = 0;
        for (int i = 0; i + 1 < steps.size(); i++) {
            if (steps.get(i).skipped() && steps.get(i + 1).scale() != steps.get(i).scale() / 2) {
                n++;
            }
        }
        return n;
    }

    /** The index (from 0) of the first step after the last skipped one: where the scale settled (0 when none was skipped). */
    public int settledAt() {
        for (int i = steps.size() - 1; i >= 0; i--) {
            if (steps.get(i).skipped()) {
                return i + 1;
            }
        }
        return 0;
    }

    /** The scale the steps used from {@link #settledAt()} on (the last step's when none was taken after it). */
    public float settledScale() {
        int i = Math.min(settledAt(), steps.size() - 1);
        return steps.isEmpty() ? Float.NaN : steps.get(i).scale();
    }

    /**
     * The mean training loss of the {@code n} steps from index {@code from} on (skipped steps left out;
     * indices outside the trace are dropped), NaN if none.
     */
    public double meanLoss(int from, int n) {
        int start = Math.max(0, Math.min(from, steps.size()));
        return steps.subList(start, Math.max(start, Math.min(from + n, steps.size()))).stream()
                .filter(s -> !s.skipped()).mapToDouble(Step::loss).average().orElse(Double.NaN);
    }

    /** One line per step up to two after the scale settled, then a line that says so and one line per tenth of the rest, and a summary. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%5s %8s %-20s %10s%n", "step", "scale",
                "", "train loss"));
        int settled = settledAt();
        int every = Math.max(1, (steps.size() - settled) / 10);
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            if (i == settled + 2 && every > 1 && i < steps.size() - 1) {
                sb.append(String.format(Locale.ROOT, "  ... from here on one step in %d is shown, and the last%n", every));
            }
            if (i <= settled + 1 || (i - settled) % every == 0 || i == steps.size() - 1) {
                sb.append(String.format(Locale.ROOT, "%5d %8s %-20s %10s%n", i + 1,
                        GradientUnderflow.scaleName(s.scale()), s.skipped() ? "overflow: skipped" : "taken",
                        s.skipped() ? "" : String.format(Locale.ROOT, "%.4f", s.loss())));
            }
        }
        sb.append(String.format(Locale.ROOT, "%d of %d steps skipped; from step %d on none was (scale %s there)%n",
                skipped(), steps.size(), settled + 1, GradientUnderflow.scaleName(settledScale())));
        return sb.toString();
    }
}
