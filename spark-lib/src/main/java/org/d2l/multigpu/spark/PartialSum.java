package org.d2l.multigpu.spark;

import java.io.Serializable;
import org.d2l.multigpu.collective.Traffic;

/**
 * What partitions send back in one round, added up by {@code treeAggregate}: the sum of their
 * parameters and of their optimizer state (null when the optimizer keeps none), how many replicas
 * that sum holds, their training loss and correct predictions, the longest time a partition spent
 * in its local steps, and the float32 elements each partition (index p of all) sent back and
 * received from the driver's broadcast (null in the empty sum).
 */
public record PartialSum(ParameterValues sum, ParameterValues stateSum, int replicas, int steps,
        double lossSum, double correct, long examples, long maxTrainNanos, long[] sent, long[] received)
        implements Serializable {

    /** The empty sum that {@code treeAggregate} starts from. */
    public static final PartialSum ZERO = new PartialSum(null, null, 0, 0, 0, 0, 0, 0, null, null);

    /** The sum of this and {@code other}. */
    public PartialSum plus(PartialSum other) {
        return new PartialSum(add(sum, other.sum), add(stateSum, other.stateSum), replicas + other.replicas,
                steps + other.steps, lossSum + other.lossSum,
                correct + other.correct, examples + other.examples,
                Math.max(maxTrainNanos, other.maxTrainNanos), add(sent, other.sent), add(received, other.received));
    }

    /** What the partitions sent and received, as the collectives count it (4 bytes per float32 element). */
    public Traffic traffic(int partitions) {
        return sent == null ? Traffic.none(partitions) : Traffic.elements(sent.clone(), received.clone(), 4);
    }

    private static long[] add(long[] a, long[] b) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        long[] c = a.clone();
        for (int p = 0; p < c.length; p++) {
            c[p] += b[p];
        }
        return c;
    }

    private static ParameterValues add(ParameterValues a, ParameterValues b) {
        return a == null ? b : b == null ? a : a.plus(b);
    }
}
