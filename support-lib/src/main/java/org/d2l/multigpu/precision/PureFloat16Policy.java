package org.d2l.multigpu.precision;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.devices.ReplicaStore;

/**
 * Pure float16 training, as Deeplearning4j's HALF data type does it: weights, gradients, the
 * optimizer's update and its state are all float16, and the loss is not scaled. The trainer's rule
 * updates the float16 weights themselves (so gradient averaging reduces float16 gradients); after
 * every step replica 0's weights are widened into the block's own float32 arrays, on which the test
 * accuracy is evaluated (the same values, computed in float32).
 */
final class PureFloat16Policy implements PrecisionPolicy {

    private final ReplicaStore own;
    private final List<Parameter> params = new ArrayList<>();
    private final List<ReplicaStore> replicas = new ArrayList<>();
    private final List<NDArray> float32Ones = new ArrayList<>();

    /** Float16 copies of {@code net}'s parameters on each of {@code devices}, held by {@code manager}. */
    PureFloat16Policy(Block net, List<Device> devices, NDManager manager) {
        own = ReplicaStore.of(net, manager);
        for (Pair<String, Parameter> p : net.getParameters()) {
            params.add(p.getValue());
        }
        for (Device d : devices) {
            replicas.add(ReplicaStore.copyOf(net, d, manager, true, DataType.FLOAT16));
            float32Ones.add(manager.ones(new Shape(1), DataType.FLOAT32, d));
        }
    }

    @Override
    public DataType dataType() {
        return DataType.FLOAT16;
    }

    @Override
    public String describe() {
        return "pure FLOAT16 (no master weights, no loss scaling)";
    }

    @Override
    public List<ReplicaStore> replicas() {
        return replicas;
    }

    @Override
    public List<ReplicaStore> masters() {
        return replicas;
    }

    @Override
    public NDArray input(NDArray x) {
        return x.toType(DataType.FLOAT16, false);
    }

    /** The loss is taken in float32 as in FLOAT16 with masters, through a differentiable product with a float32 one. */
    @Override
    public NDArray output(NDArray yHat, int replica) {
        return yHat.mul(float32Ones.get(replica));
    }

    @Override
    public float lossFactor() {
        return 1f;
    }

    @Override
    public LossScale lossScale() {
        return null;
    }

    /** Nothing to bring over: the rule reduces and applies the float16 gradients themselves. */
    @Override
    public boolean gradientsToMasters(int active, NDManager step) {
        return true;
    }

    /** Widens replica 0's float16 weights into the block's own float32 arrays. */
    @Override
    public void mastersChanged(NDManager step) {
        for (Parameter p : params) {
            Float16Policy.castInto(replicas.get(0).get(p.getId()), own.get(p.getId()), step);
        }
    }

    @Override
    public void stepTaken() {}
}
