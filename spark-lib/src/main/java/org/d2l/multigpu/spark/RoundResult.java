package org.d2l.multigpu.spark;

import org.d2l.multigpu.collective.Traffic;

/**
 * What one Spark round measured: the replicas averaged, local steps taken over all partitions,
 * summed loss and correct predictions over the examples trained on, the bytes the replicas sent
 * back for averaging (float32 parameters and optimizer state), the round's wall time on the
 * driver and the longest time a partition spent in its local steps (the difference is the
 * overhead of averaging on Spark: job scheduling, broadcast, task start, loading and returning the
 * parameters, {@code treeAggregate}, the driver's mean), and the traffic per partition: what each
 * sent back and received from the broadcast, counted from the arrays its task returned and loaded.
 */
public record RoundResult(int round, int replicas, int steps, double lossSum, double correct, long examples,
        long bytes, double seconds, double maxTrainSeconds, Traffic traffic) {

    /** The round's time beyond the slowest partition's training: Spark's overhead per averaging. */
    public double overheadSeconds() {
        return seconds - maxTrainSeconds;
    }
}
