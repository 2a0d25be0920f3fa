package org.d2l.multigpu.parallel;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import ai.djl.training.optimizer.Optimizer;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.collective.Partition;
import org.d2l.multigpu.devices.OnDevice;
import org.d2l.multigpu.precision.ParameterBytes;

/**
 * Synchronous data parallelism: gradients are reduced into replica 0, the optimizer updates it once
 * per global step, and its parameters are copied to every other replica; running statistics (such
 * as BatchNorm's running mean and variance) are averaged over the replicas. The optimizer's state
 * therefore lives once, on replica 0; with {@link #shardedState()} it is spread over the replicas
 * instead (ZeRO stage 1).
 */
public final class GradientAveraging implements ReplicaSync {

    private final boolean mean;
    private final boolean sharded;

    private GradientAveraging(boolean mean, boolean sharded) {
        this.mean = mean;
        this.sharded = sharded;
    }

    /** The correct rule: the gradient is the mean over the whole global batch, whatever the shard sizes. */
    public static GradientAveraging mean() {
        return new GradientAveraging(true, false);
    }

    /**
     * DJL's multi-device rule, for comparison only: per-device mean gradients are summed, so k devices
     * act like a k times larger learning rate.
     */
    public static GradientAveraging sum() {
        return new GradientAveraging(false, false);
    }

    /**
     * The {@link #mean()} rule with the optimizer state sharded, as ZeRO's stage 1 and PyTorch's
     * {@code ZeroRedundancyOptimizer}: each trained parameter is owned by one replica (whole tensors,
     * largest first, each to the replica with the least so far: {@link Partition#of}); its
     * gradients are summed on the owner, the optimizer updates it there, so that its state lives only
     * there, and the owner copies the new values to the other replicas. It computes bit for bit what
     * {@link #mean()} computes.
     */
    public static GradientAveraging shardedState() {
        return new GradientAveraging(true, true);
    }

    /**
     * The replica that updates each of {@code replicas.parameters()} and so holds its optimizer state:
     * replica 0 for every parameter, or with {@link #shardedState()} the owner of each trained one.
     */
    public int[] owners(Replicas replicas) {
        List<Parameter> params = replicas.parameters();
        int[] owner = new int[params.size()];
        if (!sharded) {
            return owner;
        }
        List<Integer> trained = new ArrayList<>();
        for (int j = 0; j < params.size(); j++) {
            if (params.get(j).requiresGradient()) {
                trained.add(j);
            }
        }
        long[] sizes = trained.stream().mapToLong(j -> params.get(j).getArray().size()).toArray();
        int[] shares = Partition.of(sizes, replicas.size()).owner();
        for (int t = 0; t < trained.size(); t++) {
            owner[trained.get(t)] = shares[t];
        }
        return owner;
    }

    @Override
    public float lossWeight(long shardSize, long batchSize, int replicas) {
        return mean ? (float) shardSize / batchSize : 1f;
    }

    /**
     * Sums the gradients of the first {@code active} replicas (the others hold none: a last batch
     * smaller than k gives only some replicas a shard, weighted by its share) on each parameter's
     * owner, updates it there once and copies it to every replica; running statistics are averaged
     * over the active replicas. Bytes: the reduce (active - 1 copies) plus the broadcast (k - 1
     * copies) of every array.
     */
    @Override
    public long step(Replicas replicas, Optimizer optimizer, int active) {
        int k = replicas.size();
        List<Parameter> params = replicas.parameters();
        int[] owner = owners(replicas);
        long bytes = 0;
        for (int j = 0; j < params.size(); j++) {
            Parameter p = params.get(j);
            NDArray w0 = replicas.get(0).get(p.getId());
            if (p.requiresGradient()) {
                update(replicas, p.getId(), owner[j], optimizer, active);
            } else if (k > 1) {
                averageStatistics(replicas, p.getId(), active);
            }
            bytes += ParameterBytes.bytes(w0) * ((active - 1) + (k - 1));
        }
        replicas.synced();
        return bytes;
    }

    /**
     * Sums the gradients of parameter {@code id} of the first {@code active} replicas in replica order
     * (g0 + g1 + ..., whoever owns it) on replica {@code owner}, where the optimizer updates it, then
     * copies it to the other replicas; every gradient is left at zero.
     */
    private static void update(Replicas replicas, String id, int owner, Optimizer optimizer, int active) {
        NDArray w = replicas.get(owner).get(id);
        // getGradient() returns a new handle on the gradient each call: close each one used.
        try (NDManager tmp = w.getManager().newSubManager(); NDArray g0 = replicas.get(0).get(id).getGradient()) {
            NDArray sum = g0;
            if (owner != 0) {
                sum = OnDevice.copy(g0, w.getDevice(), tmp); // the owner's buffer for the sum
                OnDevice.zero(g0);
            }
            for (int i = 1; i < active; i++) {
                try (NDArray gi = replicas.get(i).get(id).getGradient()) {
                    OnDevice.addInto(gi, sum);
                    OnDevice.zero(gi);
                }
            }
            optimizer.update(id, w, sum);
            OnDevice.zero(g0); // PyTorch adds up gradients: start the next step from zero
        }
        for (int i = 0; i < replicas.size(); i++) {
            if (i != owner) {
                OnDevice.copyInto(w, replicas.get(i).get(id));
            }
        }
    }

    /** Averages running statistics of the active replicas into replica 0 and copies the mean to every replica. */
    private static void averageStatistics(Replicas replicas, String id, int active) {
        NDArray w0 = replicas.get(0).get(id);
        if (active > 1) {
            for (int i = 1; i < active; i++) {
                OnDevice.addInto(replicas.get(i).get(id), w0);
            }
            w0.divi(active);
        }
        for (int i = 1; i < replicas.size(); i++) {
            OnDevice.copyInto(w0, replicas.get(i).get(id));
        }
    }

    @Override
    public long[] optimizerStateBytes(Replicas replicas, Optimizer optimizer) {
        OptimizerState state = OptimizerState.of(optimizer);
        List<Parameter> params = replicas.parameters();
        int[] owner = owners(replicas);
        long[] bytes = new long[replicas.size()];
        for (int j = 0; j < params.size(); j++) {
            if (params.get(j).requiresGradient()) {
                bytes[owner[j]] += state.bytes(params.get(j).getId(), replicas.get(owner[j]).device());
            }
        }
        return bytes;
    }

    @Override
    public String describe() {
        if (sharded) {
            return "gradients averaged over the global batch, one optimizer update per step, optimizer state "
                    + "sharded over the replicas (ZeRO stage 1: each parameter updated on the replica that owns it), "
                    + "running statistics averaged over replicas";
        }
        return mean
                ? "gradients averaged over the global batch, one optimizer update per step, "
                        + "running statistics averaged over replicas"
                : "per-device gradients summed (DJL's rule: k devices act like k times the learning rate)";
    }
}
