package org.d2l.multigpu.spark;


/** An epoch of {@link org.d2l.multigpu.spark.driver.AllreduceTrainer AllreduceTrainer} whose barrier stage failed on every attempt; the driver's model is at the last complete epoch. */
public final class EpochFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int epoch;
    private final int attempts;

    /** Epoch {@code epoch} failed on each of its {@code attempts} attempts, the last with {@code cause}. */
    public EpochFailedException(String message, int epoch, int attempts, Throwable cause) {
        super(message, cause);
        this.epoch = epoch;
        this.attempts = attempts;
    }

    /** The epoch that failed (from 1). */
    public int epoch() {
        return epoch;
    }

    /** How many times its stage was run. */
    public int attempts() {
        return attempts;
    }
}
