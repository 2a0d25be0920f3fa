package org.d2l.multigpu.precision;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.nn.norm.BatchNorm;
import ai.djl.training.GradientCollector;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.d2l.multigpu.devices.OnDevice;
import org.d2l.multigpu.devices.ReplicaStore;
import org.d2l.multigpu.models.SyncBatchNorm;
import org.d2l.multigpu.runtime.Scalars;

/**
 * Mixed-precision training with float32 master weights: every replica runs forward and backward on a
 * float16 copy of the parameters, the loss is computed in float32 and multiplied by the loss scale,
 * and the float16 gradients are unscaled into the float32 masters, which the trainer's rule updates
 * and which are then copied back into the float16 copies. BatchNorm's parameters and running
 * statistics stay float32 in the copies, as PyTorch's autocast keeps them (PyTorch normalises a
 * float16 input with float32 statistics), so the running statistics never round to float16.
 *
 * <p>Each replica has a float32 master of its own on its own device (replica 0's is the block's own
 * arrays), so that both rules run unchanged on float32: gradient averaging averages the k unscaled
 * float32 gradients into replica 0 (the allreduce moves float32, as in PyTorch's autocast with
 * float32 parameters; reducing the scaled float16 gradients instead would halve the traffic), and
 * parameter averaging gives each worker its own float32 weights and optimizer state, which a float16
 * worker could not keep without losing small updates. A step is skipped on every replica when any
 * replica's gradient holds an infinity or NaN, found with one reduction to a single number per step.
 */
final class Float16Policy extends Float16Replicas {

    private final List<ReplicaStore> masters;
    private final List<Parameter> params;
    private final LossScale scale;

    /** Float32 masters of {@code net}'s float32 parameters and float16 copies of them on each of {@code devices}. */
    Float16Policy(Block net, List<Device> devices, List<Parameter> params, NDManager manager, LossScaler scaler) {
        this(float32Masters(net, devices, manager), net, params, manager, scaler);
    }

    private Float16Policy(List<ReplicaStore> masters, Block net, List<Parameter> params, NDManager manager,
            LossScaler scaler) {
        super(ReplicaStore.replicas(net, masters.stream().map(ReplicaStore::device).toList(), manager, float16ExceptBatchNorm(net)),
                manager);
        this.masters = masters;
        this.params = params;
        this.scale = scaler.start();
        allocateGradients(manager);
    }

    /** The float32 masters: the block's own arrays on the first device, copies on the others; checks they are float32. */
    private static List<ReplicaStore> float32Masters(Block net, List<Device> devices, NDManager manager) {
        for (var p : net.getParameters()) {
            DataType t = p.getValue().getArray().getDataType();
            if (t != DataType.FLOAT32) {
                throw new IllegalArgumentException("FLOAT16 training keeps the block's own parameters as the "
                        + "float32 master weights, but parameter " + p.getKey() + " is " + t
                        + ": initialise the block in DataType.FLOAT32.");
            }
        }
        return ReplicaStore.replicas(net, devices, manager, p -> null);
    }

    /** The type of each of {@code net}'s parameters in a replica's float16 copy: float16, except BatchNorm's (kept). */
    static Function<Parameter, DataType> float16ExceptBatchNorm(Block net) {
        Set<String> float32 = batchNormParameters(net);
        return p -> float32.contains(p.getId()) ? null : DataType.FLOAT16;
    }

    /** The ids of the parameters (scale, shift, running mean and variance) of every BatchNorm (synchronised or not) inside {@code block}. */
    static Set<String> batchNormParameters(Block block) {
        Set<String> ids = new HashSet<>();
        if (block instanceof BatchNorm || block instanceof SyncBatchNorm) {
            block.getParameters().values().forEach(p -> ids.add(p.getId()));
        }
        for (Block child : block.getChildren().values()) {
            ids.addAll(batchNormParameters(child));
        }
        return ids;
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
                        NDArray sum = m.get(p.getId()).sum();
                        NDArray s = sum.mul(Scalars.of(sum, 0));
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

    /**
     * Whether every element of {@code arrays} (float32 copies of float16 gradients) is finite, read
     * from the device once: the arrays' sums are added into one number on the first array's device.
     * A float32 sum of float16 values cannot overflow, so it is infinite or NaN only when an element is.
     */
    static boolean allFinite(List<NDArray> arrays, NDManager step) {
        if (arrays.isEmpty()) {
            return true;
        }
        Device home = arrays.get(0).getDevice();
        NDArray total = null;
        for (NDArray a : arrays) {
            NDArray s = a.sum().toDevice(home, false);
            s.attach(step);
            total = total == null ? s : total.add(s);
            total.attach(step);
        }
        return Float.isFinite(total.toFloatArray()[0]); // getFloat() would index a new scalar array first
    }

    @Override
    public String describe() {
        return "FLOAT16 with float32 master weights and loss scaling";
    }

    @Override
    public List<ReplicaStore> masters() {
        return masters;
    }

    @Override
    public float lossFactor() {
        return scale.scale();
    }

    @Override
    public LossScale lossScale() {
        return scale;
    }

    /** Unscales the gradients into the masters' and copies running statistics to the masters. */
    @Override
    public boolean gradientsToMasters(int active, NDManager step) {
        List<NDArray> unscaled = new ArrayList<>();
        for (int i = 0; i < active; i++) {
            for (Parameter p : params) {
                if (p.requiresGradient()) {
                    try (NDArray g = replicas.get(i).get(p.getId()).getGradient()) {
                        unscaled.add(OnDevice.cast(g, DataType.FLOAT32, step));
                    }
                }
            }
        }
        if (!allFinite(unscaled, step)) {
            scale.stepSkipped();
            return false;
        }
        int j = 0;
        for (int i = 0; i < active; i++) {
            for (Parameter p : params) {
                NDArray half = replicas.get(i).get(p.getId());
                NDArray master = masters.get(i).get(p.getId());
                if (p.requiresGradient()) {
                    try (NDArray g = master.getGradient(); NDArray gHalf = half.getGradient()) {
                        NDArray u = unscaled.get(j++); // held by step, whose device may be another replica's
                        OnDevice.copyInto(u.divi(Scalars.of(u, scale.scale())), g);
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

    /** Copies {@code src} into {@code dst}, converted to {@code dst}'s type, temporaries held by {@code step}. */
    static void castInto(NDArray src, NDArray dst, NDManager step) {
        OnDevice.copyInto(OnDevice.cast(src, dst.getDataType(), step), dst);
    }
}
