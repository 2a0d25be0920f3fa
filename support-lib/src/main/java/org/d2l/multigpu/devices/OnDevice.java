package org.d2l.multigpu.devices;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import java.util.function.Function;
import org.d2l.multigpu.runtime.Autograd;

/**
 * Brings an array to a device, uses it there and releases what the move made, in one place: the
 * copy, and the sub-manager that DJL's PyTorch engine ({@code JniUtils.to}) creates under the source
 * array's manager for every copy to another device, which closing the copy alone leaves behind. On
 * the same device nothing is copied and nothing is released. Also the in-place writes built on it.
 */
public final class OnDevice {

    private static final NDIndex ALL = new NDIndex("...");

    private OnDevice() {}

    /** Applies {@code use} to {@code src} as seen on {@code device}, then releases the copy the move made, if any. */
    public static <T> T apply(NDArray src, Device device, Function<NDArray, T> use) {
        NDArray moved = src.toDevice(device, false);
        try {
            return use.apply(moved);
        } finally {
            release(src, moved);
        }
    }

    /**
     * A fresh copy of {@code src} on {@code device} (even when it already lives there), attached to
     * {@code manager}; no sub-manager of {@code src}'s manager is left behind.
     */
    public static NDArray copy(NDArray src, Device device, NDManager manager) {
        // toDevice(device, true) returns the array itself when it already lives on that device
        NDArray copy = src.getDevice().equals(device) ? src.duplicate() : src.toDevice(device, true);
        NDManager made = copy.getManager();
        copy.attach(manager);
        closeIfMadeFor(src, made);
        return copy;
    }

    /**
     * A copy of {@code src} in {@code type}, attached to {@code manager}; no sub-manager is left behind (DJL's
     * toType makes one when the array lives on another device than its manager, as a trainer's manager holds
     * the replicas of the other devices).
     */
    public static NDArray cast(NDArray src, DataType type, NDManager manager) {
        NDArray cast = src.toType(type, true);
        NDManager made = cast.getManager();
        cast.attach(manager);
        closeIfMadeFor(src, made);
        return cast;
    }

    /** Overwrites {@code dst} in place with the values of {@code src}, which may be on another device. */
    public static void copyInto(NDArray src, NDArray dst) {
        try (NDManager tmp = scratch(dst)) {
            apply(src, dst.getDevice(), moved -> {
                dst.set(ALL, moved);
                return dst;
            });
        }
    }

    /** {@code dst += src}, with {@code src} on any device. */
    public static void addInto(NDArray src, NDArray dst) {
        apply(src, dst.getDevice(), dst::addi);
    }

    /**
     * Sets the gradient of {@code weight}, a parameter that records one, to zero in place: with PyTorch one native
     * call ({@code grad.zero_()}, NaN and infinity included), else through {@link #zero}.
     */
    public static void zeroGradient(NDArray weight) {
        if (Autograd.zeroGradient(weight)) {
            return;
        }
        try (NDArray g = weight.getGradient()) {
            zero(g);
        }
    }

    /** Sets every element of {@code array} to zero in place (unlike {@code subi(self)}, also over NaN). */
    public static void zero(NDArray array) {
        try (NDManager tmp = scratch(array)) {
            array.set(ALL, 0f);
        }
    }

    /** Frees {@code moved}, the result of moving {@code src}, unless it is {@code src} itself. */
    private static void release(NDArray src, NDArray moved) {
        if (moved != src) {
            NDManager made = moved.getManager();
            moved.close();
            closeIfMadeFor(src, made);
        }
    }

    /** Closes {@code made} when it is an emptied sub-manager that a move of {@code src} created. */
    private static void closeIfMadeFor(NDArray src, NDManager made) {
        NDManager own = src.getManager();
        if (made != own && made.getParentManager() == own && made.getManagedArrays().isEmpty()) {
            made.close();
        }
    }

    /**
     * A manager that {@code array} is attached to until it closes, so that the helper arrays an
     * in-place update creates (DJL's {@code set} makes one for a scalar) are freed with it.
     */
    private static NDManager scratch(NDArray array) {
        NDManager tmp = array.getManager().newSubManager();
        array.tempAttach(tmp);
        return tmp;
    }
}
