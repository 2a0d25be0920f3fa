package org.d2l.multigpu.parallel;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.pooling.Pool;
import ai.djl.training.GradientCollector;
import ai.djl.training.loss.Loss;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.runtime.ErrorBound;

/**
 * How far the mean cross-entropy that LeNet computes on a batch, with its values stored in float16 (or
 * float32) and its sums accumulated in float32 (PyTorch's and oneDNN's default for float16), may lie
 * from the exact loss of the same float32 weights, to first order in the unit roundoff (Higham,
 * "Accuracy and Stability of Numerical Algorithms", 2nd ed., sections 3.1 and 7.2): every stored value v
 * (the input, each weight and bias, each layer's and pooling's output) is rounded once, by at most u |v|
 * (u = 2^-11 for float16, 2^-24 for float32), and each float32 sum of n terms is off by at most
 * gamma(n) = n 2^-24 / (1 - n 2^-24) times the sum of its terms' absolute values, in any order of
 * addition; each such error moves the loss by the loss's derivative with respect to that value, taken
 * exactly (float64 autograd). The bound is the sum of |derivative| x |error| over all of them, times 2 for
 * what first order leaves out (products of two roundings, and ReLUs whose input lies within its error
 * of zero, each of which moves the loss by at most its derivative times that error), plus the float32
 * evaluation of the loss itself, at most gamma(B + 14) (4 max|z| + 3 + ln 10) for B examples and logits z.
 */
final class LeNetLossBound {

    /** float16's unit roundoff, 2^-11. */
    static final double FLOAT16_U = Math.scalb(1.0, -11);

    private LeNetLossBound() {}

    /** The bound on |loss computed from images {@code x} and labels {@code y} with {@code net}'s weights stored in float16 - exact loss|. */
    static double float16(Block net, NDArray x, NDArray y) {
        return bound(net, x, y, FLOAT16_U, true);
    }

    /** The same bound for a float32 computation (the input and the weights are float32 already: not rounded). */
    static double float32(Block net, NDArray x, NDArray y) {
        return bound(net, x, y, ErrorBound.FLOAT32_U, false);
    }

    private static double bound(Block net, NDArray x32, NDArray y, double u, boolean roundsInputs) {
        try (NDManager m = x32.getManager().newSubManager()) {
            List<NDArray> leaves = new ArrayList<>();
            NDArray x = leaf(x32, m, leaves);
            List<NDArray> p = new ArrayList<>();
            net.getParameters().forEach(e -> p.add(leaf(e.getValue().getArray(), m, leaves)));
            List<NDArray[]> stored = new ArrayList<>(); // {value, its zero leaf, sum of |terms| or null, terms}
            NDArray z;
            double total;
            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                NDArray h = stored(layer(x, p.get(0), p.get(1)), abs(x, p.get(0), p.get(1)), p.get(0), stored, m);
                h = stored(avg(Activation.relu(h)), avg(Activation.relu(h).abs()), null, stored, m);
                NDArray a2 = h;
                h = stored(layer(a2, p.get(2), p.get(3)), abs(a2, p.get(2), p.get(3)), p.get(2), stored, m);
                h = stored(avg(Activation.relu(h)), avg(Activation.relu(h).abs()), null, stored, m);
                NDArray a3 = h.reshape(h.getShape().get(0), -1);
                h = stored(layer(a3, p.get(4), p.get(5)), abs(a3, p.get(4), p.get(5)), p.get(4), stored, m);
                NDArray a4 = Activation.relu(h);
                z = stored(layer(a4, p.get(6), p.get(7)), abs(a4, p.get(6), p.get(7)), p.get(6), stored, m);
                NDArray loss = Loss.softmaxCrossEntropyLoss().evaluate(new NDList(y.toType(DataType.FLOAT64, false)),
                        new NDList(z));
                gc.backward(loss);
            }
            total = 0;
            if (roundsInputs) { // the input and every weight and bias are rounded to the storage type
                for (NDArray l : leaves) {
                    total += u * l.getGradient().abs().mul(l.abs()).sum().getDouble();
                }
            }
            for (NDArray[] s : stored) {
                NDArray g = s[1].getGradient().abs();
                total += u * g.mul(s[0].abs()).sum().getDouble(); // rounding the stored result
                total += g.mul(s[2]).sum().getDouble() * ErrorBound.gamma(s[3].getLong(), ErrorBound.FLOAT32_U);
            }
            long b = z.getShape().get(0);
            double zMax = z.abs().max().getDouble();
            return 2 * total + ErrorBound.gamma(b + 14, ErrorBound.FLOAT32_U) * (4 * zMax + 3 + Math.log(10));
        }
    }

    /** A float64 leaf with gradient holding {@code v}'s values. */
    private static NDArray leaf(NDArray v, NDManager m, List<NDArray> leaves) {
        NDArray l = v.toType(DataType.FLOAT64, false);
        l.attach(m);
        l.setRequiresGradient(true);
        leaves.add(l);
        return l;
    }

    /**
     * {@code value} plus a zero leaf whose gradient is the loss's derivative with respect to it, noted with
     * the sum of its terms' absolute values {@code absTerms} and their count (the weight's fan-in plus the
     * bias; pooling: 4).
     */
    private static NDArray stored(NDArray value, NDArray absTerms, NDArray w, List<NDArray[]> stored, NDManager m) {
        NDArray zero = value.zerosLike();
        zero.attach(m);
        zero.setRequiresGradient(true);
        long n = w == null ? 4 : w.getShape().size() / w.getShape().get(0) + 1;
        stored.add(new NDArray[] {value, zero, absTerms, m.create(n)});
        return value.add(zero);
    }

    private static NDArray layer(NDArray a, NDArray w, NDArray b) {
        return w.getShape().dimension() == 4 ? Conv2d.conv2d(a, w, b).singletonOrThrow()
                : Linear.linear(a, w, b).singletonOrThrow();
    }

    /** |a| op |w| + |b|, without gradient: the sums of the terms' absolute values. */
    private static NDArray abs(NDArray a, NDArray w, NDArray b) {
        try (org.d2l.multigpu.runtime.NoGrad g = org.d2l.multigpu.runtime.NoGrad.scope()) {
            return layer(a.abs(), w.abs(), b.abs());
        }
    }

    private static NDArray avg(NDArray a) {
        return Pool.avgPool2d(a, new Shape(2, 2), new Shape(2, 2), new Shape(0, 0), false, true);
    }
}
