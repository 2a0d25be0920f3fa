package org.d2l.multigpu.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDArray;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.util.Pair;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.models.LeNet;

/**
 * Runs for the resume tests: an unbroken run, and a run broken after some epochs (its trainer dropped as a
 * dead kernel drops it) then started again by a new trainer from other initial weights in the same folder.
 */
public final class ResumeFixture {

    public final TrainerFixture f;
    public final ArrayDataset train;
    public final ArrayDataset test;
    public final List<String> notes = new ArrayList<>();

    public ResumeFixture(TrainerFixture f) {
        this.f = f;
        this.train = TrainerFixture.quarters(f.manager, 72, 16, true); // shuffled, a last partial batch
        this.test = TrainerFixture.quarters(f.manager, 32, 16, false);
    }

    /** A trainer of a new LeNet (weights from {@code seed}) on {@code k} virtual replicas, set up by {@code settings}. */
    public DataParallelTrainer trainer(int k, long seed, Path dir, UnaryOperator<DataParallelTrainer.Builder> settings) {
        f.manager.getEngine().setRandomSeed((int) seed);
        Block net = f.initialize(LeNet.block(), null);
        DataParallelTrainer.Builder b = DataParallelTrainer.builder(net).setDevices(Devices.virtual(k))
                .optProgress(false).optCheckpoints(dir);
        return f.closeLater(settings.apply(b).build());
    }

    /** A listener that keeps the checkpoint notes. */
    public EpochListener notes() {
        return new EpochListener() {
            @Override
            public void onEpoch(EpochMetrics metrics) {}

            @Override
            public void onCheckpointNote(String message) {
                notes.add(message);
            }
        };
    }

    /** Trains {@code epochs} epochs unbroken and, in {@code broken}, {@code before} epochs, then all again from a new trainer. */
    void assertResumeEqualsUnbroken(int k, int epochs, int before, Path unbroken, Path broken,
            UnaryOperator<DataParallelTrainer.Builder> settings) {
        DataParallelTrainer a = trainer(k, 7, unbroken, settings.andThen(b -> b.optShuffleSeed(99))::apply);
        List<EpochMetrics> expected = a.fit(train, test, epochs);
        DataParallelTrainer b1 = trainer(k, 7, broken, settings.andThen(b -> b.optShuffleSeed(99))::apply);
        b1.fit(train, test, before);
        DataParallelTrainer b2 = trainer(k, 8, broken, settings); // other weights, other data order seed
        List<EpochMetrics> resumed = b2.fit(train, test, epochs, notes());
        assertEquals(1, notes.size(), "one line says what was resumed: " + notes);
        assertSameRun(expected, resumed);
        assertSameRun(a.getHistory(), b2.getHistory());
        assertSameParameters(a, b2);
        assertEquals(a.getSteps(), b2.getSteps());
    }

    /** The metrics of two runs are equal but for their timings. */
    public static void assertSameRun(List<EpochMetrics> a, List<EpochMetrics> b) {
        assertEquals(a.size(), b.size(), "epochs");
        for (int i = 0; i < a.size(); i++) {
            EpochMetrics x = a.get(i);
            EpochMetrics y = b.get(i);
            String what = "epoch " + x.epoch();
            assertEquals(x.epoch(), y.epoch(), what);
            assertEquals(x.trainLoss(), y.trainLoss(), 0, what + " loss");
            assertEquals(x.trainAccuracy(), y.trainAccuracy(), 0, what + " accuracy");
            assertEquals(x.testAccuracy(), y.testAccuracy(), 0, what + " test accuracy");
            assertEquals(x.lossScale(), y.lossScale(), 0, what + " loss scale");
            assertEquals(List.of(x.steps(), x.syncs(), x.syncBytes(), x.skippedSteps()),
                    List.of(y.steps(), y.syncs(), y.syncBytes(), y.skippedSteps()), what);
            assertEquals(x.optimizerStateBytes(), y.optimizerStateBytes(), what + " optimizer state bytes");
        }
    }

    /** Every replica of {@code b} holds {@code a}'s replica's parameters bit for bit. */
    public static void assertSameParameters(DataParallelTrainer a, DataParallelTrainer b) {
        for (int i = 0; i < a.getDevices().size(); i++) {
            List<Pair<String, Parameter>> pa = a.getNet().getParameters().stream().toList();
            List<Pair<String, Parameter>> pb = b.getNet().getParameters().stream().toList();
            for (int j = 0; j < pa.size(); j++) {
                NDArray x = a.replica(i).get(pa.get(j).getValue().getId());
                NDArray y = b.replica(i).get(pb.get(j).getValue().getId());
                assertArrayEquals(bits(x), bits(y), "replica " + i + " parameter " + pa.get(j).getKey() + " differs");
            }
        }
    }

    static int[] bits(NDArray a) {
        float[] v = a.toType(ai.djl.ndarray.types.DataType.FLOAT32, true).toFloatArray();
        int[] b = new int[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = Float.floatToRawIntBits(v[i]);
        }
        return b;
    }
}
