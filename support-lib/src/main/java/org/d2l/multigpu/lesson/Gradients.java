package org.d2l.multigpu.lesson;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.GradientCollector;
import ai.djl.training.loss.Loss;
import ai.djl.util.Pair;
import java.util.LinkedHashMap;
import java.util.Map;
import org.d2l.multigpu.devices.ReplicaStore;
import org.d2l.multigpu.precision.PrecisionPolicy;
import org.d2l.multigpu.runtime.NoGrad;
import org.d2l.multigpu.runtime.Scalars;

/**
 * The gradients of one minibatch's loss with respect to a block's trained parameters, computed on a
 * copy of the parameters (the block's own arrays and gradients are left alone), in float32 or, as
 * the trainer's FLOAT16 replicas compute them, in float16 with the loss taken in float32 and
 * multiplied by a loss scale.
 */
final class Gradients {

    private Gradients() {}

    /**
     * The gradients of {@code loss} on ({@code x}, {@code y}) times {@code scale}, computed in {@code type}
     * (FLOAT32 or FLOAT16) and returned as float32 arrays (exactly the values computed) attached to
     * {@code into}, keyed by parameter name, in the block's order.
     */
    static Map<String, NDArray> of(Block net, NDArray x, NDArray y, Loss loss, DataType type, float scale,
            NDManager into) {
        if (type != DataType.FLOAT32 && type != DataType.FLOAT16) {
            throw new IllegalArgumentException("Gradients are computed in FLOAT32 or FLOAT16, not " + type + ".");
        }
        Map<String, NDArray> grads = new LinkedHashMap<>();
        try (NoGrad g = NoGrad.scope(); NDManager tmp = into.newSubManager(x.getDevice())) {
            // Everything computed from x and y goes to tmp and is freed with it; x and y go back.
            tmp.tempAttachAll(x, y);
            ReplicaStore copy = type == DataType.FLOAT16 ? PrecisionPolicy.float16Copy(net, x.getDevice(), tmp)
                    : ReplicaStore.copyOf(net, x.getDevice(), tmp, true);
            try (GradientCollector gc = Engine.getInstance().newGradientCollector()) {
                NDArray in = type == DataType.FLOAT16 ? x.toType(DataType.FLOAT16, true) : x;
                NDArray out = net.forward(copy, new NDList(in), true).head();
                // toType is not differentiable in DJL: a product with a float32 one promotes the output instead.
                NDArray yHat = out.getDataType() == DataType.FLOAT32 ? out
                        : out.mul(tmp.ones(new Shape(1), DataType.FLOAT32, x.getDevice()));
                NDArray l = loss.evaluate(new NDList(y), new NDList(yHat));
                gc.backward(l.mul(Scalars.of(l, scale)));
            }
            for (Pair<String, Parameter> p : net.getParameters()) {
                if (p.getValue().requiresGradient()) {
                    try (NDArray grad = copy.get(p.getValue().getId()).getGradient()) {
                        NDArray g32 = grad.toType(DataType.FLOAT32, true);
                        g32.attach(into);
                        grads.put(p.getKey(), g32);
                    }
                }
            }
        }
        return grads;
    }
}
