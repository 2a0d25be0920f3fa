package org.d2l.multigpu.loop;

import ai.djl.Device;
import ai.djl.nn.Block;
import java.util.List;
import org.d2l.multigpu.checkpoint.CheckpointPolicy;
import org.d2l.multigpu.checkpoint.Stateful;

/**
 * A trainer bound to its data that trains one epoch at a time: what {@link TrainingLoop} drives, whether
 * the replicas live in this process (the data-parallel trainer's {@code epochs}) or on Spark's executors.
 */
public interface EpochTrainer {

    /** Trains one more epoch, telling {@code events} of its start, its steps and an interrupt, and returns its metrics. */
    EpochMetrics trainEpoch(EpochListener events);

    /**
     * Says that {@link #trainEpoch} is about to be called for up to {@code epochs} epochs (0: until the loop
     * stops), so that a trainer that runs several epochs in one go (a Spark stage per fit) can plan them;
     * {@link #endRun} follows when the loop ends, however it ends. Nothing by default.
     */
    default void beginRun(int epochs) {}

    /** Ends what {@link #beginRun} began: a trainer that runs ahead stops there. Nothing by default. */
    default void endRun() {}

    /** The model after the last finished epoch (replica 0's parameters, or the driver's copy). */
    Block getNet();

    /** The devices on which the model is evaluated. */
    List<Device> getDevices();

    /** Whether each epoch is evaluated on a test set (its metrics then carry a test accuracy). */
    boolean hasTestSet();

    /** Whether the run wants a progress line (the trainer's {@code optProgress}). */
    boolean progress();

    /** A copy of the model's parameters and running statistics, for example the best epoch's. */
    ParameterSnapshot snapshot();

    /** Writes {@code snapshot} back into the model (every replica), bit for bit. */
    void restore(ParameterSnapshot snapshot);

    /** The metrics of every epoch this trainer has finished, across runs (none by default). */
    default List<EpochMetrics> getHistory() {
        return List.of();
    }

    /** Where and how this trainer's runs keep checkpoints (its builder's {@code optCheckpoints}), or null: none. */
    default CheckpointPolicy checkpoints() {
        return null;
    }

    /**
     * The trainer's state after its last finished epoch as a checkpoint part (parameters, optimizer state,
     * history), or null when it cannot be checkpointed (the default).
     */
    default Stateful state() {
        return null;
    }
}
