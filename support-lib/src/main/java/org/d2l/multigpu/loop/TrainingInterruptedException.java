package org.d2l.multigpu.loop;

import java.util.List;
import java.util.Locale;

/**
 * Thrown when the thread that trains is interrupted (Kernel &gt; Interrupt in Jupyter): training
 * stopped at a step boundary, the model holds the parameters after the last completed step, and no
 * gradient collector or worker thread is left running, so the next training call works.
 */
public final class TrainingInterruptedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int epoch;
    private final long step;
    private final transient List<EpochMetrics> history;

    /**
     * Training was interrupted in epoch {@code epoch} (1-based) after {@code step} completed steps
     * of it; {@code history} holds the metrics of the finished epochs.
     */
    public TrainingInterruptedException(int epoch, long step, List<EpochMetrics> history, String howToContinue) {
        super(String.format(Locale.ROOT,
                "Training interrupted in epoch %d after step %d; the model holds the parameters after step %d. %s",
                epoch, step, step, howToContinue));
        this.epoch = epoch;
        this.step = step;
        this.history = List.copyOf(history);
    }

    /** The epoch (1-based) in which training stopped. */
    public int getEpoch() {
        return epoch;
    }

    /** The number of completed steps of that epoch. */
    public long getStep() {
        return step;
    }

    /** The metrics of the epochs that finished before the interrupt. */
    public List<EpochMetrics> getHistory() {
        return history;
    }
}
