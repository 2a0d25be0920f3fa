package org.d2l.multigpu.checkpoint;

import java.util.Map;

/**
 * A part of a training run's state that its checkpoints hold (the trainer's parameters and optimizer
 * state, early stopping's best model), as PyTorch's {@code Stateful}: it describes its run, copies itself
 * into a checkpoint and puts a checkpoint's values back.
 */
public interface Stateful {

    /** What a checkpoint must match to be resumed here (name to value: shapes, replicas, precision); none by default. */
    default Map<String, String> identity() {
        return Map.of();
    }

    /** Copies this part's state into {@code out} now: copies, not views, since the next epoch may change it. */
    void save(Checkpoint out);

    /** Puts the state saved in {@code in} back. */
    void load(Checkpoint in);
}
