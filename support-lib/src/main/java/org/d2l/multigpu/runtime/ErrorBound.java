package org.d2l.multigpu.runtime;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.types.DataType;

/**
 * How far a float32 result computed by any summation order may lie from the exact one, from the
 * arithmetic alone: a sum of n products, each rounded to nearest, is off by at most
 * gamma(n) = n u / (1 - n u) times the sum of the products' absolute values (Higham, "Accuracy and
 * Stability of Numerical Algorithms", 2nd ed., section 3.1), with u = 2^-24 the unit roundoff of
 * float32; fused multiply-adds, blocking and threads only reorder the sum and stay inside it. A float64
 * reference adds its own gamma(n) at u = 2^-53, and results near the float32 underflow threshold may
 * be flushed, which adds at most n times the smallest normal float32.
 */
public final class ErrorBound {

    /** The unit roundoff of float32, 2^-24. */
    public static final double FLOAT32_U = Math.scalb(1.0, -24);
    /** The unit roundoff of float64, 2^-53. */
    public static final double FLOAT64_U = Math.scalb(1.0, -53);

    private ErrorBound() {}

    /** gamma(n) = n u / (1 - n u) for a unit roundoff {@code u}; infinite when n u reaches 1. */
    public static double gamma(long n, double u) {
        double nu = n * u;
        return nu >= 1 ? Double.POSITIVE_INFINITY : nu / (1 - nu);
    }

    /**
     * The element-wise bound on |float32 result - float64 reference| for results that are sums of
     * {@code n} terms whose absolute values sum to {@code absSum} (a float64 array).
     */
    public static NDArray ofSums(long n, NDArray absSum) {
        double relative = gamma(n, FLOAT32_U) + gamma(n, FLOAT64_U);
        return absSum.toType(DataType.FLOAT64, false).mul(relative).add(n * (double) Float.MIN_NORMAL);
    }

    /**
     * The number of elements of {@code got} (any float type) that are not finite or lie further than
     * {@code bound} from {@code reference}, and the largest ratio of distance to bound among the finite
     * ones: {violations, non-finite, worst ratio}.
     */
    public static double[] compare(NDArray got, NDArray reference, NDArray bound) {
        NDArray g = got.toType(DataType.FLOAT64, false);
        NDArray finite = g.isInfinite().logicalOr(g.isNaN()).logicalNot();
        long nonFinite = g.size() - finite.countNonzero().getLong();
        NDArray gap = g.sub(reference.toType(DataType.FLOAT64, false)).abs();
        NDArray over = gap.gt(bound).logicalAnd(finite);
        double worst = g.size() == 0 ? 0 : NDArrays.where(finite, gap.div(bound), g.zerosLike()).max().getDouble();
        return new double[] {over.countNonzero().getLong() + nonFinite, nonFinite, worst};
    }
}
