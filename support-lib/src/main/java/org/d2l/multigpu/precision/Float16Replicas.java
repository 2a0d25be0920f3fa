package org.d2l.multigpu.precision;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.devices.ReplicaStore;

/**
 * What the two float16 policies share: replicas that compute on float16 parameter copies, take their
 * examples as float16 and hand their outputs to the loss as float32.
 */
abstract class Float16Replicas implements PrecisionPolicy {

    /** The stores the replicas compute with, one per replica. */
    final List<ReplicaStore> replicas;
    private final List<NDArray> float32Ones = new ArrayList<>();

    /** Replicas computing with {@code replicas}; a float32 one per replica's device is held by {@code manager}. */
    Float16Replicas(List<ReplicaStore> replicas, NDManager manager) {
        this.replicas = List.copyOf(replicas);
        for (ReplicaStore r : replicas) {
            float32Ones.add(manager.ones(new Shape(1), DataType.FLOAT32, r.device()));
        }
    }

    @Override
    public DataType dataType() {
        return DataType.FLOAT16;
    }

    @Override
    public List<ReplicaStore> replicas() {
        return replicas;
    }

    @Override
    public NDArray input(NDArray x) {
        return x.toType(DataType.FLOAT16, false);
    }

    /**
     * {@code toType} is not differentiable in DJL, a product with a float32 one is (PyTorch promotes
     * the type, and the backward pass casts the gradient back to float16): the loss is taken in float32.
     */
    @Override
    public NDArray output(NDArray yHat, int replica) {
        return yHat.mul(float32Ones.get(replica));
    }
}
