package org.d2l.multigpu.precision;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.util.List;
import org.d2l.multigpu.devices.ReplicaStore;

/** FLOAT32 training: the replicas compute on their float32 parameters, nothing to convert or scale. */
final class Float32Policy implements PrecisionPolicy {

    private final List<ReplicaStore> replicas;

    Float32Policy(List<ReplicaStore> masters) {
        this.replicas = masters;
    }

    @Override
    public DataType dataType() {
        return DataType.FLOAT32;
    }

    @Override
    public List<ReplicaStore> replicas() {
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

    @Override
    public float lossFactor() {
        return 1f;
    }

    @Override
    public LossScale lossScale() {
        return null;
    }

    @Override
    public boolean gradientsToMasters(int active, NDManager step) {
        return true;
    }

    @Override
    public void mastersChanged(NDManager step) {}

    @Override
    public void stepTaken() {}
}
