package org.d2l.multigpu.lesson;

import java.util.List;
import java.util.Locale;
import org.d2l.multigpu.step.Phase;
import org.d2l.multigpu.step.StepPhases;

/**
 * Where the steps of two replicas spent their time, as means over the steps: each phase's milliseconds per
 * replica, the step's length, how long it would take with the replicas' forward and backward passes at the
 * same time, and how long replica 1 waited for replica 0's backward pass to end (negative: they overlapped).
 */
public record PhaseSummary(double[][] phaseMs, double stepMs, double atOnceMs, double syncMs, double turnGapMs) {

    /** The summary of {@code steps}, each of two replicas or more (replicas 0 and 1 are compared). */
    public static PhaseSummary of(List<StepPhases> steps) {
        if (steps.isEmpty() || steps.stream().anyMatch(s -> s.replicas() < 2)) {
            throw new IllegalArgumentException("A phase summary needs steps of two replicas at least, got " + steps.size()
                    + " step(s)" + (steps.isEmpty() ? "" : " of " + steps.get(0).replicas() + " replica(s)") + ".");
        }
        int replicas = steps.get(0).replicas();
        Phase[] phases = Phase.values();
        double[][] ms = new double[replicas][phases.length];
        for (int r = 0; r < replicas; r++) {
            for (int p = 0; p < phases.length; p++) {
                int replica = r;
                Phase phase = phases[p];
                ms[r][p] = steps.stream().mapToDouble(s -> s.millis(replica, phase)).average().orElse(0);
            }
        }
        double step = steps.stream().mapToDouble(StepPhases::span).average().orElse(0);
        double overlap = steps.stream().mapToDouble(s -> Math.min(work(s, 0), work(s, 1))).average().orElse(0);
        double sync = steps.stream().mapToDouble(s -> s.millis(0, Phase.SYNC)).average().orElse(0);
        double gap = steps.stream().mapToDouble(s -> s.start(1, Phase.FORWARD) - s.end(0, Phase.BACKWARD)).min()
                .orElse(Double.NaN);
        return new PhaseSummary(ms, step, step - overlap, sync, gap);
    }

    private static double work(StepPhases s, int replica) {
        return s.millis(replica, Phase.FORWARD) + s.millis(replica, Phase.BACKWARD);
    }

    /** A line per replica with its milliseconds per phase, then the step's length and what it would be at once. */
    public String describe() {
        StringBuilder out = new StringBuilder();
        Phase[] phases = Phase.values();
        for (int r = 0; r < phaseMs.length; r++) {
            out.append("replica ").append(r).append(", ms per step:");
            for (int p = 0; p < phases.length; p++) {
                out.append(String.format(Locale.ROOT, "%s %s %.0f", p == 0 ? "" : ",", phases[p].label(), phaseMs[r][p]));
            }
            out.append('\n');
        }
        return out.append(String.format(Locale.ROOT, "A step: %.0f ms; with both replicas' forward and backward passes at"
                + " the same time: about %.0f ms; synchronization: %.1f ms%n", stepMs, atOnceMs, syncMs)).toString();
    }
}
