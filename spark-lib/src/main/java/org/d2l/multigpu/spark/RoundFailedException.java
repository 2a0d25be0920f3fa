package org.d2l.multigpu.spark;

/**
 * A training round on Spark failed; the driver's model is left as it was before the round, and
 * {@link #partition()} names the partition whose task failed (-1 when Spark did not say).
 */
public final class RoundFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int partition;

    /** The round failed in partition {@code partition} with {@code cause}. */
    public RoundFailedException(String message, int partition, Throwable cause) {
        super(message, cause);
        this.partition = partition;
    }

    /** The partition whose task failed, or -1 when unknown. */
    public int partition() {
        return partition;
    }
}
