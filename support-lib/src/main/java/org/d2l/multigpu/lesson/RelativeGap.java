package org.d2l.multigpu.lesson;

import ai.djl.ndarray.NDArray;
import java.util.List;
import org.d2l.multigpu.devices.OnDevice;

/** How far one array is from another, relative to the other's largest element: max |a - b| / max |b|. */
public final class RelativeGap {

    private RelativeGap() {}

    /** The largest element of |a - b| over the largest of |b|, with {@code a} read on {@code b}'s device. */
    public static double of(NDArray a, NDArray b) {
        if (!a.getShape().equals(b.getShape())) {
            throw new IllegalArgumentException("compare arrays of one shape, got " + a.getShape() + " and "
                    + b.getShape() + ".");
        }
        double scale = b.abs().max().getFloat();
        double gap = OnDevice.apply(a, b.getDevice(), x -> (double) x.sub(b).abs().max().getFloat());
        return scale == 0 ? (gap == 0 ? 0 : Double.POSITIVE_INFINITY) : gap / scale;
    }

    /** The largest {@link #of} over the pairs {@code a.get(i)}, {@code b.get(i)}. */
    public static double largest(List<NDArray> a, List<NDArray> b) {
        if (a.size() != b.size()) {
            throw new IllegalArgumentException("compare lists of as many arrays, got " + a.size() + " and "
                    + b.size() + ".");
        }
        double largest = 0;
        for (int i = 0; i < a.size(); i++) {
            largest = Math.max(largest, of(a.get(i), b.get(i)));
        }
        return largest;
    }
}
