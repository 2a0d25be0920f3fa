package org.d2l.multigpu.parallel;

import static org.d2l.multigpu.parallel.TrainerFixture.assertReplicasBitIdentical;
import static org.d2l.multigpu.parallel.TrainerFixture.maxDifference;
import static org.d2l.multigpu.parallel.TrainerFixture.sgd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDList;
import ai.djl.nn.Block;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.loss.Loss;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.loop.TrainingInterruptedException;
import org.d2l.multigpu.models.LeNet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TrainingInterruptTest {

    private static final int BATCHES = 6;

    private final TrainerFixture f = new TrainerFixture();
    private final ExecutorService pool = Executors.newSingleThreadExecutor();

    @AfterEach
    void tearDown() throws Exception {
        pool.shutdownNow();
        f.close();
    }

    /**
     * Softmax cross-entropy that interrupts the training thread while step {@code at} (counted over
     * the whole run) computes its losses, as Kernel &gt; Interrupt would in the middle of a step.
     */
    private static Loss interruptingLoss(int replicasPerStep, int at, AtomicReference<Thread> trainer) {
        Loss inner = Loss.softmaxCrossEntropyLoss();
        AtomicInteger calls = new AtomicInteger();
        return new Loss("interrupting") {
            @Override
            public ai.djl.ndarray.NDArray evaluate(NDList labels, NDList predictions) {
                if (calls.incrementAndGet() == (at - 1) * replicasPerStep + 1) {
                    trainer.get().interrupt();
                }
                return inner.evaluate(labels, predictions);
            }
        };
    }

    private ArrayDataset data(NDList all) {
        return new ArrayDataset.Builder().setData(all.get(0)).optLabels(all.get(1)).setSampling(8, false).build();
    }

    /** Trains {@code k} replicas with {@code sync}, interrupted during global step {@code at}; checks the stop and a second run. */
    private void interruptAndCarryOn(int k, boolean concurrent, ReplicaSync sync, int at, int perStep) throws Exception {
        NDList all = f.batch(BATCHES * 8);
        Block net = LeNet.block();
        f.initialize(net, null);
        Block start = f.initialize(LeNet.block(), net);
        AtomicReference<Thread> thread = new AtomicReference<>();
        DataParallelTrainer t = f.closeLater(DataParallelTrainer.builder(net).setDevices(Devices.virtual(k))
                .optOptimizer(sgd(0.1f)).optSync(sync).optConcurrent(concurrent).optProgress(false)
                .optLoss(interruptingLoss(k, at, thread)).build());
        Future<List<EpochMetrics>> run = pool.submit(() -> {
            thread.set(Thread.currentThread());
            return t.fit(data(all), null, 3);
        });
        ExecutionException e = assertThrows(ExecutionException.class, () -> run.get(60, TimeUnit.SECONDS));
        TrainingInterruptedException stop = assertInstanceOf(e.getCause());
        int stepsPerEpoch = BATCHES / perStep;
        // The step in flight when the interrupt came finishes; the next one does not start.
        assertEquals(at, t.getSteps(), stop.getMessage());
        assertEquals(at / stepsPerEpoch + 1, stop.getEpoch(), stop.getMessage());
        assertEquals(at % stepsPerEpoch, stop.getStep(), stop.getMessage());
        assertEquals(t.getHistory().size(), stop.getHistory().size());
        assertTrue(stop.getMessage().contains("after step " + stop.getStep()), stop.getMessage());
        assertReplicasBitIdentical(t);

        // The same steps without interruption (an epoch cut short where the interrupt came) give the same parameters.
        Block ref = LeNet.block();
        DataParallelTrainer tRef = f.trainer(ref, start, k, sgd(0.1f), sync instanceof ParameterAveraging pa
                ? ParameterAveraging.every(pa.getAveragingFrequency()) : GradientAveraging.mean());
        for (int epoch = 0; epoch < at / stepsPerEpoch; epoch++) {
            tRef.trainEpoch(data(all), null);
        }
        long n = (long) (at % stepsPerEpoch) * perStep * 8;
        tRef.trainEpoch(data(new NDList(all.get(0).get("0:" + n), all.get(1).get("0:" + n))), null);
        assertEquals(0f, maxDifference(ref, net), "the model does not hold the parameters after step " + at);

        // No collector is left open and no worker runs: the next run on the same thread trains.
        assertFalse(Thread.currentThread().isInterrupted());
        List<EpochMetrics> again = pool.submit(() -> t.fit(data(all), null, 1)).get(60, TimeUnit.SECONDS);
        assertEquals(1, again.size());
        assertEquals(at + stepsPerEpoch, t.getSteps());
        assertReplicasBitIdentical(t);
    }

    private static TrainingInterruptedException assertInstanceOf(Throwable cause) {
        assertTrue(cause instanceof TrainingInterruptedException, "expected an interrupt, got " + cause);
        return (TrainingInterruptedException) cause;
    }

    @Test
    void anInterruptStopsTwoVirtualReplicasAtTheNextStepAndTheNextRunTrains() throws Exception {
        interruptAndCarryOn(2, false, GradientAveraging.mean(), 3, 1);
    }

    @Test
    void anInterruptInTheSecondEpochKeepsTheFirstEpochsMetrics() throws Exception {
        interruptAndCarryOn(2, false, GradientAveraging.mean(), BATCHES + 2, 1);
    }

    @Test
    void anInterruptWhileWorkerThreadsRunWaitsForThemAndStopsAtTheNextStep() throws Exception {
        interruptAndCarryOn(2, true, GradientAveraging.mean(), 3, 1);
    }

    @Test
    void anInterruptedParameterAveragingRunEndsWithAveragedIdenticalReplicas() throws Exception {
        interruptAndCarryOn(2, false, ParameterAveraging.every(2), 1, 2); // round 1 of 3, before an averaging
    }


    @Test
    void aRunStartedWhileAnotherThreadIsStillInAStepWaitsInsteadOfFailing() throws Exception {
        // JJava ends the cell at once on Kernel > Interrupt while the old run finishes its step;
        // PyTorch allows one gradient collector at a time, so a new run must wait, not fail.
        NDList all = f.batch(BATCHES * 8);
        DataParallelTrainer a = f.trainer(LeNet.block(), null, 2, sgd(0.1f), GradientAveraging.mean());
        DataParallelTrainer b = f.trainer(LeNet.block(), null, 2, sgd(0.1f), ParameterAveraging.every(2));
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            Future<List<EpochMetrics>> first = pool.submit(() -> a.fit(data(all), null, 3));
            Future<List<EpochMetrics>> second = other.submit(() -> b.fit(data(all), null, 3));
            assertEquals(3, first.get(120, TimeUnit.SECONDS).size());
            assertEquals(3, second.get(120, TimeUnit.SECONDS).size());
        } finally {
            other.shutdownNow();
        }
        assertReplicasBitIdentical(a);
        assertReplicasBitIdentical(b);
    }
}
