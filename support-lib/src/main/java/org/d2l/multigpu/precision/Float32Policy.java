package org.d2l.multigpu.precision;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import java.util.List;
import org.d2l.multigpu.devices.ReplicaStore;

/** FLOAT32 training: the replicas compute on their float32 parameters, nothing to convert or scale. */
final class Float32Policy implements PrecisionPolicy {

    private final List<ReplicaStore> replicas;

    Float32Policy(Block net, List<Device> devices, NDManager manager) {
        this.replicas = ReplicaStore.replicas(net, devices, manager, p -> null);
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
