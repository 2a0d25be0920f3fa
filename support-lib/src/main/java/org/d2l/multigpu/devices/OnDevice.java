package org.d2l.multigpu.devices;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;

/** In-place writes into an array from an array that may live on another device. */
public final class OnDevice {

    private static final NDIndex ALL = new NDIndex("...");

    private OnDevice() {}

    /** Overwrites {@code dst} in place with the values of {@code src}, which may be on another device. */
    public static void copyInto(NDArray src, NDArray dst) {
        try (NDManager tmp = scratch(dst)) {
            NDArray moved = src.toDevice(dst.getDevice(), false);
            dst.set(ALL, moved);
            if (moved != src) {
                moved.close(); // a copy made only to cross devices
            }
        }
    }

    /** {@code dst += src}, with {@code src} on any device; a copy made to move it is freed at once. */
    public static void addInto(NDArray src, NDArray dst) {
        NDArray moved = src.toDevice(dst.getDevice(), false);
        dst.addi(moved);
        if (moved != src) {
            moved.close();
        }
    }

    /** Sets every element of {@code array} to zero in place (unlike {@code subi(self)}, also over NaN). */
    public static void zero(NDArray array) {
        try (NDManager tmp = scratch(array)) {
            array.set(ALL, 0f);
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
