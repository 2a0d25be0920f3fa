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
        NDManager owner = like.getManager();
        // made on like's device in a manager of that device (DJL's toDevice would add a sub-manager per call when
        // owner's device is another one); duplicate() clones into PyTorch's memory, toType to another type copies
        // too, but to the same type it returns the tensor over the Java buffer (with copy=true as well)
        try (NDManager tmp = owner.newSubManager(like.getDevice())) {
            NDArray java = tmp.create(value);
            NDArray owned = like.getDataType() == DataType.FLOAT64 ? java.duplicate() : java.toType(like.getDataType(), false);
            owned.attach(owner);
            return owned;
        }
    }
}
