package org.d2l.multigpu.step;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.util.List;
import java.util.Locale;
import org.d2l.multigpu.runtime.CpuCheck;

/**
 * The message for a training loss that is NaN or infinite, built from what the step can check (the
 * inputs and labels, the parameters it started from, the network's output, the updates made before)
 * and naming what is left: the data, the optimizer's earlier updates, or the platform's arithmetic.
 */
public final class NonFiniteLoss {

    private NonFiniteLoss() {}

    /** The facts one step can check, in the order the message gives them. */
    public record Facts(long badInputs, long inputs, double maxInput, long badParameters, long parameters,
            double maxParameter, double startMaxParameter, long badOutputs, double maxOutput, long updatesBefore) {

        /**
         * The facts of a step that read {@code inputs} (images and labels) and produced {@code outputs}
         * from {@code parameters}, after {@code updatesBefore} updates; {@code startMaxParameter} is the
         * largest |w| before the first update (NaN if unknown).
         */
        public static Facts of(List<NDArray> inputs, List<NDArray> parameters, List<NDArray> outputs,
                double startMaxParameter, long updatesBefore) {
            long[] in = count(inputs);
            long[] p = count(parameters);
            long[] out = count(outputs);
            return new Facts(in[0], in[1], maxAbs(inputs), p[0], p[1], maxAbs(parameters), startMaxParameter, out[0],
                    maxAbs(outputs), updatesBefore);
        }
    }

    /** The error for loss {@code loss} at {@code where} ("step 3 (epoch 1)"), the {@code unit} ("step", "round") undone. */
    public static IllegalStateException error(double loss, String where, String unit, Facts f) {
        return new IllegalStateException(message(loss, where, unit, f));
    }

    /** The message of {@link #error}. */
    public static String message(double loss, String where, String unit, Facts f) {
        StringBuilder m = new StringBuilder(String.format(Locale.ROOT,
                "The training loss is %s at %s; the parameters were left as they were before this %s. Checked: ", loss, where,
                unit));
        if (f.badInputs() > 0) {
            return m.append(String.format(Locale.ROOT, "the input batch (images and labels) holds %d NaN or infinite "
                    + "values of %d. Check the data: a corrupt file, or a transform that divides by zero.",
                    f.badInputs(), f.inputs())).toString();
        }
        m.append("the inputs are finite (largest |x| " + num(f.maxInput()) + "); ");
        if (f.badParameters() > 0) {
            return m.append(String.format(Locale.ROOT, "%d of the %d parameters are already NaN or infinite, after %d "
                    + "update(s): the optimizer's updates put them there. Lower the learning rate, or look for an "
                    + "update that divides by a value that rounds to zero at this precision (Adam's epsilon in float16).",
                    f.badParameters(), f.parameters(), f.updatesBefore())).toString();
        }
        m.append("the parameters are finite (largest |w| ").append(num(f.maxParameter()))
                .append(Double.isNaN(f.startMaxParameter()) ? "" : ", " + num(f.startMaxParameter()) + " before the first update")
                .append("); ");
        m.append(f.badOutputs() > 0 ? "the network's output holds " + f.badOutputs() + " NaN or infinite values. "
                : "the network's output is finite (largest " + num(f.maxOutput()) + "). ");
        String platform = "this platform's arithmetic (CPU check: " + CpuCheck.describe()
                + "); scripts/cpu-check.sh tests this CPU's kernels against float64, and README's Troubleshooting says what to set.";
        if (f.updatesBefore() == 0) {
            return m.append("No update had been made, so the learning rate played no part: finite numbers went in and "
                    + "a NaN came out, which leaves ").append(platform).toString();
        }
        return m.append(String.format(Locale.ROOT, "After %d update(s) that gave finite losses, what is left is a learning "
                + "rate too high for this network and data (compare the parameters' size with their start), or ",
                f.updatesBefore())).append(platform).toString();
    }

    /** {@code v} with 4 significant digits and no trailing zeros (0.41, 1, 3.75e+05). */
    static String num(double v) {
        return String.format(Locale.ROOT, "%.4g", v).replaceAll("\\.?0+(e|$)", "$1");
    }

    private static long[] count(List<NDArray> arrays) {
        long bad = 0;
        long all = 0;
        for (NDArray a : arrays) {
            if (a == null) {
                continue;
            }
            all += a.size();
            if (a.getDataType().isFloating() && a.size() > 0) {
                try (NDManager tmp = a.getManager().newSubManager()) {
                    tmp.tempAttachAll(a); // what is computed from it goes with tmp
                    bad += a.isNaN().logicalOr(a.isInfinite()).countNonzero().getLong();
                }
            }
        }
        return new long[] {bad, all};
    }

    private static double maxAbs(List<NDArray> arrays) {
        double max = 0;
        for (NDArray a : arrays) {
            if (a != null && a.size() > 0 && a.getDataType().isFloating()) {
                try (NDManager tmp = a.getManager().newSubManager()) {
                    tmp.tempAttachAll(a);
                    NDArray finite = a.isNaN().logicalOr(a.isInfinite()).logicalNot();
                    max = Math.max(max, NDArrays.where(finite, a.abs(), a.zerosLike()).max()
                            .toType(DataType.FLOAT64, false).getDouble());
                }
            }
        }
        return max;
    }
}
