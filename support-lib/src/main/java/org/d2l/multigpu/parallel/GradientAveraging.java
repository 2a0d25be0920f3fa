package org.d2l.multigpu.parallel;

import ai.djl.ndarray.NDArray;
import ai.djl.nn.Parameter;
import ai.djl.training.optimizer.Optimizer;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.GradientBucket;
import org.d2l.multigpu.collective.GradientHook;
import org.d2l.multigpu.collective.Partition;
import org.d2l.multigpu.collective.Traffic;
import org.d2l.multigpu.devices.OnDevice;
import org.d2l.multigpu.optimizer.OptimizerState;
import org.d2l.multigpu.step.Phase;
import org.d2l.multigpu.step.StepPhases;

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
    public int[] owners(ReplicaParameters replicas) {
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

    /** Whether the optimizer state is sharded over the replicas ({@link #shardedState()}). */
    boolean sharded() {
        return sharded;
    }

    @Override
    public float lossWeight(long shardSize, long batchSize, int replicas) {
        return mean ? (float) shardSize / batchSize : 1f;
    }

    /**
     * Through the replicas' {@link Collective}, in three phases: each trained parameter's gradients of the first
     * {@code active} replicas (the others hold none: a last batch smaller than k gives only some replicas a shard,
     * weighted by its share) are reduced on the parameter's owner; each owner's optimizer updates its parameters
     * once (every replica then sets its gradients to zero); the owners broadcast them, and running statistics
     * are averaged over the active replicas. With a gradient hook ({@link ReplicaParameters#hook()}: compression), the
     * gradients go through it instead, in one bucket, and every replica takes the same update itself, as DDP
     * does: parameters never travel. Records the phases (SYNC, UPDATE) in
     * {@link ReplicaParameters#phases()}; returns the bytes the collective moved.
     */
    @Override
    public long step(ReplicaParameters replicas, Optimizer optimizer, int active) {
        Collective c = replicas.collective();
        List<Parameter> params = replicas.parameters();
        StepPhases phases = replicas.phases();
        int k = replicas.size();
        int[] owner = owners(replicas);
        GradientHook hook = replicas.hook();
        boolean everywhere = hook != null;
        GradientBucket bucket = everywhere ? new GradientBucket() : null; // with a hook: every trained gradient, in order
        int[] from = firstReplicas(active);
        long bytes = 0;
        // getGradient() returns a new handle on the gradient each call: close each one used.
        List<List<NDArray>> grads = new ArrayList<>();
        try {
            long start = StepPhases.now();
            for (int j = 0; j < params.size(); j++) {
                Parameter p = params.get(j);
                List<NDArray> g = new ArrayList<>(k);
                grads.add(g);
                if (!p.requiresGradient()) {
                    continue;
                }
                for (int i = 0; i < k; i++) {
                    g.add(everywhere || i < active || i == owner[j] ? replicas.get(i).get(p.getId()).getGradient() : null);
                }
                if (everywhere) {
                    bucket.addGradient(p.getId(), g);
                } else {
                    bytes += c.reduce(p.getId(), g, from, g.get(owner[j]), owner[j]).totalSentBytes();
                }
            }
            if (bucket != null && k > 1 && bucket.size() > 0) {
                bytes += hook.allreduce(bucket).totalSentBytes();
            }
            phases.add(0, k, Phase.SYNC, start);
            for (int i = 0; i < k; i++) { // each replica updates what it owns, then sets its gradients back to zero
                start = StepPhases.now();
                for (int j = 0; j < params.size(); j++) {
                    Parameter p = params.get(j);
                    if (p.requiresGradient() && (everywhere || owner[j] == i)) {
                        String key = everywhere ? ParameterAveraging.stateKey(p.getId(), i) : p.getId();
                        optimizer.update(key, replicas.get(i).get(p.getId()), grads.get(j).get(i));
                    }
                }
                for (int j = 0; j < params.size(); j++) { // PyTorch adds up gradients: start the next step from zero
                    if (!grads.get(j).isEmpty() && grads.get(j).get(i) != null) {
                        OnDevice.zeroGradient(replicas.get(i).get(params.get(j).getId()));
                    }
                }
                phases.add(i, Phase.UPDATE, start);
            }
            if (k > 1) { // a single replica has no one to send its values to
                start = StepPhases.now();
                for (int j = 0; j < params.size(); j++) {
                    Parameter p = params.get(j);
                    Traffic t = null;
                    if (!p.requiresGradient()) {
                        t = averageStatistics(replicas, c, p.getId(), active);
                    } else if (!everywhere) {
                        List<NDArray> weights = new ArrayList<>(k);
                        for (int i = 0; i < k; i++) {
                            weights.add(replicas.get(i).get(p.getId()));
                        }
                        t = c.broadcast(weights.get(owner[j]), owner[j], weights);
                    }
                    bytes += t == null ? 0 : t.totalSentBytes();
                }
                phases.add(0, k, Phase.SYNC, start);
            }
        } finally {
            for (List<NDArray> g : grads) {
                for (NDArray x : g) {
                    if (x != null) {
                        x.close();
                    }
                }
            }
        }
        replicas.synced();
        return bytes;
    }

    /** Averages running statistics of the active replicas into replica 0 and broadcasts the mean to every replica. */
    private static Traffic averageStatistics(ReplicaParameters replicas, Collective c, String id, int active) {
        List<NDArray> stats = new ArrayList<>(replicas.size());
        for (int i = 0; i < replicas.size(); i++) {
            stats.add(replicas.get(i).get(id));
        }
        NDArray w0 = stats.get(0);
        Traffic t = c.reduce(id, stats, firstReplicas(active), w0, 0);
        if (active > 1) {
            w0.divi(active);
        }
        return t.plus(c.broadcast(w0, 0, stats));
    }

    /** Replicas 0 to {@code active - 1} (a loop: this runs for every parameter of every step, often interpreted). */
    private static int[] firstReplicas(int active) {
        int[] from = new int[active];
        for (int i = 0; i < active; i++) {
            from[i] = i;
        }
        return from;
    }

    @Override
    public long[] optimizerStateBytes(ReplicaParameters replicas, Optimizer optimizer) {
        OptimizerState state = OptimizerState.of(optimizer);
        List<Parameter> params = replicas.parameters();
        int[] owner = owners(replicas);
        boolean everywhere = replicas.hook() != null;
        long[] bytes = new long[replicas.size()];
        for (int j = 0; j < params.size(); j++) {
            if (!params.get(j).requiresGradient()) {
                continue;
            }
            String id = params.get(j).getId();
            if (everywhere) {
                for (int i = 0; i < replicas.size(); i++) {
                    bytes[i] += state.bytes(ParameterAveraging.stateKey(id, i), replicas.get(i).device());
                }
            } else {
                bytes[owner[j]] += state.bytes(id, replicas.get(owner[j]).device());
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
