package org.d2l.multigpu.runtime;

import ai.djl.pytorch.jni.JniUtils;

/**
 * A scope in which each PyTorch operation uses a given number of threads (PyTorch's {@code set_num_threads}, one
 * setting for the whole process), put back as it was on close: with one, operations started from p Java threads
 * at once keep p cores busy instead of competing for all of them.
 */
public final class IntraOpThreads implements AutoCloseable {

    private final int before;

    private IntraOpThreads(int threads) {
        String engine = Djl.engine().getEngineName();
        if (!"PyTorch".equals(engine)) {
            throw new IllegalStateException("intra-op threads are PyTorch's, but the engine in use is " + engine
                    + ": call Djl.setup() first, which selects PyTorch.");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("PyTorch needs at least one thread per operation, got " + threads + ".");
        }
        before = JniUtils.getNumThreads();
        JniUtils.setNumThreads(threads);
    }

    /** Sets PyTorch's threads per operation to {@code threads} until {@link #close()}. */
    public static IntraOpThreads set(int threads) {
        return new IntraOpThreads(threads);
    }

    /** Sets PyTorch's threads per operation to {@code threads} without putting them back (a Spark task's cap). */
    public static void setTo(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("PyTorch needs at least one thread per operation, got " + threads + ".");
        }
        JniUtils.setNumThreads(threads);
    }

    /** PyTorch's threads per operation now. */
    public static int current() {
        return JniUtils.getNumThreads();
    }

    /** Puts the number of threads back as it was. */
    @Override
    public void close() {
        JniUtils.setNumThreads(before);
    }
}
