package org.d2l.multigpu.lesson;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.Parameter;
import java.util.List;
import org.d2l.multigpu.devices.ReplicaStore;
import org.d2l.multigpu.precision.ParameterBytes;
import org.d2l.multigpu.runtime.NoGrad;

/**
 * The bytes of the activations of one forward pass, measured from the arrays: the output of every
 * layer of a {@link SequentialBlock} (what the backward pass keeps, roughly), computed with a
 * replica's parameters in their data type.
 */
public final class ActivationBytes {

    private ActivationBytes() {}

    /**
     * The summed bytes of the outputs of {@code net}'s layers (its children; the block's own output
     * when it is not sequential) on {@code x}, converted to the data type of {@code store}'s first
     * trained parameter, computed with the values of {@code store}; nothing is recorded for gradients.
     */
    public static long of(Block net, ReplicaStore store, NDArray x) {
        Parameter first = net.getParameters().values().stream().filter(Parameter::requiresGradient).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("The block has no trained parameter to take a type from."));
        List<Block> layers = net instanceof SequentialBlock s ? s.getChildren().values() : List.of(net);
        long bytes = 0;
        try (NoGrad g = NoGrad.scope(); NDManager tmp = NDManager.newBaseManager(x.getDevice())) {
            tmp.tempAttachAll(x);
            NDList h = new NDList(x.toType(store.get(first.getId()).getDataType(), true));
            for (Block layer : layers) {
                h = layer.forward(store, h, false);
                for (NDArray a : h) {
                    bytes += ParameterBytes.bytes(a);
                }
            }
        }
        return bytes;
    }
}
