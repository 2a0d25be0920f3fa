package org.d2l.multigpu.precision;

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
 * copies of them, with the loss scaled and the gradients unscaled into the float32 masters. One
 * policy belongs to one trainer and holds that run's state (the float16 copies, the loss scale).
 */
public interface PrecisionPolicy {

    /**
     * The policy for {@code type} over {@code masters}, the float32 stores of {@code net}'s parameters
     * {@code params} (one store per replica), its arrays held by {@code manager}; {@code scaler}
     * configures FLOAT16's loss scaling (null: {@link LossScaler#dynamic()}; unused in FLOAT32).
     */
    static PrecisionPolicy create(DataType type, LossScaler scaler, Block net, List<ReplicaStore> masters,
            List<Parameter> params, NDManager manager) {
        if (checkTrainable(type) == DataType.FLOAT16) {
            return new Float16Policy(net, masters, params, manager, scaler == null ? LossScaler.dynamic() : scaler);
        }
        return new Float32Policy(masters);
    }

    /**
     * Checks that the trainer can train in {@code type}: FLOAT32 or FLOAT16; BFLOAT16 is refused
     * because DJL 0.35.1's PyTorch engine does not map it and would terminate the JVM.
     */
    static DataType checkTrainable(DataType type) {
        if (type == DataType.FLOAT32 || type == DataType.FLOAT16) {
            return type;
        }
        if (type == DataType.BFLOAT16) {
            throw new IllegalArgumentException("BFLOAT16 is not supported: DJL 0.35.1's PyTorch engine does not "
                    + "map it and would terminate the JVM instead of failing. Use DataType.FLOAT16 (float16 "
                    + "compute with float32 master weights) or DataType.FLOAT32 (the default).");
        }
        throw new IllegalArgumentException("The trainer cannot train in " + type
                + ": use DataType.FLOAT32 (the default) or DataType.FLOAT16.");
    }

    /** The data type the replicas compute in. */
    DataType dataType();

    /** The parameter stores the replicas run forward and backward on, one per replica. */
    List<ReplicaStore> replicas();

    /** The examples {@code x} as the replicas take them. */
    NDArray input(NDArray x);

    /** Replica {@code replica}'s output {@code yHat} as float32, inside the recorded graph. */
    NDArray output(NDArray yHat, int replica);

    /** The factor the loss is multiplied by before the backward pass (1 without loss scaling). */
    float lossFactor();

    /** The running loss scale, or null without loss scaling. */
    LossScale lossScale();

    /**
     * After the backward passes of the first {@code active} replicas: brings their gradients (and
     * running statistics) into the float32 masters, temporaries held by {@code step}; returns false,
     * changing no parameter, when the step must be skipped (a float16 gradient overflowed).
     */
    boolean gradientsToMasters(int active, NDManager step);

    /** After the rule updated the masters: copies them into what the replicas compute with. */
    void mastersChanged(NDManager step);

    /** After a completed step: counts it (the loss scale grows after enough good steps). */
    void stepTaken();
}
