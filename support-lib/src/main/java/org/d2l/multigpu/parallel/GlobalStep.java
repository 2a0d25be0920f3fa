package org.d2l.multigpu.parallel;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.ParameterStore;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;
import org.d2l.multigpu.collective.BatchNormGroup;
import org.d2l.multigpu.devices.ReplicaStore;
import org.d2l.multigpu.eval.Accuracy;
import org.d2l.multigpu.models.SyncBatchNorm;
import org.d2l.multigpu.precision.PrecisionPolicy;
import org.d2l.multigpu.runtime.Autograd;
import org.d2l.multigpu.step.NonFiniteLoss;
import org.d2l.multigpu.step.Phase;
import org.d2l.multigpu.step.ShardPass;
import org.d2l.multigpu.step.StepPhases;
import org.d2l.multigpu.step.StepRollback;

/**
 * One global step of a {@link DataParallelTrainer}: every replica's forward and backward passes over its
 * shards ({@link ShardPass}), on worker threads or one after another ({@link ReplicaWorkers}), then the rule's
 * update once, each phase's time recorded per replica ({@link StepPhases}).
 */
final class GlobalStep implements AutoCloseable {

    /** What a step did: its losses and correct predictions, whether float16 skipped it, the bytes the rule moved. */
    record Outcome(StepResult result, boolean skipped, long syncBytes) {}

    /** How long a replica waits for the others at a synchronised BatchNorm before the step fails. */
    private static final long SYNC_TIMEOUT_SECONDS = 600;
    private static final int RECENT_STEPS = 16;

    private final Block net;
    private final Loss loss;
    private final List<Device> devices;
    private final ReplicaSync sync;
    private final Optimizer optimizer;
    private final ReplicaParameters masters;
    private final PrecisionPolicy precision;
    private final ReplicaWorkers workers;
    /** With synchronised BatchNorm: where the replicas exchange statistics, and one thread per replica; else null. */
    private final BatchNormGroup batchNormGroup;
    private final ReplicaWorkers syncWorkers;
    /** The largest |w| of the parameters before the first update, for the message of a NaN loss. */
    private double startMaxParameter = Double.NaN;
    /** When each phase of the current step ran on each replica. */
    private StepPhases phases;
    /** The phases of the last {@link #RECENT_STEPS} steps, oldest first. */
    private final ArrayDeque<StepPhases> recent = new ArrayDeque<>();

    /**
     * The steps of {@code net} on {@code devices} under {@code sync}; {@code concurrent} as the trainer's setting
     * (null: one thread per distinct device), {@code syncBatchNorm} for synchronised BatchNorm.
     */
    GlobalStep(Block net, Loss loss, List<Device> devices, ReplicaSync sync, Optimizer optimizer, ReplicaParameters masters,
            PrecisionPolicy precision, Boolean concurrent, boolean syncBatchNorm) {
        this.net = net;
        this.loss = loss;
        this.devices = devices;
        this.sync = sync;
        this.optimizer = optimizer;
        this.masters = masters;
        this.precision = precision;
        this.workers = new ReplicaWorkers(devices, concurrent);
        this.batchNormGroup = syncBatchNorm ? new BatchNormGroup(SYNC_TIMEOUT_SECONDS) : null;
        this.syncWorkers = syncBatchNorm ? new ReplicaWorkers(devices, true) : null;
    }

    /** Whether replicas run on worker threads. */
    boolean concurrent() {
        return workers.concurrent();
    }

    /** Whether BatchNorm's statistics are synchronised over the replicas. */
    boolean syncBatchNorm() {
        return batchNormGroup != null;
    }

    /** Starts the record of a new step's phases, keeping the last {@link #RECENT_STEPS}, and returns it. */
    StepPhases beginStep() {
        phases = new StepPhases(devices.size());
        masters.beginStep(phases);
        if (recent.size() == RECENT_STEPS) {
            recent.removeFirst();
        }
        recent.addLast(phases);
        return phases;
    }

    /** The phases of the last steps, oldest first. */
    List<StepPhases> recentSteps() {
        return List.copyOf(recent);
    }

    /**
     * Forward and backward of every micro-batch (xs.get(i): its shards, one per replica that gets
     * examples), the gradients accumulating in the replicas, then the rule's update once; {@code stepsBefore}
     * and {@code epoch} (from 1) say where it is, for the message of a NaN loss, which leaves the parameters
     * as they were.
     */
    Outcome run(List<List<NDArray>> xs, List<List<NDArray>> ys, NDManager step, long stepsBefore, int epoch) {
        int active = 0;
        long n = 0;
        for (List<NDArray> micro : xs) { // loops, not streams: the first steps of a run run this interpreted
            active = Math.max(active, micro.size());
            for (NDArray xi : micro) {
                n += xi.getShape().get(0);
            }
        }
        StepRollback rollback = new StepRollback(precision.replicas(), masters.parameters(), step);
        if (stepsBefore == 0 && Double.isNaN(startMaxParameter)) {
            startMaxParameter = NonFiniteLoss.Facts.of(List.of(), parameterArrays(active), List.of(), Double.NaN, 0)
                    .maxParameter();
        }
        double[] lossSum = new double[active];
        double[] correct = new double[active];
        List<NDArray> outputs = new ArrayList<>();
        try {
            for (int i = 0; i < xs.size(); i++) {
                ShardPass.Result[] out = forward(xs.get(i), ys.get(i), n, step);
                for (int r = 0; r < out.length; r++) {
                    long ni = xs.get(i).get(r).getShape().get(0);
                    outputs.add(out[r].output());
                    lossSum[r] += out[r].lossValue() * ni;
                    correct[r] += Accuracy.accuracy(out[r].output(), ys.get(i).get(r));
                }
            }
        } catch (RuntimeException ex) {
            rollback.undo();
            throw ex;
        }
        double sum = Arrays.stream(lossSum).sum();
        StepResult result = new StepResult(sum, Arrays.stream(correct).sum(), n);
        if (!Double.isFinite(sum)) {
            String unit = sync.ownMinibatches() ? "round" : "step";
            List<NDArray> inputs = new ArrayList<>();
            xs.forEach(inputs::addAll);
            ys.forEach(inputs::addAll);
            NonFiniteLoss.Facts facts = NonFiniteLoss.Facts.of(inputs, parameterArrays(active), outputs,
                    startMaxParameter, stepsBefore);
            rollback.undo();
            throw NonFiniteLoss.error(sum, String.format(java.util.Locale.ROOT, "%s %d (epoch %d)", unit, stepsBefore + 1,
                    epoch), unit, facts);
        }
        if (!precision.gradientsToMasters(active, step)) {
            // A gradient overflowed in float16: skip this step everywhere (the loss scale was halved).
            rollback.undo();
            return new Outcome(result, true, 0);
        }
        masters.roundTaken(active);
        long bytes = sync.step(masters, optimizer, active);
        precision.mastersChanged(step);
        precision.stepTaken();
        return new Outcome(result, false, bytes);
    }

    /**
     * The forward and backward passes of one micro-batch whose shards {@code xs} (labels {@code ys}) go to
     * the first xs.size() replicas, each loss weighted by its shard's share of the step's {@code n} examples
     * ({@link ShardPass}). Plain: each replica runs forward and backward on its own. With synchronised
     * BatchNorm: the replicas run their forward passes at the same time, one thread each, meeting at every
     * SyncBatchNorm, and one backward pass of their summed losses follows, through every replica's statistics.
     */
    private ShardPass.Result[] forward(List<NDArray> xs, List<NDArray> ys, long n, NDManager step) {
        int active = xs.size();
        ShardPass.Result[] out = new ShardPass.Result[active];
        boolean synced = batchNormGroup != null;
        if (synced) {
            batchNormGroup.beginStep(active);
        }
        (synced ? syncWorkers : workers).runEach(active, r -> {
            long ni = xs.get(r).getShape().get(0);
            ParameterStore store = synced ? batchNormGroup.storeFor(r, precision.replicas().get(r))
                    : precision.replicas().get(r);
            double weight = sync.lossWeight(ni, n, devices.size()) * precision.lossFactor();
            // the forward pass's other arrays go before the backward pass, as in Python: autograd frees what
            // it keeps as it goes (lower memory peak)
            long start = StepPhases.now();
            try (NDManager forward = step.newSubManager()) {
                forward.tempAttachAll(xs.get(r));
                out[r] = ShardPass.forward(net, store, loss, precision.input(xs.get(r)), ys.get(r), weight,
                        yHat -> precision.output(yHat, r));
                out[r].output().attach(step);
                out[r].loss().attach(step);
                out[r].weighted().attach(step);
            } catch (RuntimeException ex) {
                if (synced) {
                    batchNormGroup.abort(); // the other replicas must not wait for this one
                }
                throw ex;
            }
            phases.add(r, Phase.FORWARD, start);
            if (!synced) {
                start = StepPhases.now();
                ShardPass.backward(out[r].weighted());
                phases.add(r, Phase.BACKWARD, start);
            }
        });
        if (synced) {
            int expected = SyncBatchNorm.count(net)[0];
            if (batchNormGroup.layersMet() < expected && active > 1) {
                throw new IllegalStateException("Only " + batchNormGroup.layersMet() + " of the network's " + expected
                        + " SyncBatchNorm blocks took part in the forward pass: a block that calls a BatchNorm it holds "
                        + "in a field of its own, not as a child, keeps the plain one; make it call its child blocks.");
            }
            long start = StepPhases.now();
            NDArray total = out[0].weighted();
            try (Autograd recording = Autograd.record()) { // the sum is part of the graph
                for (int r = 1; r < active; r++) {
                    total = total.add(out[r].weighted().toDevice(total.getDevice(), false));
                }
            }
            ShardPass.backward(total);
            phases.add(0, active, Phase.BACKWARD, start);
        }
        return out;
    }

    /** The parameter arrays the first {@code active} replicas computed this step with (float16 copies in FLOAT16). */
    private List<NDArray> parameterArrays(int active) {
        List<NDArray> all = new ArrayList<>();
        for (int r = 0; r < active; r++) {
            ReplicaStore store = precision.replicas().get(r);
            for (Parameter p : masters.parameters()) {
                all.add(store.get(p.getId()));
            }
        }
        return all;
    }

    /** Stops the worker threads. */
    @Override
    public void close() {
        workers.close();
        if (syncWorkers != null) {
            syncWorkers.close();
        }
    }

    /**
     * Runs each replica's share of a step: by default on one worker thread per device when there are
     * several devices (replicas that share a GPU run one after another on its thread, GPUs at the same
     * time), else one replica after another on the calling thread (virtual replicas on one CPU); forced
     * on, one thread per replica.
     */
    static final class ReplicaWorkers implements AutoCloseable {

        /** Replica i's worker; empty when replicas run on the calling thread. */
        private final List<ExecutorService> workers = new ArrayList<>();

        /** Workers for {@code devices}: {@code concurrent} true, one per replica; false, none; null, one per distinct device. */
        ReplicaWorkers(List<Device> devices, Boolean concurrent) {
            boolean perDevice = concurrent == null;
            if (perDevice && devices.stream().distinct().count() < 2 || Boolean.FALSE.equals(concurrent)) {
                return;
            }
            Map<Device, ExecutorService> byDevice = new HashMap<>();
            for (int i = 0; i < devices.size(); i++) {
                String name = (perDevice ? "device-" : "replica-" + i + "-") + devices.get(i);
                Device d = devices.get(i);
                workers.add(perDevice ? byDevice.computeIfAbsent(d, x -> thread(name)) : thread(name));
            }
        }

        private static ExecutorService thread(String name) {
            return Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
            });
        }

        /** Whether replicas run concurrently, one worker thread per device. */
        boolean concurrent() {
            return !workers.isEmpty();
        }

        /** Runs {@code work} for replicas 0 to {@code active - 1} and returns when all are done. */
        void runEach(int active, IntConsumer work) {
            if (workers.isEmpty()) {
                for (int i = 0; i < active; i++) {
                    work.accept(i);
                }
                return;
            }
            List<Future<?>> pending = new ArrayList<>();
            for (int i = 0; i < active; i++) {
                int r = i;
                pending.add(workers.get(r).submit(() -> work.accept(r)));
            }
            joinAll(pending);
        }

        /**
         * Waits for every replica's work, even when the calling thread is interrupted meanwhile (the
         * interrupt is kept for the loop to see at the next step), so that no worker still runs when the
         * gradient collector closes; then rethrows the first failure.
         */
        private static void joinAll(List<Future<?>> pending) {
            boolean interrupted = false;
            RuntimeException failure = null;
            for (Future<?> f : pending) {
                while (true) {
                    try {
                        f.get();
                        break;
                    } catch (InterruptedException ex) {
                        interrupted = true;
                    } catch (ExecutionException ex) {
                        Throwable c = ex.getCause();
                        if (failure == null) {
                            failure = c instanceof RuntimeException re ? re
                                    : new IllegalStateException("A replica failed: " + c, c);
                        }
                        break;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (failure != null) {
                throw failure;
            }
        }

        /** Stops the worker threads. */
        @Override
        public void close() {
            workers.stream().distinct().forEach(ExecutorService::shutdownNow);
        }
    }
}
