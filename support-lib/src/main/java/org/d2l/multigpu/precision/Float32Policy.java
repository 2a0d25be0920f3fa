package org.d2l.multigpu.precision;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.devices.ReplicaStore;

/** FLOAT32 training: the replicas compute on their float32 parameters, nothing to convert or scale. */
final class Float32Policy implements PrecisionPolicy {

    private final List<ReplicaStore> replicas;

    Float32Policy(Block net, List<Device> devices, NDManager manager) {
        this.replicas = float32Stores(net, devices, manager);
    }

    /**
     * One float32 store per device: the block's own arrays on the first, copies with gradients on the
     * others, held by {@code manager}.
     */
    static List<ReplicaStore> float32Stores(Block net, List<Device> devices, NDManager manager) {
        List<ReplicaStore> stores = new ArrayList<>(List.of(ReplicaStore.of(net, manager)));
        for (int i = 1; i < devices.size(); i++) {
            stores.add(ReplicaStore.copyOf(net, devices.get(i), manager, true));
        }
        return List.copyOf(stores);
    }

    @Override
    public DataType dataType() {
        return DataType.FLOAT32;
    }

    @Override
    public String describe() {
        return "FLOAT32";
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
        return x;
    }

    @Override
    public NDArray output(NDArray yHat, int replica) {
        return yHat;
    }
}
