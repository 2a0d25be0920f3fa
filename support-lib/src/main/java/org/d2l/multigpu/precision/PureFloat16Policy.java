package org.d2l.multigpu.precision;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
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
final class PureFloat16Policy extends Float16Replicas {

    private final Block net;
    private final ReplicaStore own;
    private final List<Parameter> params = new ArrayList<>();

    /** Float16 copies of {@code net}'s parameters on each of {@code devices}, held by {@code manager}. */
    PureFloat16Policy(Block net, List<Device> devices, NDManager manager) {
        super(ReplicaStore.replicas(net, devices, manager, p -> DataType.FLOAT16), manager);
        this.net = net;
        own = ReplicaStore.of(net, manager);
        for (Pair<String, Parameter> p : net.getParameters()) {
            params.add(p.getValue());
        }
    }

    @Override
    public String describe() {
        return "pure FLOAT16 (no master weights, no loss scaling)";
    }

    @Override
    public List<ReplicaStore> masters() {
        return replicas;
    }

    /**
     * The block's own float32 arrays for replica 0 (kept equal to its float16 weights) and, for the others,
     * their float16 weights widened into float32 arrays held by {@code tmp}.
     */
    @Override
    public List<ReplicaStore> float32Replicas(NDManager tmp) {
        List<ReplicaStore> stores = new ArrayList<>(List.of(own));
        for (int i = 1; i < replicas.size(); i++) {
            ReplicaStore wide = ReplicaStore.copyOf(net, replicas.get(i).device(), tmp, false);
            for (Parameter p : params) {
                Float16Policy.castInto(replicas.get(i).get(p.getId()), wide.get(p.getId()), tmp);
            }
            stores.add(wide);
        }
        return stores;
    }

    /** Widens replica 0's float16 weights into the block's own float32 arrays. */
    @Override
    public void mastersChanged(NDManager step) {
        for (Parameter p : params) {
            Float16Policy.castInto(replicas.get(0).get(p.getId()), own.get(p.getId()), step);
        }
    }
}
