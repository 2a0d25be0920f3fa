package org.d2l.multigpu.lesson;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.training.loss.Loss;
import java.util.Locale;

/**
 * What Adam's first step does in pure float16, computed in float16 from the float16 gradients of one
 * minibatch (loss scale 1, as pure float16 trains): the first moment {@code m = (1 - β1) g}, the
 * second moment {@code v = (1 - β2) g²}, each rounded to float16, ε rounded to float16, and the step
 * {@code (m / (1 - β1)) / (sqrt(v / (1 - β2)) + ε)}; it counts the weights whose v rounds to zero and
 * whose step is infinite (m non-zero over a zero denominator) or NaN (0 / 0).
 */
public final class AdamInFloat16 {

    /** Adam's defaults, in DJL and PyTorch. */
    public static final float BETA1 = 0.9f;
    /** Adam's default β2. */
    public static final float BETA2 = 0.999f;
    /** Adam's default ε. */
    public static final float EPSILON = 1e-8f;

    private final long weights;
    private final long nonZeroGradients;
    private final long zeroSecondMoment;
    private final long infinite;
    private final long notANumber;
    private final float epsilon16;

    private AdamInFloat16(long weights, long nonZeroGradients, long zeroSecondMoment, long infinite, long notANumber,
            float epsilon16) {
        this.weights = weights;
        this.nonZeroGradients = nonZeroGradients;
        this.zeroSecondMoment = zeroSecondMoment;
        this.infinite = infinite;
        this.notANumber = notANumber;
        this.epsilon16 = epsilon16;
    }

    /** Measures Adam's first float16 step for {@code net} (float32, initialised) on the minibatch ({@code x}, {@code y}); {@code net} is not changed. */
    public static AdamInFloat16 measure(Block net, NDArray x, NDArray y, Loss loss) {
        long weights = 0, nonZero = 0, zeroV = 0, inf = 0, nan = 0;
        float eps16;
        try (NDManager m = NDManager.newBaseManager(x.getDevice())) {
            NDArray eps = m.create(EPSILON).toType(DataType.FLOAT16, false);
            eps16 = eps.toType(DataType.FLOAT32, false).getFloat();
            for (NDArray g32 : Gradients.of(net, x, y, loss, DataType.FLOAT16, 1f, m).values()) {
                NDArray g = g32.toType(DataType.FLOAT16, false); // exact: the values were computed in float16
                NDArray m1 = g.mul(1 - BETA1);
                NDArray v = g.mul(g).mul(1 - BETA2);
                NDArray step = m1.div(1 - BETA1).div(v.div(1 - BETA2).sqrt().add(eps));
                weights += g.size();
                nonZero += count(g.neq(0));
                zeroV += count(g.neq(0).logicalAnd(v.eq(0)));
                inf += count(step.isInfinite());
                nan += count(step.isNaN());
            }
        }
        return new AdamInFloat16(weights, nonZero, zeroV, inf, nan, eps16);
    }

    private static long count(NDArray mask) {
        try (mask; NDArray n = mask.sum()) {
            return n.toType(DataType.INT64, false).getLong();
        }
    }

    /** ε = 1e-8 as float16 stores it (0: it lies below half of the smallest subnormal, 2^-25). */
    public float epsilonInFloat16() {
        return epsilon16;
    }

    /** The number of trained weights. */
    public long weights() {
        return weights;
    }

    /** Of the weights with a non-zero float16 gradient, the fraction whose second moment (1 - β2) g² rounds to zero. */
    public double zeroSecondMomentFraction() {
        return nonZeroGradients == 0 ? 0 : (double) zeroSecondMoment / nonZeroGradients;
    }

    /** The fraction of all weights whose first step is infinite or NaN. */
    public double notFiniteFraction() {
        return (double) (infinite + notANumber) / weights;
    }

    /** The counts, one line each. */
    @Override
    public String toString() {
        return String.format(Locale.ROOT, "Adam's first step in float16 on %d weights (ε = 1e-8 is %s in float16):%n"
                + "  non-zero gradient                       %7d%n"
                + "  of these, second moment rounded to zero %7d (%5.1f%%)%n"
                + "  step infinite (m / 0)                   %7d%n"
                + "  step NaN (0 / 0: m and v both zero)     %7d%n"
                + "  not finite, of all weights              %7d (%5.1f%%)%n",
                weights, epsilon16, nonZeroGradients, zeroSecondMoment, 100 * zeroSecondMomentFraction(), infinite,
                notANumber, infinite + notANumber, 100 * notFiniteFraction());
    }

}
