package org.d2l.multigpu.spark;

import java.util.List;

/**
 * One epoch of {@link org.d2l.multigpu.spark.driver.AllreduceTrainer AllreduceTrainer} as its barrier stage saw it: the attempts it took (and why the
 * failed ones failed), every rank's result, the stage's wall time and the elements of one allreduce.
 */
public record AllreduceEpoch(int epoch, int attempts, List<String> failures, List<RankResult> results,
        double stageSeconds, long gradientElements) {

    /** Keeps unmodifiable copies. */
    public AllreduceEpoch {
        failures = List.copyOf(failures);
        results = List.copyOf(results);
    }

    /** The global steps of the epoch. */
    public int steps() {
        return results.get(0).steps();
    }

    /** The number of ranks, k. */
    public int k() {
        return results.size();
    }

    /** The bytes rank {@code r} sent per step, measured on its socket. */
    public double bytesSentPerStep(int r) {
        return (double) results.get(r).bytesSent() / steps();
    }

    /** The bytes rank {@code r} received per step, measured on its socket. */
    public double bytesReceivedPerStep(int r) {
        return (double) results.get(r).bytesReceived() / steps();
    }

    /** The ring's bytes per rank and step in theory: 2(k-1)/k of the float32 gradient bytes. */
    public double ringBytesPerStep() {
        int k = k();
        return 2.0 * (k - 1) / k * 4 * gradientElements;
    }

    /** The slowest rank's seconds per step in forward and backward. */
    public double computeSecondsPerStep() {
        return results.stream().mapToLong(RankResult::computeNanos).max().orElse(0) / 1e9 / steps();
    }

    /** The slowest rank's seconds per step in the allreduce (waiting for the slowest peer included). */
    public double allreduceSecondsPerStep() {
        return results.stream().mapToLong(RankResult::allreduceNanos).max().orElse(0) / 1e9 / steps();
    }

    /** The slowest rank's seconds per step in the optimizer update. */
    public double updateSecondsPerStep() {
        return results.stream().mapToLong(RankResult::updateNanos).max().orElse(0) / 1e9 / steps();
    }

    /** The slowest rank's seconds to join the ring (the all-gather through the driver and the connections). */
    public double joinSeconds() {
        return results.stream().mapToLong(RankResult::joinNanos).max().orElse(0) / 1e9;
    }

    /**
     * The seconds of the last (successful) stage that no task spent training or joining: Spark starting
     * the stage, shipping the parameters, loading them, and collecting the results.
     */
    public double stageOverheadSeconds() {
        double busy = results.stream().mapToLong(r -> r.joinNanos() + r.computeNanos() + r.allreduceNanos()
                + r.updateNanos()).max().orElse(0) / 1e9;
        return Math.max(0, stageSeconds - busy);
    }
}
