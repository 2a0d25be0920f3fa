package org.d2l.multigpu.spark.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.d2l.multigpu.collective.RingSchedule;
import org.d2l.multigpu.compression.Compressor;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.spark.AllreduceEpoch;
import org.d2l.multigpu.spark.EpochFailedException;
import org.d2l.multigpu.spark.Minibatch;
import org.d2l.multigpu.spark.ModelFactory;
import org.d2l.multigpu.spark.Models;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.ParameterValues;
import org.d2l.multigpu.spark.SplitData;
import org.d2l.multigpu.spark.StepHook;
import org.d2l.multigpu.spark.SyntheticData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;


/** The ring-allreduce trainer on Spark local[2] against the in-process trainer's gradient averaging. */
class AllreduceTrainerTest {

    private static JavaSparkContext sc;

    @BeforeAll
    static void startSpark() {
        sc = LocalSpark.start("AllreduceTrainerTest");
    }

    @AfterAll
    static void stopSpark() {
        sc.stop();
    }

    /**
     * Trains {@code epochs} epochs on Spark and in process from the same start and checks that the
     * parameters are bit for bit equal after every epoch; returns the Spark trainer's epoch log.
     */
    static List<AllreduceEpoch> assertBitForBitAsInProcess(JavaSparkContext sc, List<Minibatch> batches,
            OptimizerFactory opt, long bucketBytes, int epochs, StepHook hook) {
        return assertBitForBitAsInProcess(sc, 2, batches, opt, bucketBytes, epochs, hook);
    }

    /**
     * Trains {@code epochs} epochs on {@code k} ranks with one fit (one barrier stage) and in process from the
     * same start, and checks that the parameters are bit for bit equal after every epoch: for k = 2 against
     * the in-process trainer, for more ranks against {@link RingReference}, which adds in the ring's order;
     * returns the Spark trainer's epoch log.
     */
    static List<AllreduceEpoch> assertBitForBitAsInProcess(JavaSparkContext sc, int k, List<Minibatch> batches,
            OptimizerFactory opt, long bucketBytes, int epochs, StepHook hook) {
        return assertBitForBitAsInProcess(sc, k, batches, opt, bucketBytes, epochs, hook, null);
    }

    /** The same with the gradients compressed by {@code compressor} on both sides (k = 2 only). */
    static List<AllreduceEpoch> assertBitForBitAsInProcess(JavaSparkContext sc, int k, List<Minibatch> batches,
            OptimizerFactory opt, long bucketBytes, int epochs, StepHook hook, Compressor compressor) {
        return assertBitForBitAsInProcess(sc, Models.LENET, k, batches, opt, bucketBytes, epochs, hook, compressor);
    }

    /** The same for the network {@code model} builds (other than LeNet: k = 2 only). */
    static List<AllreduceEpoch> assertBitForBitAsInProcess(JavaSparkContext sc, ModelFactory model, int k,
            List<Minibatch> batches, OptimizerFactory opt, long bucketBytes, int epochs, StepHook hook,
            Compressor compressor) {
        assertTrue(k == 2 || compressor == null && model == Models.LENET, "the ring-order reference is LeNet's, "
                + "uncompressed: compare k = 2");
        try (AllreduceTrainer spark = AllreduceTrainer.builder(model).setPartitions(k).optOptimizer(opt)
                .optBucketBytes(bucketBytes).optStepHook(hook).optCompression(compressor).optContext(sc).build();
                SplitData data = spark.distribute(batches)) {
            ParameterValues start = ParameterValues.of(spark.getNet());
            List<ParameterValues> viaSpark = new ArrayList<>();
            spark.fit(data, null, epochs, m -> viaSpark.add(ParameterValues.of(spark.getNet())));
            List<ParameterValues> inProcess = k == 2
                    ? InProcess.trainAveragingGradients(model, start, batches, 2, opt, epochs, compressor)
                    : RingReference.train(start, batches, k, opt, epochs, (int) (bucketBytes / 4));
            for (int e = 0; e < epochs; e++) {
                assertEquals(0.0, viaSpark.get(e).maxAbsDifference(inProcess.get(e)), "epoch " + (e + 1));
            }
            assertTrue(viaSpark.get(epochs - 1).maxAbsDifference(start) > 1e-3, "training moved the parameters");
            return spark.getEpochLog();
        }
    }

    @Test
    void theRingOrderReferenceIsTheInProcessTrainerForTwoRanks() {
        List<Minibatch> batches = SyntheticData.minibatches(4, 16, 5);
        try (AllreduceTrainer spark = AllreduceTrainer.builder(Models.LENET).setPartitions(2)
                .optOptimizer(OptimizerFactory.sgd(0.1f)).optContext(sc).build()) {
            ParameterValues start = ParameterValues.of(spark.getNet());
            List<ParameterValues> ring = RingReference.train(start, batches, 2, OptimizerFactory.sgd(0.1f), 2, 1000);
            List<ParameterValues> trainer = InProcess.trainAveragingGradients(start, batches, 2, OptimizerFactory.sgd(0.1f), 2);
            assertEquals(0.0, ring.get(1).maxAbsDifference(trainer.get(1)));
        }
    }

    @Test
    void aFitOfThreeEpochsIsOneSparkJobWhoseRanksJoinTheRingOnce() throws Exception {
        java.util.concurrent.atomic.AtomicInteger jobs = new java.util.concurrent.atomic.AtomicInteger();
        org.apache.spark.scheduler.SparkListener count = new org.apache.spark.scheduler.SparkListener() {
            @Override
            public void onJobStart(org.apache.spark.scheduler.SparkListenerJobStart job) {
                jobs.incrementAndGet();
            }
        };
        try (AllreduceTrainer spark = AllreduceTrainer.builder(Models.LENET).setPartitions(2)
                .optOptimizer(OptimizerFactory.sgd(0.1f)).optContext(sc).build();
                SplitData data = spark.distribute(SyntheticData.minibatches(4, 16, 3))) {
            sc.sc().addSparkListener(count);
            jobs.set(0);
            List<EpochMetrics> h = spark.fit(data, null, 3);
            sc.sc().listenerBus().waitUntilEmpty(10_000);
            assertEquals(3, h.size());
            assertEquals(1, jobs.get(), "Spark jobs run by a fit of 3 epochs");
            List<AllreduceEpoch> log = spark.getEpochLog();
            assertTrue(log.get(0).joinSeconds() > 0);
            assertEquals(0, log.get(1).joinSeconds());
            assertEquals(0, log.get(2).joinSeconds());
            assertTrue(log.get(0).results().get(0).handshakeBytes() > 0);
            assertEquals(0, log.get(2).results().get(0).handshakeBytes());
        } finally {
            sc.sc().removeSparkListener(count);
        }
    }

    @Test
    void anInterruptStopsTheFitWithinAStepAndTheDriverKeepsTheLastCompleteEpoch() throws Exception {
        // Every step sleeps a little, so that the interrupt lands inside epoch 2.
        StepHook slow = (rank, epoch, step, attempt) -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        };
        try (AllreduceTrainer spark = AllreduceTrainer.builder(Models.LENET).setPartitions(2)
                .optOptimizer(OptimizerFactory.sgd(0.1f)).optStepHook(slow).optContext(sc).build();
                SplitData data = spark.distribute(SyntheticData.minibatches(20, 8, 9))) {
            List<ParameterValues> epochs = new ArrayList<>();
            Thread fitting = Thread.currentThread();
            java.util.concurrent.ScheduledExecutorService timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
            org.d2l.multigpu.loop.TrainingInterruptedException ex = assertThrows(
                    org.d2l.multigpu.loop.TrainingInterruptedException.class, () -> spark.fit(data, null, 5, m -> {
                        epochs.add(ParameterValues.of(spark.getNet()));
                        if (m.epoch() == 1) {
                            timer.schedule(fitting::interrupt, 300, java.util.concurrent.TimeUnit.MILLISECONDS);
                        }
                    }));
            timer.shutdown();
            Thread.interrupted(); // clear the flag for what follows
            assertEquals(2, ex.getEpoch(), ex.getMessage());
            assertEquals(1, epochs.size());
            assertEquals(0.0, ParameterValues.of(spark.getNet()).maxAbsDifference(epochs.get(0)), "the last complete epoch");
            assertEquals(1, spark.getHistory().size());
            assertEquals(2, spark.fit(data, null, 1).get(0).epoch(), "a later fit goes on with epoch 2");
        }
    }

    @Test
    void earlyStoppingStopsTheFitsStageAndKeepsTheBestEpoch() {
        double[] scores = {3, 1, 2, 2, 2, 2};
        java.util.Map<Integer, ParameterValues> seen = new java.util.HashMap<>();
        org.d2l.multigpu.earlystopping.ScoreMonitor fixed = org.d2l.multigpu.earlystopping.ScoreMonitor
                .lowerIsBetter("fixed score", (t, m) -> {
                    seen.put(m.epoch(), ParameterValues.of(t.getNet()));
                    return scores[m.epoch() - 1];
                });
        var config = org.d2l.multigpu.earlystopping.EarlyStoppingConfiguration.builder().optMonitor(fixed)
                .optMaxEpochs(scores.length).optEpochPatience(2).build();
        try (AllreduceTrainer spark = AllreduceTrainer.builder(Models.LENET).setPartitions(2)
                .optOptimizer(OptimizerFactory.sgd(0.1f)).optContext(sc).build();
                SplitData data = spark.distribute(SyntheticData.minibatches(4, 8, 11))) {
            var r = new org.d2l.multigpu.earlystopping.EarlyStoppingParallelTrainer(config, spark.epochs(data, null)).fit();
            assertEquals(4, r.totalEpochs(), r.summary());
            assertEquals(2, r.bestEpoch());
            assertEquals(0, ParameterValues.of(spark.getNet()).maxAbsDifference(seen.get(2)), "the best epoch's model");
            assertEquals(4, spark.getHistory().size(), "no epoch ran on after the stop was decided");
        }
    }

    @Test
    void twoExecutorsRingAllreducingGradientsEqualTheInProcessTrainerBitForBitAfterEveryEpoch() {
        List<AllreduceEpoch> log = assertBitForBitAsInProcess(sc, SyntheticData.minibatches(6, 16, 42),
                OptimizerFactory.sgd(0.1f), 25L << 20, 2, StepHook.none());
        assertEquals(2, log.size());
        assertEquals(1, log.get(1).attempts());
    }

    @Test
    void momentumStateCarriedAcrossEpochsAndSmallBucketsStayBitForBitEqual() {
        // 40 kB buckets: LeNet's 129,068 gradients go in 13 buckets of 10,000 floats, each its own ring allreduce.
        List<AllreduceEpoch> log = assertBitForBitAsInProcess(sc, SyntheticData.minibatches(4, 16, 7),
                OptimizerFactory.sgd(0.05f, 0.9f), 40_000, 2, StepHook.none());
        long p = log.get(0).gradientElements();
        assertEquals((p + 9_999) / 10_000, log.get(0).results().get(0).buckets());
        assertTrue(log.get(0).results().get(0).buckets() > 1);
    }

    @Test
    void aLastGlobalBatchSmallerThanKTrainsOnTheRanksThatHaveExamples() {
        List<Minibatch> batches = new ArrayList<>(SyntheticData.minibatches(3, 8, 11));
        batches.add(SyntheticData.minibatches(1, 1, 12).get(0)); // one example: rank 1's shard is empty
        assertBitForBitAsInProcess(sc, batches, OptimizerFactory.sgd(0.1f), 25L << 20, 1, StepHook.none());
    }

    @Test
    void bytesOnTheSocketsAreTheRingsTwoTimesKMinusOneOverKOfTheGradientBytesPerStep() {
        long bucketBytes = 40_000;
        try (AllreduceTrainer spark = AllreduceTrainer.builder(Models.LENET).setPartitions(2)
                .optOptimizer(OptimizerFactory.sgd(0.1f)).optBucketBytes(bucketBytes).optContext(sc).build();
                SplitData data = spark.distribute(SyntheticData.minibatches(3, 8, 3))) {
            EpochMetrics m = spark.trainEpoch(data, null);
            AllreduceEpoch e = spark.getEpochLog().get(0);
            long p = e.gradientElements();
            assertEquals(ParameterValues.of(spark.getNet()).size(), p, "every parameter's gradient, once");
            for (int r = 0; r < 2; r++) {
                long expected = 0; // what the schedule sends per step, bucket by bucket
                for (long start = 0; start < p; start += bucketBytes / 4) {
                    expected += 4 * RingSchedule.allreduce(Math.min(bucketBytes / 4, p - start), 2).elementsSent(r);
                }
                assertEquals(expected, e.bytesSentPerStep(r), "rank " + r);
                assertEquals(expected, e.bytesReceivedPerStep(r), "rank " + r);
                assertEquals(e.ringBytesPerStep(), e.bytesSentPerStep(r), 4.0 * e.results().get(0).buckets(),
                        "2(k-1)/k x 4P, up to one float per bucket of uneven chunks");
            }
            assertEquals(2 * 3 * e.bytesSentPerStep(0), m.syncBytes(), "the epoch's bytes: both ranks, 3 steps");
            assertEquals(3, m.syncs());
        }
    }

    @Test
    void aTaskThatThrowsOnItsFirstAttemptIsRunAgainFromTheLastCompleteEpochAndGivesTheSameParameters() {
        StepHook failOnce = StepHook.failOnce(1, 2, 1);
        List<AllreduceEpoch> log = assertBitForBitAsInProcess(sc, SyntheticData.minibatches(4, 16, 5),
                OptimizerFactory.sgd(0.1f, 0.9f), 25L << 20, 2, failOnce);
        assertEquals(1, log.get(0).attempts());
        assertEquals(2, log.get(1).attempts());
        assertTrue(log.get(1).failures().get(0).contains("Epoch 2, rank 1 failed: task lost before global batch 1 (injected by StepHook.failOnce)"), log.get(1).failures().toString());
    }

    @Test
    void oneBitWithErrorFeedbackOnTwoRanksEqualsTheInProcessTrainerEvenWhenAnEpochIsRunAgain() {
        // The failed attempt of epoch 2 had changed the ranks' residuals: the rerun starts from the driver's copy.
        List<AllreduceEpoch> log = assertBitForBitAsInProcess(sc, 2, SyntheticData.minibatches(4, 16, 5),
                OptimizerFactory.sgd(0.1f, 0.9f), 25L << 20, 2, StepHook.failOnce(1, 2, 2), Compressor.oneBit(true));
        assertEquals(2, log.get(1).attempts());
        long p = log.get(0).gradientElements();
        long messages = 0; // each of LeNet's gradients: 4 bytes of scale, a bit per value and the ring's 4-byte length
        for (float[] w : log.get(1).results().get(0).parameters().values()) {
            messages += 4 + (w.length + 7) / 8 + 4;
        }
        assertEquals(messages, log.get(0).bytesSentPerStep(0), "each rank sends its own message of every gradient");
        assertTrue(log.get(0).bytesSentPerStep(0) * 25 < 4 * p, "more than 25x fewer bytes than float32's 2(k-1)/k x 4P");
    }

    @Test
    void powerSgdAndThresholdEncodingOnTwoRanksEqualTheInProcessTrainerBitForBit() {
        for (Compressor c : List.of(Compressor.powerSgd(2, 1, true), Compressor.threshold(1e-3, true))) {
            assertBitForBitAsInProcess(sc, 2, SyntheticData.minibatches(3, 16, 9), OptimizerFactory.sgd(0.1f), 25L << 20,
                    2, StepHook.none(), c);
        }
    }

    @Test
    void resNetsRunningStatisticsGoUncompressedBesideOneBitGradientsAndEqualTheInProcessTrainerBitForBit() {
        // ResNet-18 of width 2: BatchNorm's running means and variances are averaged over the plain ring.
        assertBitForBitAsInProcess(sc, Models.resnet18(2), 2, SyntheticData.minibatches(2, 8, 3),
                OptimizerFactory.sgd(0.1f), 25L << 20, 1, StepHook.none(), Compressor.oneBit(true));
    }

    @Test
    void compressionWithOnePartitionIsRefusedBeforeTraining() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AllreduceTrainer
                .builder(Models.LENET).setPartitions(1).optOptimizer(OptimizerFactory.sgd(0.1f))
                .optCompression(Compressor.oneBit(true)).optContext(sc).build());
        assertTrue(e.getMessage().contains("with 1 partition there is no other rank"), e.getMessage());
    }

    @Test
    void aNaNMinibatchFailsEveryAttemptAndLeavesTheDriversModelAtTheLastCompleteEpoch() {
        List<Minibatch> batches = new ArrayList<>(SyntheticData.minibatches(4, 8, 9));
        List<Minibatch> poisoned = new ArrayList<>(batches);
        Minibatch b = batches.get(2);
        float[] x = b.x().clone();
        x[10] = Float.NaN;
        poisoned.set(2, new Minibatch(x, b.shape(), b.y()));
        try (AllreduceTrainer spark = AllreduceTrainer.builder(Models.LENET).setPartitions(2)
                .optOptimizer(OptimizerFactory.sgd(0.1f)).optMaxAttempts(2).optContext(sc).build();
                SplitData clean = spark.distribute(batches); SplitData bad = spark.distribute(poisoned)) {
            spark.trainEpoch(clean, null);
            ParameterValues afterEpoch1 = ParameterValues.of(spark.getNet());
            EpochFailedException ex = assertThrows(EpochFailedException.class, () -> spark.trainEpoch(bad, null));
            assertTrue(ex.getMessage().contains("Epoch 2 failed on all 2 attempts"), ex.getMessage());
            assertTrue(ex.getMessage().contains("rank 0 failed: The training loss is NaN at step 3"), ex.getMessage());
            assertTrue(ex.getMessage().contains("at the end of epoch 1"), ex.getMessage());
            assertEquals(2, ex.attempts());
            assertEquals(0.0, ParameterValues.of(spark.getNet()).maxAbsDifference(afterEpoch1));
        }
    }

    @Test
    void afterAFitThatFinishedNoEpochTheLastEpochNamesTheFailureInsteadOfBeingNull() {
        List<Minibatch> batches = new ArrayList<>(SyntheticData.minibatches(2, 8, 9));
        float[] x = batches.get(0).x().clone();
        x[0] = Float.NaN;
        batches.set(0, new Minibatch(x, batches.get(0).shape(), batches.get(0).y()));
        try (AllreduceTrainer spark = AllreduceTrainer.builder(Models.LENET).setPartitions(2)
                .optOptimizer(OptimizerFactory.sgd(0.1f)).optMaxAttempts(1).optContext(sc).build();
                SplitData bad = spark.distribute(batches)) {
            IllegalStateException none = assertThrows(IllegalStateException.class, spark::lastEpoch);
            assertTrue(none.getMessage().contains("call fit (or trainEpoch) first"), none.getMessage());
            assertThrows(EpochFailedException.class, () -> spark.fit(bad, null, 2));
            IllegalStateException after = assertThrows(IllegalStateException.class, spark::lastEpoch);
            assertTrue(after.getMessage().startsWith("This trainer has finished no epoch: its fit failed (Epoch 1 failed "
                    + "on all 1 attempts"), after.getMessage());
            assertTrue(after.getMessage().endsWith("Run that cell again."), after.getMessage());
        }
    }

    @Test
    void dataSplitForAnotherNumberOfPartitionsIsRefused() {
        try (AllreduceTrainer spark = AllreduceTrainer.builder(Models.LENET).setPartitions(2)
                .optOptimizer(OptimizerFactory.sgd(0.1f)).optContext(sc).build();
                SplitData data = SplitData.of(sc, SyntheticData.minibatches(2, 4, 1), 1)) {
            IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> spark.trainEpoch(data, null));
            assertTrue(ex.getMessage().contains("distribute it with this trainer"), ex.getMessage());
        }
    }
}
