package org.d2l.multigpu.parallel;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import ai.djl.training.optimizer.Optimizer;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.Traffic;
import org.d2l.multigpu.devices.OnDevice;
import org.d2l.multigpu.devices.ReplicaStore;
import org.d2l.multigpu.optimizer.OptimizerState;
import org.d2l.multigpu.step.Phase;
import org.d2l.multigpu.step.StepPhases;

/**
 * Parameter averaging as Deeplearning4j's {@code ParallelWrapper} does it: each of the k workers
 * (replicas) takes a minibatch of its own, so one round consumes k minibatches, and a full local
 * optimizer step with its own optimizer state; every {@code averagingFrequency} rounds the
 * parameters (and BatchNorm running statistics) are averaged arithmetically over the workers and
 * written back to all of them, and with {@code averageUpdaters} (the default, as in DL4J) so is the
 * optimizer state (momentum, Adam's moments).
 *
 * <p>An epoch always ends averaged: when rounds remain since the last averaging, they are averaged at
 * the end of the epoch, so an epoch of R rounds has ceil(R / N) averagings and is evaluated on the
 * averaged model. In a last partial round (fewer minibatches left than workers) only the workers
 * that got a minibatch take a step, and the averaging that ends the epoch takes the mean over the
 * workers that stepped since the last averaging (DL4J averages only the workers that got data);
 * the others receive the mean. Worker i keeps its optimizer state under the parameter's id with
 * {@code "@worker" + i} appended (worker 0 under the plain id), so learning-rate schedules advance
 * once per round, not k times.
 *
 * <p>The rule is a setting without state (the rounds since the last averaging are kept by each
 * trainer's {@link ReplicaParameters}), so one object can configure any number of trainers.
 *
 * <p>At frequency 1 with SGD, with or without momentum (state averaged), the update is linear and
 * this equals gradient averaging over equal shards; with Adam it does not.
 */
public final class ParameterAveraging implements ReplicaSync {

    private final int frequency;
    private final boolean averageUpdaters;

    private ParameterAveraging(Builder b) {
        this.frequency = b.frequency;
        this.averageUpdaters = b.averageUpdaters;
    }

    /** Starts a builder: averaging frequency 1 and optimizer state averaged, DL4J's defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** Averages every {@code n} rounds, with optimizer state averaged. */
    public static ParameterAveraging every(int n) {
        return builder().optAveragingFrequency(n).build();
    }

    /** The number of rounds between two averagings. */
    public int getAveragingFrequency() {
        return frequency;
    }

    @Override
    public boolean ownMinibatches() {
        return true;
    }

    @Override
    public float lossWeight(long shardSize, long batchSize, int replicas) {
        return 1f; // each worker minimises the mean loss of its own minibatch
    }

    @Override
    public long step(ReplicaParameters replicas, Optimizer optimizer, int active) {
        for (int i = 0; i < active; i++) {
            ReplicaStore r = replicas.get(i);
            long start = StepPhases.now();
            for (Parameter p : replicas.parameters()) {
                if (p.requiresGradient()) {
                    NDArray w = r.get(p.getId());
                    try (NDArray g = w.getGradient()) {
                        optimizer.update(stateKey(p.getId(), i), w, g);
                        OnDevice.zero(g); // PyTorch adds up gradients: start the next round from zero
                    }
                }
            }
            replicas.phases().add(i, Phase.UPDATE, start);
        }
        return replicas.roundsSinceSync() >= frequency ? average(replicas, optimizer) : 0;
    }

    @Override
    public long finish(ReplicaParameters replicas, Optimizer optimizer) {
        return replicas.roundsSinceSync() > 0 ? average(replicas, optimizer) : 0;
    }

    @Override
    public long[] optimizerStateBytes(ReplicaParameters replicas, Optimizer optimizer) {
        OptimizerState state = OptimizerState.of(optimizer);
        long[] bytes = new long[replicas.size()];
        for (int i = 0; i < replicas.size(); i++) {
            for (Parameter p : replicas.parameters()) {
                if (p.requiresGradient()) {
                    bytes[i] += state.bytes(stateKey(p.getId(), i), replicas.get(i).device());
                }
            }
        }
        return bytes;
    }

    /** The key under which worker {@code worker} keeps the optimizer state of parameter {@code id}. */
    static String stateKey(String id, int worker) {
        return worker == 0 ? id : id + "@worker" + worker;
    }

    /**
     * Averages over the workers that stepped since the last averaging, through the replicas' collective
     * (a reduce on replica 0, then a broadcast), and writes the mean to all; returns the bytes moved.
     */
    private long average(ReplicaParameters replicas, Optimizer optimizer) {
        List<Parameter> params = replicas.parameters();
        List<Integer> from = replicas.steppedSinceSync();
        if (replicas.size() == 1) {
            replicas.synced(); // one worker: nothing to average, nothing moves
            return 0;
        }
        if (from.isEmpty()) {
            from.add(0);
        }
        Collective c = replicas.collective();
        long start = StepPhases.now();
        long bytes = 0;
        Device home = replicas.get(0).device();
        try (NDManager tmp = NDManager.newBaseManager(home)) {
            for (Parameter p : params) {
                List<NDArray> values = new ArrayList<>();
                for (ReplicaStore r : replicas.stores()) {
                    values.add(r.get(p.getId()));
                }
                bytes += mean(c, p.getId(), values, from, tmp, values).totalSentBytes();
            }
            if (averageUpdaters) {
                bytes += averageState(replicas, c, params, optimizer, from, tmp);
            }
        }
        replicas.synced();
        replicas.phases().add(0, replicas.size(), Phase.SYNC, start);
        return bytes;
    }

    private static long averageState(ReplicaParameters replicas, Collective c, List<Parameter> params, Optimizer optimizer,
            List<Integer> from, NDManager tmp) {
        OptimizerState state = OptimizerState.of(optimizer);
        long bytes = 0;
        boolean found = false;
        int k = replicas.size();
        for (int kind = 0; kind < state.kinds(); kind++) {
            for (Parameter p : params) {
                if (!p.requiresGradient()) {
                    continue;
                }
                List<NDArray> values = new ArrayList<>();
                List<Integer> with = new ArrayList<>();
                for (int i = 0; i < k; i++) {
                    NDArray s = state.get(kind, stateKey(p.getId(), i), replicas.get(i).device());
                    values.add(s);
                    if (s != null && from.contains(i)) {
                        with.add(i);
                    }
                }
                if (with.isEmpty()) {
                    continue; // this optimizer keeps no state of this kind for the parameter yet
                }
                found = true;
                NDArray some = values.get(with.get(0));
                List<NDArray> targets = new ArrayList<>(k);
                for (int i = 0; i < k; i++) {
                    if (values.get(i) == null) { // a worker that has no state yet gets the mean
                        state.set(kind, stateKey(p.getId(), i), replicas.get(i).device(), some);
                    }
                    targets.add(state.get(kind, stateKey(p.getId(), i), replicas.get(i).device()));
                }
                bytes += mean(c, p.getId(), values, with, tmp, targets).totalSentBytes();
            }
        }
        if (!found && OptimizerState.keepsState(optimizer)) {
            throw new IllegalStateException("Optimizer " + optimizer.getClass().getName() + " keeps state, but "
                    + "after the workers' steps none was found under their parameters' keys: averaging it would "
                    + "silently do nothing. Use optAverageUpdaters(false), or one of DJL's optimizers.");
        }
        return bytes;
    }

    /**
     * The element-wise mean of {@code values} of the workers {@code from} (in order), reduced on replica 0
     * into a buffer of {@code tmp} and broadcast into every array of {@code targets}; returns the traffic.
     */
    private static Traffic mean(Collective c, String key, List<NDArray> values, List<Integer> from, NDManager tmp,
            List<NDArray> targets) {
        NDArray first = values.get(from.get(0));
        NDArray sum = tmp.zeros(first.getShape(), first.getDataType());
        Traffic t = c.reduce(key, values, from.stream().mapToInt(Integer::intValue).toArray(), sum, 0);
        sum.divi(from.size());
        return t.plus(c.broadcast(sum, 0, targets));
    }

    @Override
    public String describe() {
        return String.format(java.util.Locale.ROOT,
                "parameter averaging every %d round(s) (each worker its own minibatch and optimizer step), "
                        + "running statistics averaged, optimizer state %s",
                frequency, averageUpdaters ? "averaged" : "kept per worker");
    }

    /** Configures a {@link ParameterAveraging}, DJL style (the options of DL4J's ParallelWrapper under DJL's names). */
    public static final class Builder {
        private int frequency = 1;
        private boolean averageUpdaters = true;

        private Builder() {}

        /** Averages every {@code n} rounds (DL4J's {@code averagingFrequency}, default 1). */
        public Builder optAveragingFrequency(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("The averaging frequency must be at least 1 round, got " + n
                        + ": use 1 to average after every round, or a larger number to average less often.");
            }
            this.frequency = n;
            return this;
        }

        /** Whether to average the optimizer state too (DL4J's {@code averageUpdaters}, default true). */
        public Builder optAverageUpdaters(boolean averageUpdaters) {
            this.averageUpdaters = averageUpdaters;
            return this;
        }

        /** Builds the rule. */
        public ParameterAveraging build() {
            return new ParameterAveraging(this);
        }
    }
}
