package org.d2l.multigpu.precision;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import java.util.List;
import org.d2l.multigpu.devices.ReplicaStore;

/**
 * How the replicas compute, asked by the trainer at every step as it asks its {@code ReplicaSync}
 * rule: in FLOAT32 the replicas compute on the float32 parameters themselves; in FLOAT16 on float16
 * copies of them, with the loss scaled and the gradients unscaled into the float32 masters; in pure
 * float16 (Deeplearning4j's HALF) on float16 weights that the rule updates themselves. One policy
 * belongs to one trainer and holds that run's state (the copies, the loss scale).
 */
public interface PrecisionPolicy {

    /**
     * The policy for {@code type} for {@code net}'s parameters {@code params} on {@code devices} (one
     * replica each; replica 0's master is the block's own arrays), its arrays held by {@code manager}.
     * FLOAT16 keeps float32 master weights and scales the loss with {@code scaler} (null: {@link
     * LossScaler#dynamic()}) unless {@code masterWeights} is false: then the float16 weights are
     * updated themselves, without loss scaling ({@code scaler} must be null).
     */
    static PrecisionPolicy create(DataType type, boolean masterWeights, LossScaler scaler, Block net,
            List<Device> devices, List<Parameter> params, NDManager manager) {
        checkOptions(type, masterWeights, scaler);
        if (type == DataType.FLOAT32) {
            return float32(ReplicaStore.replicas(net, devices, manager, p -> null));
        }
        if (!masterWeights) {
            return new PureFloat16Policy(net, devices, manager);
        }
        return new Float16Policy(net, devices, params, manager, scaler == null ? LossScaler.dynamic() : scaler);
    }

    /** FLOAT32 training on {@code replicas}: the replicas compute on their float32 parameters, nothing to convert or scale. */
    private static PrecisionPolicy float32(List<ReplicaStore> replicas) {
        return new PrecisionPolicy() {
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
        };
    }

    /**
     * Checks that the options go together: master weights and a loss scaler are settings of FLOAT16, and
     * pure float16 (no master weights) trains without loss scaling, as Deeplearning4j's HALF does.
     */
    static void checkOptions(DataType type, boolean masterWeights, LossScaler scaler) {
        if (checkTrainable(type) != DataType.FLOAT16 && scaler != null) {
            throw new IllegalArgumentException("A loss scaler is used only in FLOAT16 training: add "
                    + "optDataType(DataType.FLOAT16) or drop optLossScaler(...).");
        }
        if (!masterWeights && type != DataType.FLOAT16) {
            throw new IllegalArgumentException("optMasterWeights(false) trains the float16 weights themselves: add "
                    + "optDataType(DataType.FLOAT16) or drop optMasterWeights(false).");
        }
        if (!masterWeights && scaler != null) {
            throw new IllegalArgumentException("Pure float16 (optMasterWeights(false)) trains without loss scaling, "
                    + "as Deeplearning4j's HALF does: drop optLossScaler(...), or keep the master weights.");
        }
    }

    /**
     * Checks that the trainer can train in {@code type}: FLOAT32 or FLOAT16; BFLOAT16 is refused
     * because DJL's PyTorch engine (0.35.1 and 0.36.0 alike) does not map it and would terminate the JVM.
     */
    static DataType checkTrainable(DataType type) {
        if (type == DataType.FLOAT32 || type == DataType.FLOAT16) {
            return type;
        }
        if (type == DataType.BFLOAT16) {
            throw new IllegalArgumentException("BFLOAT16 is not supported: DJL " + ai.djl.engine.Engine.getDjlVersion() + "'s PyTorch engine does not "
                    + "map it and would terminate the JVM instead of failing. Use DataType.FLOAT16 (float16 "
                    + "compute with float32 master weights) or DataType.FLOAT32 (the default).");
        }
        throw new IllegalArgumentException("The trainer cannot train in " + type
                + ": use DataType.FLOAT32 (the default) or DataType.FLOAT16.");
    }

    /**
     * The copy of {@code net}'s parameters that a FLOAT16 replica computes with on {@code device}, held by
     * {@code manager}, with gradients: every parameter float16 except BatchNorm's, which stay float32.
     */
    static ReplicaStore float16Copy(Block net, Device device, NDManager manager) {
        return ReplicaStore.copyOf(net, device, manager, true, Float16Policy.float16ExceptBatchNorm(net));
    }

    /** The data type the replicas compute in. */
    DataType dataType();

    /** One line naming the policy, e.g. "FLOAT16 with float32 master weights and loss scaling". */
    String describe();

    /** The parameter stores the replicas run forward and backward on, one per replica. */
    List<ReplicaStore> replicas();

    /**
     * The parameter stores the trainer's rule updates, one per replica: the float32 masters (in
     * FLOAT32 the same stores as {@link #replicas()}), or in pure float16 the float16 weights.
     */
    List<ReplicaStore> masters();

    /**
     * The replicas' parameters in float32, one store per replica, on which the model is evaluated: the
     * masters, or in pure float16 float32 copies of the float16 weights (temporaries held by {@code tmp}).
     */
    default List<ReplicaStore> float32Replicas(NDManager tmp) {
        return masters();
    }

    /** The examples {@code x} as the replicas take them. */
    NDArray input(NDArray x);

    /** Replica {@code replica}'s output {@code yHat} as float32, inside the recorded graph. */
    NDArray output(NDArray yHat, int replica);

    /** The factor the loss is multiplied by before the backward pass (by default 1: no loss scaling). */
    default float lossFactor() {
        return 1f;
    }

    /** The running loss scale, or null without loss scaling (the default). */
    default LossScale lossScale() {
        return null;
    }

    /**
     * After the backward passes of the first {@code active} replicas: brings their gradients (and
     * running statistics) into the masters, temporaries held by {@code step}; returns false,
     * changing no parameter, when the step must be skipped (a float16 gradient overflowed). By
     * default there is nothing to bring: the replicas compute on the masters themselves.
     */
    default boolean gradientsToMasters(int active, NDManager step) {
        return true;
    }

    /** After the rule updated the masters: copies them into what the replicas compute with (by default nothing to copy). */
    default void mastersChanged(NDManager step) {}

    /** After a completed step: counts it (the loss scale grows after enough good steps; by default nothing). */
    default void stepTaken() {}
}
