package org.d2l.multigpu.lesson;

import ai.djl.ndarray.NDArray;
import java.util.List;

/** How two computations of one parameter update compare with the rounding of float32 arithmetic. */
public final class Rounding {

    /** float32's machine epsilon, 2^-23: the spacing of float32 numbers between 1 and 2. */
    public static final double EPS = Math.ulp(1f);

    private Rounding() {}

    /**
     * How far apart the parameters {@code a} and {@code b}, both computed by one step from {@code before},
     * lie against float32 rounding: the largest difference in a tensor over EPS (|p| + sqrt(n) |s|), with |p| the
     * tensor's largest parameter in {@code a} (one rounding of the stored value) and |s| its largest step
     * |a - before| (a float32 sum of n terms is typically off by sqrt(n) EPS of the terms' size, the errors
     * adding up as a random walk: Higham, Accuracy and Stability of Numerical Algorithms, 2002, 2.8); the
     * largest such ratio over the tensors, at most about 1 when the two differ by rounding alone.
     */
    public static double stepRatio(List<NDArray> before, List<NDArray> a, List<NDArray> b, long n) {
        if (before.size() != a.size() || a.size() != b.size()) {
            throw new IllegalArgumentException("stepRatio compares lists of equal length, got " + before.size()
                    + ", " + a.size() + " and " + b.size() + " parameters.");
        }
        double root = Math.sqrt(n);
        double worst = 0;
        for (int j = 0; j < a.size(); j++) {
            float[] p0 = before.get(j).toFloatArray();
            float[] pa = a.get(j).toFloatArray();
            float[] pb = b.get(j).toFloatArray();
            if (p0.length != pa.length || pa.length != pb.length) {
                throw new IllegalArgumentException("Parameter " + j + " has " + p0.length + ", " + pa.length + " and "
                        + pb.length + " elements in the three lists: they must hold the same parameters.");
            }
            double size = 0;
            double step = 0;
            double diff = 0;
            for (int i = 0; i < pa.length; i++) {
                size = Math.max(size, Math.abs((double) pa[i]));
                step = Math.max(step, Math.abs((double) pa[i] - p0[i]));
                diff = Math.max(diff, Math.abs((double) pa[i] - pb[i]));
            }
            if (diff > 0) {
                double bound = EPS * (size + root * step);
                worst = Math.max(worst, bound == 0 ? Double.POSITIVE_INFINITY : diff / bound);
            }
        }
        return worst;
    }
}
