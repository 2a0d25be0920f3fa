package org.d2l.multigpu.collective;

import java.util.Arrays;

/**
 * How many elements each device sent and received during one allreduce, indexed by device
 * (elements, not bytes: multiply by 4 for float32).
 */
public record Traffic(long[] sent, long[] received) {

    /** The most elements any one device sent. */
    public long maxSent() {
        return Arrays.stream(sent).max().orElse(0);
    }

    /** The most elements any one device received. */
    public long maxReceived() {
        return Arrays.stream(received).max().orElse(0);
    }

    /** The elements sent by all devices together. */
    public long totalSent() {
        return Arrays.stream(sent).sum();
    }

    @Override
    public String toString() {
        return "Traffic[sent=" + Arrays.toString(sent)
                + ", received=" + Arrays.toString(received) + "]";
    }
}

