package org.d2l.multigpu.collective;

/**
 * Where gradients leave the replicas, as DDP's communication hook ({@code register_comm_hook}): it sums a
 * bucket's entries over the replicas, through a collective, into every replica's arrays, and returns the
 * traffic; compression plugs in here ({@code org.d2l.multigpu.compression.CompressionHook}).
 */
public interface GradientHook {

    /** Sums every entry of {@code bucket} over the replicas into each replica's arrays; returns what was sent. */
    Traffic allreduce(GradientBucket bucket);

    /** The plain hook: each bucket flattened per replica and summed by one allreduce of {@code wire}. */
    static GradientHook allreduce(Collective wire) {
        if (wire == null) {
            throw new IllegalArgumentException("The plain gradient hook needs a collective to send through.");
        }
        return bucket -> bucket.allreduceFlat(wire);
    }
}
