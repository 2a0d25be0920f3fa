package org.d2l.multigpu.runtime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;

/**
 * Scalars in PyTorch's own memory for arithmetic that autograd records: DJL's {@code mul(Number)},
 * {@code div(Number)} and {@code pow(Number)} on a CPU array put the number in a Java buffer that they release
 * on return, and the backward pass reads it after the garbage collector may have handed that memory out again
 * (NaN or wrong gradients at random; support-lib README, "Known platform faults").
 */
public final class Scalars {

    private Scalars() {}

    /** {@code value} as a scalar array of {@code like}'s type and device, in PyTorch's own memory, attached to {@code like}'s manager. */
    public static NDArray of(NDArray like, double value) {
        NDManager manager = like.getManager();
        DataType type = like.getDataType();
        NDArray owned;
        try (NDArray java = manager.create(value)) {
            // duplicate() clones into PyTorch's memory; toType to another type copies too, but to the same type it
            // returns the tensor over the Java buffer (with copy=true as well)
            owned = type == DataType.FLOAT64 ? java.duplicate() : java.toType(type, false);
        }
        NDArray placed = owned.toDevice(like.getDevice(), false);
        if (placed != owned) {
            owned.close();
        }
        return placed;
    }
}
