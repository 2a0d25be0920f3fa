package org.d2l.multigpu.modelparallel;

import java.util.ArrayList;
import java.util.List;

/**
 * The order in which each stage of a pipeline runs the forward and backward passes of one batch's micro-batches:
 * GPipe's (every forward, then every backward) or 1F1B's (a few forwards to fill the pipeline, then one forward
 * and one backward in turn), and the bubble they leave when every stage takes the same time.
 */
public final class Schedule {

    /** The two schedules of the literature: GPipe (Huang et al., 2019) and 1F1B (PipeDream-Flush, Narayanan et al., 2021). */
    public enum Kind {
        /** All forward passes, then all backward passes: every micro-batch's activations held at once. */
        GPIPE,
        /** At most p - s micro-batches in flight on stage s: a backward pass as soon as one can run. */
        ONE_F_ONE_B
    }

    /** One pass, forward or backward, of one micro-batch (counted from 0) on one stage. */
    public record Op(boolean forward, int microBatch) {

        /** "F3" for the forward pass of micro-batch 3, "B3" for its backward pass. */
        @Override
        public String toString() {
            return (forward ? "F" : "B") + microBatch;
        }
    }

    private Schedule() {}

    /** The passes stage {@code stage} (0 to {@code stages} - 1) runs, in order, for {@code microBatches} micro-batches. */
    public static List<Op> ops(Kind kind, int stage, int stages, int microBatches) {
        check(stages, microBatches);
        if (stage < 0 || stage >= stages) {
            throw new IllegalArgumentException("a pipeline of " + stages + " stages has stages 0 to " + (stages - 1)
                    + ", not " + stage + ".");
        }
        List<Op> ops = new ArrayList<>();
        if (kind == Kind.GPIPE) {
            for (int j = 0; j < microBatches; j++) {
                ops.add(new Op(true, j));
            }
            for (int j = 0; j < microBatches; j++) {
                ops.add(new Op(false, j));
            }
            return List.copyOf(ops);
        }
        int warmup = Math.min(stages - stage - 1, microBatches);
        for (int j = 0; j < warmup; j++) {
            ops.add(new Op(true, j));
        }
        for (int i = 0; i < microBatches - warmup; i++) {
            ops.add(new Op(true, warmup + i));
            ops.add(new Op(false, i));
        }
        for (int i = microBatches - warmup; i < microBatches; i++) {
            ops.add(new Op(false, i));
        }
        return List.copyOf(ops);
    }

    /** Every stage's passes: element s is {@link #ops} of stage s. */
    public static List<List<Op>> ops(Kind kind, int stages, int microBatches) {
        List<List<Op>> all = new ArrayList<>();
        for (int s = 0; s < stages; s++) {
            all.add(ops(kind, s, stages, microBatches));
        }
        return List.copyOf(all);
    }

    /** The fraction of a step that each stage idles when every pass takes the same time on every stage: (p - 1)/(m + p - 1). */
    public static double bubble(int stages, int microBatches) {
        check(stages, microBatches);
        return (stages - 1.0) / (microBatches + stages - 1.0);
    }

    /** The most micro-batches whose activations {@code ops} holds at once: forwarded and not yet backward. */
    public static int peakInFlight(List<Op> ops) {
        int inFlight = 0;
        int peak = 0;
        for (Op op : ops) {
            inFlight += op.forward() ? 1 : -1;
            peak = Math.max(peak, inFlight);
        }
        return peak;
    }

    /**
     * When every pass would start and end if each forward took {@code forward} and each backward {@code backward}
     * (any unit), a stage ran its passes in order, and a pass waited for its input: a forward for the same
     * micro-batch's forward on the stage before, a backward for its backward on the stage after.
     */
    public static Timeline simulate(List<List<Op>> stages, double forward, double backward) {
        if (!(forward > 0) || !(backward > 0)) {
            throw new IllegalArgumentException("the passes need positive times, got forward " + forward
                    + " and backward " + backward + ".");
        }
        int p = stages.size();
        int[] next = new int[p];
        double[] free = new double[p];
        java.util.Map<String, Double> done = new java.util.HashMap<>();
        Timeline timeline = new Timeline(p);
        int left = stages.stream().mapToInt(List::size).sum();
        while (left > 0) {
            boolean progressed = false;
            for (int s = 0; s < p; s++) {
                if (next[s] == stages.get(s).size()) {
                    continue;
                }
                Op op = stages.get(s).get(next[s]);
                String input = op.forward() ? (s == 0 ? null : key(s - 1, op))
                        : (s == p - 1 ? key(s, new Op(true, op.microBatch())) : key(s + 1, op));
                Double ready = input == null ? Double.valueOf(0) : done.get(input);
                if (ready == null) {
                    continue;
                }
                double start = Math.max(free[s], ready);
                double end = start + (op.forward() ? forward : backward);
                timeline.add(s, op, start, end);
                done.put(key(s, op), end);
                free[s] = end;
                next[s]++;
                left--;
                progressed = true;
            }
            if (!progressed) {
                throw new IllegalArgumentException("the schedule waits for ever: no stage can run its next pass "
                        + "(each forward needs the stage before to have run it, each backward the stage after).");
            }
        }
        return timeline;
    }

    private static String key(int stage, Op op) {
        return stage + ":" + op;
    }

    private static void check(int stages, int microBatches) {
        if (stages < 1 || microBatches < 1) {
            throw new IllegalArgumentException("a pipeline needs at least 1 stage and 1 micro-batch, got " + stages
                    + " stage(s) and " + microBatches + " micro-batch(es).");
        }
    }
}
