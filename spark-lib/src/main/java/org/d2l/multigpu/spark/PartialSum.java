package org.d2l.multigpu.spark;

import java.io.Serializable;

/**
 * What partitions send back in one round, added up by {@code treeAggregate}: the sum of their
 * parameters and of their optimizer state (null when the optimizer keeps none), how many replicas
 * that sum holds, their training loss and correct predictions, and
 * the longest time a partition spent in its local steps.
 */
public record PartialSum(ParameterValues sum, ParameterValues stateSum, int replicas, int steps,
        double lossSum, double correct, long examples, long maxTrainNanos) implements Serializable {

    /** The empty sum that {@code treeAggregate} starts from. */
    public static final PartialSum ZERO = new PartialSum(null, null, 0, 0, 0, 0, 0, 0);

    /** The sum of this and {@code other}. */
    public PartialSum plus(PartialSum other) {
        return new PartialSum(add(sum, other.sum), add(stateSum, other.stateSum), replicas + other.replicas,
                steps + other.steps, lossSum + other.lossSum,
                correct + other.correct, examples + other.examples,
                Math.max(maxTrainNanos, other.maxTrainNanos));
    }

    private static ParameterValues add(ParameterValues a, ParameterValues b) {
        return a == null ? b : b == null ? a : a.plus(b);
    }
}
