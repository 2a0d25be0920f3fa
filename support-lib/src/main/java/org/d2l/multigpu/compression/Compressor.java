package org.d2l.multigpu.compression;

import ai.djl.ndarray.NDArray;
import java.io.Serializable;
import java.util.List;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.Traffic;

/**
 * A scheme that sends less than the gradient when replicas sum their gradients (float16, DL4J's threshold
 * encoding, 1-bit sign with a scale, PowerSGD), with fixed settings and what it remembers between steps
 * (residuals, thresholds, PowerSGD's Q) kept in a {@link CompressionState}; serializable, so that Spark
 * ships it to its tasks.
 */
public interface Compressor extends Serializable {

    /**
     * Sums {@code data} (one float32 array per replica, all of one shape; null for a replica in another
     * process) approximately, so that afterwards every array holds the same approximation of the sum;
     * what is sent goes through {@code wire}.
     * {@code key} names the array in {@code state} (a parameter's id in process, its name on Spark); returns
     * the traffic it caused.
     */
    Traffic allreduce(String key, List<NDArray> data, Collective wire, CompressionState state);

    /** Whether the part of each array that was not sent is kept and added to the next step's (error feedback). */
    boolean errorFeedback();

    /** One line naming the scheme and its settings, for logs, notebooks and checkpoints. */
    String describe();

    /** float16: each value cast to half precision, 2 bytes instead of 4. */
    static Compressor float16(boolean errorFeedback) {
        return new Float16Compressor(errorFeedback);
    }

    /** 1-bit SGD: each value's sign and one scale per array (the mean magnitude), 32x fewer bytes. */
    static Compressor oneBit(boolean errorFeedback) {
        return new OneBitCompressor(errorFeedback);
    }

    /** DL4J's threshold encoding with its adaptive threshold, starting at {@code initialThreshold} (DL4J: 1e-4). */
    static Compressor threshold(double initialThreshold, boolean errorFeedback) {
        return new ThresholdCompressor(initialThreshold, errorFeedback);
    }

    /** PowerSGD of rank {@code rank}, plain allreduce for the first {@code plainSteps} steps (warm start on). */
    static Compressor powerSgd(int rank, int plainSteps, boolean errorFeedback) {
        return new PowerSgdCompressor(rank, plainSteps, errorFeedback);
    }
}
