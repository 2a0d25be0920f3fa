package org.d2l.multigpu.spark;

import java.io.Serializable;

/**
 * Called on the executors before every step of {@link AllreduceTrainer}, with the task's rank, the
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
}
