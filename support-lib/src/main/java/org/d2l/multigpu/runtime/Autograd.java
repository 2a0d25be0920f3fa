package org.d2l.multigpu.runtime;

import ai.djl.ndarray.NDArray;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;

/**
 * Gradient recording on the current thread, for pipeline stages that record and back-propagate on threads of their
 * own at the same time: DJL's {@code GradientCollector} allows one collector in the whole process, while PyTorch's
 * gradient mode is per thread and its backward passes on separate graphs may run at once.
 */
public final class Autograd implements AutoCloseable {

    private final boolean before;

    private Autograd() {
        requirePyTorch();
        before = JniUtils.isGradMode();
        JniUtils.setGradMode(true);
    }

    /** Turns gradient recording on for this thread until {@link #close()}. */
    public static Autograd record() {
        return new Autograd();
    }

    /** Puts this thread's gradient mode back as it was. */
    @Override
    public void close() {
        JniUtils.setGradMode(before);
    }

    /**
     * Back-propagates {@code gradient}, the loss's gradient with respect to {@code output}, through the graph that
     * recorded {@code output}: the leaves' gradients grow by the product (PyTorch adds to what they hold), and the
     * graph is freed.
     */
    public static void backward(NDArray output, NDArray gradient) {
        requirePyTorch();
        if (!output.getShape().equals(gradient.getShape())) {
            throw new IllegalArgumentException("the gradient must have the output's shape " + output.getShape()
                    + ", got " + gradient.getShape() + ".");
        }
        if (!(output instanceof PtNDArray out) || !(gradient instanceof PtNDArray grad)) {
            throw new IllegalArgumentException("backward needs PyTorch arrays, got "
                    + output.getClass().getSimpleName() + " and " + gradient.getClass().getSimpleName() + ".");
        }
        if (!output.getDevice().equals(gradient.getDevice())) {
            throw new IllegalArgumentException("the gradient must be on the output's device " + output.getDevice()
                    + ", got " + gradient.getDevice() + ": copy it there first.");
        }
        JniUtils.backward(out, grad, false, false);
    }

    /** Back-propagates a scalar {@code loss} (its gradient is 1). */
    public static void backward(NDArray loss) {
        if (loss.size() != 1) {
            throw new IllegalArgumentException("backward(loss) needs one number, got shape " + loss.getShape()
                    + ": give the output's gradient with backward(output, gradient).");
        }
        try (NDArray one = loss.onesLike()) {
            backward(loss, one);
        }
    }

    /**
     * Sets the gradient of {@code weight} to zero in place with one native call ({@code grad.zero_()}, NaN and
     * infinity included) and returns true, or returns false and does nothing when {@code weight} is not PyTorch's.
     */
    public static boolean zeroGradient(NDArray weight) {
        if (weight instanceof PtNDArray pt) {
            JniUtils.zeroGrad(pt);
            return true;
        }
        return false;
    }

    private static void requirePyTorch() {
        String engine = Djl.engine().getEngineName();
        if (!"PyTorch".equals(engine)) {
            throw new IllegalStateException("Autograd records through PyTorch, but the engine in use is " + engine
                    + ": call Djl.setup() first, which selects PyTorch.");
        }
    }
}
