package org.d2l.multigpu.runtime;

import ai.djl.engine.Engine;
import ai.djl.pytorch.jni.JniUtils;

/**
 * A scope in which PyTorch records no gradients on the current thread, for in-place updates of
 * parameters and for evaluation: PyTorch's gradient mode is per thread and on by default, and DJL
 * turns it off only on the thread that started the engine, so a Jupyter kernel that runs a cell on
 * another thread would otherwise fail with "a leaf Variable that requires grad is being used in an
 * in-place operation". A {@code GradientCollector} opened inside turns recording on again until it
 * closes.
 */
public final class NoGrad implements AutoCloseable {

    private final boolean pytorch;
    private final boolean before;

    private NoGrad() {
        pytorch = "PyTorch".equals(Djl.engine().getEngineName());
        before = pytorch && JniUtils.isGradMode();
        if (before) {
            JniUtils.setGradMode(false);
        }
    }

    /** Turns gradient recording off on this thread until {@link #close()}. */
    public static NoGrad scope() {
        return new NoGrad();
    }

    /** Puts this thread's gradient mode back as it was. */
    @Override
    public void close() {
        if (before) {
            JniUtils.setGradMode(true);
        }
    }

    /** Whether this thread records gradients now (always false for engines other than PyTorch). */
    public static boolean recording() {
        return "PyTorch".equals(Engine.getInstance().getEngineName()) && JniUtils.isGradMode();
    }
}
