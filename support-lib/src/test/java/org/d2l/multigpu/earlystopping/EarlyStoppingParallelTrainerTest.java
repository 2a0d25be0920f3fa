package org.d2l.multigpu.earlystopping;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Parameter;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.loss.Loss;
import ai.djl.util.Pair;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.loop.ParameterSnapshot;
import org.d2l.multigpu.loop.TrainingInterruptedException;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.parallel.TrainerFixture;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class EarlyStoppingParallelTrainerTest {

    private static final Shape IMAGE = new Shape(1, 1, 28, 28);

    private NDManager manager;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void setUp() {
        Djl.setup();
        manager = NDManager.newBaseManager(Device.cpu());
        manager.getEngine().setRandomSeed(1234);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        manager.close();
    }

    /** A learnable toy task in batches of 16: the label is which quarter of the image is bright. */
    private ArrayDataset quarters(int n) {
        return TrainerFixture.quarters(manager, n, 16, false);
    }

    /** A small LeNet trainer on two virtual replicas. */
    private DataParallelTrainer trainer(Loss loss) {
        DataParallelTrainer t = DataParallelTrainer.builder(LeNet.block()).setDevices(Devices.virtual(2))
                .optInputShape(IMAGE).optLearningRate(0.3f).optLoss(loss).optProgress(false).build();
        toClose.add(t);
        return t;
    }

    /** Takes a snapshot of the trainer's parameters after every epoch. */
    private static final class Snapshots implements EpochListener {
        final DataParallelTrainer trainer;
        final List<ParameterSnapshot> taken = new ArrayList<>();

        Snapshots(DataParallelTrainer trainer) {
            this.trainer = trainer;
        }

        @Override
        public void onEpoch(EpochMetrics metrics) {
            taken.add(trainer.snapshot());
        }
    }

    private static boolean equalBits(ParameterSnapshot s, DataParallelTrainer t, int replica) {
        for (Pair<String, Parameter> p : t.getNet().getParameters()) {
            String id = p.getValue().getId();
            if (!Arrays.equals(s.values().get(id).toFloatArray(), t.replica(replica).get(id).toFloatArray())) {
                return false;
            }
        }
        return true;
    }

    private static boolean equalBits(ParameterSnapshot a, ParameterSnapshot b) {
        for (String id : a.values().keySet()) {
            if (!Arrays.equals(a.values().get(id).toFloatArray(), b.values().get(id).toFloatArray())) {
                return false;
            }
        }
        return true;
    }

    @Test
    void everyReplicaEndsWithTheBestEpochsParametersBitForBit() {
        DataParallelTrainer t = trainer(Loss.softmaxCrossEntropyLoss());
        ArrayDataset data = quarters(32);
        // A scripted score on real training: epoch 2 is the best, and patience 2 stops after epoch 4.
        double[] script = {0.1, 0.5, 0.3, 0.2, 0.9, 0.9};
        ScoreMonitor scripted = ScoreMonitor.higherIsBetter("scripted", (tr, m) -> script[m.epoch() - 1]);
        EarlyStoppingConfiguration config = EarlyStoppingConfiguration.builder().optMonitor(scripted)
                .optEpochPatience(2).optMaxEpochs(6).build();
        Snapshots snapshots = new Snapshots(t);
        toClose.add(() -> snapshots.taken.forEach(ParameterSnapshot::close));
        EarlyStoppingResult r = new EarlyStoppingParallelTrainer(config, t, data, null).fit(snapshots);
        assertEquals(StopReason.NO_IMPROVEMENT, r.reason());
        assertEquals(4, r.totalEpochs());
        assertEquals(2, r.bestEpoch());
        assertEquals(0.5, r.bestScore());
        assertEquals(List.of(0.1, 0.5, 0.3, 0.2), r.scores());
        assertEquals(4, r.history().size());
        assertEquals(4, snapshots.taken.size());
        ParameterSnapshot best = snapshots.taken.get(1);
        // Training went on after the best epoch, so restoring it is not a no-op.
        assertFalse(equalBits(best, snapshots.taken.get(3)), "epochs 2 and 4 should differ");
        assertFalse(equalBits(best, snapshots.taken.get(2)), "epochs 2 and 3 should differ");
        assertTrue(equalBits(best, t, 0), "replica 0 (the block itself) does not hold epoch 2's parameters");
        assertTrue(equalBits(best, t, 1), "replica 1 does not hold epoch 2's parameters");
    }

    @Test
    void aValidationLossIsScoredOnTheAveragedModelAndTheBestIsRestored() {
        DataParallelTrainer t = trainer(Loss.softmaxCrossEntropyLoss());
        ArrayDataset data = quarters(32);
        ArrayDataset validation = quarters(16);
        ScoreMonitor loss = ScoreMonitor.validationLoss(validation, Loss.softmaxCrossEntropyLoss());
        assertFalse(loss.higherIsBetter());
        EarlyStoppingConfiguration config = EarlyStoppingConfiguration.builder().optMonitor(loss)
                .optMaxEpochs(4).build();
        EarlyStoppingResult r = new EarlyStoppingParallelTrainer(config, t, data, null).fit();
        assertEquals(StopReason.MAX_EPOCHS, r.reason());
        assertEquals(4, r.totalEpochs());
        double min = r.scores().stream().mapToDouble(Double::doubleValue).min().getAsDouble();
        assertEquals(min, r.bestScore());
        assertEquals(r.bestScore(), r.scores().get(r.bestEpoch() - 1));
        // The model left in the trainer scores exactly the best score again.
        assertEquals(r.bestScore(), loss.score(t.epochs(data, null), null));
        assertTrue(r.summary().contains("validation loss"), r.summary());
        assertEquals(4, r.history().get(3).epoch());
    }

    @Test
    void aValidationAccuracyIsHigherIsBetterAndTheRestoredModelScoresTheBestAgain() {
        DataParallelTrainer t = trainer(Loss.softmaxCrossEntropyLoss());
        ArrayDataset data = quarters(32);
        ArrayDataset validation = quarters(16);
        ScoreMonitor acc = ScoreMonitor.validationAccuracy(validation);
        assertTrue(acc.higherIsBetter());
        EarlyStoppingConfiguration config = EarlyStoppingConfiguration.builder().optMonitor(acc)
                .optMaxEpochs(4).build();
        EarlyStoppingResult r = new EarlyStoppingParallelTrainer(config, t, data, null).fit();
        double max = r.scores().stream().mapToDouble(Double::doubleValue).max().getAsDouble();
        assertEquals(max, r.bestScore());
        assertTrue(max > 0.25, "the toy task should be learnt above chance: " + r.scores());
        assertEquals(r.bestScore(), acc.score(t.epochs(data, null), null));
    }

    /** Softmax cross-entropy that throws a training interrupt once armed, as an interrupted step does. */
    private static final class Tripwire extends Loss {
        final Loss inner = Loss.softmaxCrossEntropyLoss();
        boolean armed;
        NDManager watched;
        int arraysWhenTripped = -1;

        Tripwire() {
            super("tripwire");
        }

        @Override
        public NDArray evaluate(NDList labels, NDList predictions) {
            if (armed) {
                arraysWhenTripped = watched.getManagedArrays().size();
                throw new TrainingInterruptedException(2, 0, List.of(), "Run the cell again.");
            }
            return inner.evaluate(labels, predictions);
        }
    }

    @Test
    void anInterruptPropagatesAndTheKeptParametersAreFreed() {
        Tripwire tripwire = new Tripwire();
        DataParallelTrainer t = trainer(tripwire);
        ArrayDataset data = quarters(32);
        String id = t.getNet().getParameters().valueAt(0).getId();
        // The trainer's own manager, which holds the replica copies and the kept snapshot.
        tripwire.watched = t.replica(1).get(id).getManager();
        int before = tripwire.watched.getManagedArrays().size();
        EpochListener armAfterFirstEpoch = m -> tripwire.armed = true;
        EarlyStoppingConfiguration config = EarlyStoppingConfiguration.builder()
                .optMonitor(ScoreMonitor.trainLoss()).optMaxEpochs(5).build();
        EarlyStoppingParallelTrainer es = new EarlyStoppingParallelTrainer(config, t, data, null);
        TrainingInterruptedException e = assertThrows(TrainingInterruptedException.class,
                () -> es.fit(armAfterFirstEpoch));
        assertEquals(2, e.getEpoch());
        assertTrue(tripwire.arraysWhenTripped > before, "the first epoch's snapshot was live during epoch 2");
        assertEquals(before, tripwire.watched.getManagedArrays().size(), "the snapshot leaked");
    }

    @Test
    void monitoringTestAccuracyWithoutATestSetIsAClearError() {
        DataParallelTrainer t = trainer(Loss.softmaxCrossEntropyLoss());
        EarlyStoppingConfiguration config = EarlyStoppingConfiguration.builder().optEpochPatience(2).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new EarlyStoppingParallelTrainer(config, t, quarters(8), null));
        assertTrue(e.getMessage().contains("test accuracy") && e.getMessage().contains("no test set"), e.getMessage());
    }

    @Test
    void listenersHearEveryEpochOfTheRun() {
        DataParallelTrainer t = trainer(Loss.softmaxCrossEntropyLoss());
        List<Integer> planned = new ArrayList<>();
        List<Integer> heard = new ArrayList<>();
        EpochListener l = new EpochListener() {
            @Override
            public void onFitStart(int numEpochs) {
                planned.add(numEpochs);
            }

            @Override
            public void onEpoch(EpochMetrics m) {
                heard.add(m.epoch());
            }
        };
        EarlyStoppingConfiguration config = EarlyStoppingConfiguration.builder()
                .optMonitor(ScoreMonitor.trainLoss()).optMaxEpochs(2).build();
        EarlyStoppingResult r = new EarlyStoppingParallelTrainer(config, t, quarters(32), null).fit(l);
        assertEquals(List.of(2), planned);
        assertEquals(List.of(1, 2), heard);
        assertEquals(r.history().get(1).epoch(), heard.get(1));
        assertEquals(r.history().get(1).trainLoss(), r.scores().get(1));
    }
}
