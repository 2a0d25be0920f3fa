package org.d2l.multigpu.lesson;

import ai.djl.ndarray.NDArray;
import java.util.List;

/** How two computations of one parameter update compare with the rounding of float32 arithmetic. */
public final class Rounding {

    /** float32's machine epsilon, 2^-23: the spacing of float32 numbers between 1 and 2. */
    public static final double EPS = Math.ulp(1f);

    private Rounding() {}

    /**
     * The size of the rounding error that a float32 sum of {@code n} terms typically has, as a fraction of
     * the terms' size: sqrt(n) EPS, each addition off by at most EPS and the errors adding up as a random
     * walk (Higham, Accuracy and Stability of Numerical Algorithms, 2002, section 2.8).
     */
    public static double sumTolerance(long n) {
        if (n < 1) {
            throw new IllegalArgumentException("A sum has at least one term, got " + n + ".");
        }
        return Math.sqrt(n) * EPS;
    }

    /**
     * The largest difference between the parameters {@code a} and {@code b}, both computed by one step from
     * {@code before}, as a fraction of the largest step |a - before| in the same tensor; the largest such
     * fraction over the tensors (a difference in a tensor that did not move gives infinity).
     */
    public static double stepDifference(List<NDArray> before, List<NDArray> a, List<NDArray> b) {
        if (before.size() != a.size() || a.size() != b.size()) {
            throw new IllegalArgumentException("stepDifference compares lists of equal length, got " + before.size()
                    + ", " + a.size() + " and " + b.size() + " parameters.");
        }
        double worst = 0;
        for (int j = 0; j < a.size(); j++) {
            float[] p0 = before.get(j).toFloatArray();
            float[] pa = a.get(j).toFloatArray();
            float[] pb = b.get(j).toFloatArray();
            if (p0.length != pa.length || pa.length != pb.length) {
                throw new IllegalArgumentException("Parameter " + j + " has " + p0.length + ", " + pa.length + " and "
                        + pb.length + " elements in the three lists: they must hold the same parameters.");
            }
            double step = 0;
            double diff = 0;
            for (int i = 0; i < pa.length; i++) {
                step = Math.max(step, Math.abs((double) pa[i] - p0[i]));
                diff = Math.max(diff, Math.abs((double) pa[i] - pb[i]));
            }
            if (diff > 0) {
                worst = Math.max(worst, step == 0 ? Double.POSITIVE_INFINITY : diff / step);
            }
        }
        return worst;
    }
}
