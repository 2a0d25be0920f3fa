package org.d2l.multigpu.spark;

import java.io.Serializable;

/**
 * Called on the executors before every step of {@link org.d2l.multigpu.spark.driver.AllreduceTrainer AllreduceTrainer}, with the task's rank, the
 * epoch (from 1), the step (from 0) and the attempt (0 for the first run of that epoch's stage): a
 * place to inject a failure and watch the trainer retry (the lesson and the tests do).
 */
@FunctionalInterface
public interface StepHook extends Serializable {

    /** Runs before step {@code step} of epoch {@code epoch} on rank {@code rank}; an exception fails the stage. */
    void beforeStep(int rank, int epoch, int step, int attempt);

    /** The hook that does nothing. */
    static StepHook none() {
        return (rank, epoch, step, attempt) -> { };
    }

    /**
     * The hook that throws before step {@code step} of epoch {@code epoch} on rank {@code rank}, on the
     * stage's first attempt only: a task lost once (an executor that died), which the trainer recovers from.
     */
    static StepHook failOnce(int rank, int epoch, int step) {
        return new FailOnce(rank, epoch, step);
    }

    /** See {@link #failOnce}. */
    record FailOnce(int rank, int epoch, int step) implements StepHook {
        @Override
        public void beforeStep(int rank, int epoch, int step, int attempt) {
            if (rank == this.rank && epoch == this.epoch && step == this.step && attempt == 0) {
                throw new IllegalStateException("task lost before global batch " + step + " (injected by StepHook.failOnce)");
            }
        }
    }
}
