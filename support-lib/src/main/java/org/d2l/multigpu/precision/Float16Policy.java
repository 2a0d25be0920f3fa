package org.d2l.multigpu.precision;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.GradientCollector;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.devices.OnDevice;
import org.d2l.multigpu.devices.ReplicaStore;

/**
 * Mixed-precision training with float32 master weights: every replica runs forward and backward on a
 * float16 copy of the parameters, the loss is computed in float32 and multiplied by the loss scale,
 * and the float16 gradients are unscaled into the float32 masters, which the trainer's rule updates
 * and which are then copied back into the float16 copies.
 *
 * <p>Each replica has a float32 master of its own on its own device (replica 0's is the block's own
 * arrays), so that both rules run unchanged on float32: gradient averaging averages the k unscaled
 * float32 gradients into replica 0 (the allreduce moves float32, as in FLOAT32 training; a GPU
 * implementation would reduce in float16 to halve the traffic), and parameter averaging gives each
 * worker its own float32 weights and optimizer state, which a float16 worker could not keep
 * without losing small updates. A step is skipped on every replica when any replica's gradient
 * holds an infinity or NaN.
 */
final class Float16Policy implements PrecisionPolicy {

    private final List<ReplicaStore> masters;
    private final List<Parameter> params;
    private final LossScale scale;
    private final List<ReplicaStore> replicas = new ArrayList<>();
    private final List<NDArray> float32Ones = new ArrayList<>();

    /** Float16 copies of {@code net}'s float32 parameters on each master's device, held by {@code manager}. */
    Float16Policy(Block net, List<ReplicaStore> masters, List<Parameter> params, NDManager manager, LossScaler scaler) {
        for (var p : net.getParameters()) {
            DataType t = p.getValue().getArray().getDataType();
            if (t != DataType.FLOAT32) {
                throw new IllegalArgumentException("FLOAT16 training keeps the block's own parameters as the "
                        + "float32 master weights, but parameter " + p.getKey() + " is " + t
                        + ": initialise the block in DataType.FLOAT32.");
            }
        }
        this.masters = masters;
        this.params = params;
        this.scale = scaler.start();
        for (ReplicaStore m : masters) {
            replicas.add(ReplicaStore.copyOf(net, m.device(), manager, true, DataType.FLOAT16));
            float32Ones.add(manager.ones(new Shape(1), DataType.FLOAT32, m.device()));
        }
        allocateGradients(manager);
    }

    /**
     * Gives every trained parameter of the masters its gradient buffer, zero: PyTorch creates a
     * leaf's gradient at its first backward pass, which the masters never take (until then DJL's
     * {@code getGradient()} hands out a fresh array each call, and what is written into it is lost).
     */
    private void allocateGradients(NDManager manager) {
        try (NDManager tmp = manager.newSubManager();
                GradientCollector gc = Engine.getInstance().newGradientCollector()) {
            for (ReplicaStore m : masters) {
                NDArray zero = null;
                for (Parameter p : params) {
                    if (p.requiresGradient()) {
                        NDArray s = m.get(p.getId()).sum().mul(0f);
                        s.attach(tmp);
                        zero = zero == null ? s : zero.add(s);
                        zero.attach(tmp);
                    }
                }
                if (zero != null) {
                    gc.backward(zero);
                }
            }
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
     * the type, and the backward pass casts the gradient back to float16).
     */
    @Override
    public NDArray output(NDArray yHat, int replica) {
        return yHat.mul(float32Ones.get(replica));
    }

    @Override
    public float lossFactor() {
        return scale.scale();
    }

    @Override
    public LossScale lossScale() {
        return scale;
    }

    /** Unscales the float16 gradients into the masters' and copies running statistics to the masters. */
    @Override
    public boolean gradientsToMasters(int active, NDManager step) {
        List<NDArray> unscaled = new ArrayList<>();
        for (int i = 0; i < active; i++) {
            for (Parameter p : params) {
                if (p.requiresGradient()) {
                    try (NDArray g = replicas.get(i).get(p.getId()).getGradient()) {
                        NDArray g32 = g.toType(DataType.FLOAT32, true);
                        g32.attach(step);
                        // In float32 the sum of float16 values cannot overflow: it is infinite or NaN only
                        // when one of them is.
                        try (NDArray sum = g32.sum()) {
                            if (!Float.isFinite(sum.getFloat())) {
                                scale.stepSkipped();
                                return false;
                            }
                        }
                        unscaled.add(g32.divi(scale.scale()));
                    }
                }
            }
        }
        int j = 0;
        for (int i = 0; i < active; i++) {
            for (Parameter p : params) {
                NDArray half = replicas.get(i).get(p.getId());
                NDArray master = masters.get(i).get(p.getId());
                if (p.requiresGradient()) {
                    try (NDArray g = master.getGradient(); NDArray gHalf = half.getGradient()) {
                        OnDevice.copyInto(unscaled.get(j++), g);
                        OnDevice.zero(gHalf);
                    }
                } else {
                    castInto(half, master, step);
                }
            }
        }
        return true;
    }

    /** Copies every master's values into its replica's float16 parameters. */
    @Override
    public void mastersChanged(NDManager step) {
        for (int i = 0; i < replicas.size(); i++) {
            for (Parameter p : params) {
                castInto(masters.get(i).get(p.getId()), replicas.get(i).get(p.getId()), step);
            }
        }
    }

    @Override
    public void stepTaken() {
        scale.stepTaken();
    }

    private static void castInto(NDArray src, NDArray dst, NDManager step) {
        NDArray cast = src.toType(dst.getDataType(), true);
        cast.attach(step);
        OnDevice.copyInto(cast, dst);
    }
}
