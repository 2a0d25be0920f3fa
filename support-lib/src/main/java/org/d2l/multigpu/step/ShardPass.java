package org.d2l.multigpu.step;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.nn.Block;
import ai.djl.training.ParameterStore;
import ai.djl.training.loss.Loss;
import java.util.function.UnaryOperator;
import org.d2l.multigpu.runtime.Autograd;
import org.d2l.multigpu.runtime.Scalars;

/**
 * One replica's passes over its shard of a step, the same in every trainer: the forward pass recorded on this
 * thread, the mean loss, the loss weighted as the synchronisation rule says (its share of the global batch, or 1
 * for a worker's own minibatch), and the backward pass of the weighted loss into the replica's gradients.
 */
public final class ShardPass {

    /** What the forward pass gave: the network's output, the shard's mean loss, and the weighted loss to back-propagate. */
    public record Result(NDArray output, NDArray loss, NDArray weighted) {

        /** The shard's mean loss as a number. */
        public float lossValue() {
            return loss.toFloatArray()[0]; // getFloat() would index a new scalar array first
        }
    }

    private ShardPass() {}

    /**
     * The forward pass of {@code net} with the parameters of {@code store} on the examples {@code x}, recorded for
     * a backward pass on this thread; {@code output} turns the network's output into the one the loss sees (the
     * identity, or float16 to float32); {@code loss} against the labels {@code y}, and that loss times {@code weight}.
     */
    public static Result forward(Block net, ParameterStore store, Loss loss, NDArray x, NDArray y, double weight,
            UnaryOperator<NDArray> output) {
        try (Autograd recording = Autograd.record()) {
            NDArray yHat = output.apply(net.forward(store, new NDList(x), true).head());
            NDArray l = loss.evaluate(new NDList(y), new NDList(yHat));
            return new Result(yHat, l, weight == 1 ? l : l.mul(Scalars.of(l, weight))); // times 1 changes nothing
        }
    }

    /** The backward pass of {@code weighted} (a weighted loss, one number): the gradients of the leaves grow by its gradient. */
    public static void backward(NDArray weighted) {
        Autograd.backward(weighted);
    }
}
