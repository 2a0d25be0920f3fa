package org.d2l.multigpu.step;

/** The phases of a training step, in the order a replica goes through them. */
public enum Phase {
    /** The replica's shard of the batch made and moved to its device. */
    DATA,
    /** The forward pass and the loss. */
    FORWARD,
    /** The backward pass: the gradients. */
    BACKWARD,
    /** Gradients, parameters or statistics moved between the replicas (the collective). */
    SYNC,
    /** The optimizer's update of the parameters, and the gradients set back to zero for the next step. */
    UPDATE;

    /** The phase's name in lower case, for tables and figures. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
