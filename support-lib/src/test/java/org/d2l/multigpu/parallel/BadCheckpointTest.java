package org.d2l.multigpu.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Blocks;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.loop.EpochMetrics;
import org.junit.jupiter.api.Test;

/** Damaged checkpoints are skipped with a note, those of another run refused with what differs, nothing lost. */
class BadCheckpointTest extends WithResumeFixture {

    private DataParallelTrainer lenet(int k, DataType type) {
        return r.trainer(k, 7, dir, b -> b.optLearningRate(0.1f).optDataType(type).optShuffleSeed(3));
    }

    private String refusal(DataParallelTrainer other) throws IOException {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> other.fit(r.train, null, 2));
        assertTrue(e.getMessage().contains("is of another run, refused"), e.getMessage());
        assertTrue(Files.isDirectory(dir.resolve("epoch-0001")), "the checkpoint is kept");
        assertEquals(0, other.getHistory().size());
        return e.getMessage();
    }

    @Test
    void aCheckpointOfAnotherReplicaCountIsRefused() throws IOException {
        lenet(2, DataType.FLOAT32).fit(r.train, null, 1);
        String m = refusal(lenet(1, DataType.FLOAT32));
        assertTrue(m.contains("replicas: 2 in the checkpoint, 1 in this run"), m);
    }

    @Test
    void aCheckpointOfAnotherPrecisionIsRefused() throws IOException {
        lenet(1, DataType.FLOAT32).fit(r.train, null, 1);
        String m = refusal(lenet(1, DataType.FLOAT16));
        assertTrue(m.contains("precision: FLOAT32 in the checkpoint, FLOAT16 with float32 master weights"), m);
    }

    @Test
    void aCheckpointOfAnotherTrainingSetSizeIsRefused() throws IOException {
        lenet(1, DataType.FLOAT32).fit(r.train, null, 1);
        DataParallelTrainer other = lenet(1, DataType.FLOAT32);
        var fewer = new ai.djl.training.dataset.ArrayDataset.Builder()
                .setData(f.manager.zeros(new Shape(r.train.size() / 2, 1, 28, 28)))
                .optLabels(f.manager.zeros(new Shape(r.train.size() / 2))).setSampling(16, false).build();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> other.fit(fewer, null, 2));
        assertTrue(e.getMessage().contains("training examples: " + r.train.size() + " in the checkpoint, "
                + r.train.size() / 2 + " in this run"), e.getMessage());
    }

    @Test
    void aCheckpointOfAnotherNetworkIsRefusedNamingTheParameters() throws IOException {
        lenet(1, DataType.FLOAT32).fit(r.train, null, 1);
        SequentialBlock mlp = new SequentialBlock().add(Blocks.batchFlattenBlock()).add(Linear.builder().setUnits(10).build());
        mlp.initialize(f.manager, DataType.FLOAT32, new Shape(1, 1, 28, 28));
        DataParallelTrainer other = f.closeLater(DataParallelTrainer.builder(mlp).setDevices(Devices.virtual(1))
                .optLearningRate(0.1f).optProgress(false).optCheckpoints(dir).build());
        String m = refusal(other);
        assertTrue(m.contains("parameter 02Linear_weight: none in the checkpoint, (10, 784) float32 in this run"), m);
    }

    @Test
    void aTruncatedNewestCheckpointFallsBackToThePreviousAndStillEndsAsTheUnbrokenRun() throws IOException {
        DataParallelTrainer a = r.trainer(2, 7, dir.resolve("a"), b -> b.optLearningRate(0.1f).optShuffleSeed(3));
        List<EpochMetrics> expected = a.fit(r.train, r.test, 3);
        Path broken = dir.resolve("b");
        r.trainer(2, 7, broken, b -> b.optLearningRate(0.1f).optShuffleSeed(3)).fit(r.train, r.test, 2);
        Path params = broken.resolve("epoch-0002/parameters.params");
        Files.write(params, Arrays.copyOf(Files.readAllBytes(params), 100));
        DataParallelTrainer b2 = r.trainer(2, 8, broken, b -> b.optLearningRate(0.1f));
        List<EpochMetrics> resumed = b2.fit(r.train, r.test, 3, r.notes());
        assertEquals(2, r.notes.size(), r.notes.toString());
        assertTrue(r.notes.get(0).startsWith("Checkpoint of epoch 2 skipped") && r.notes.get(0).contains("SHA-256"),
                r.notes.get(0));
        assertTrue(r.notes.get(1).contains("epoch-0001: epoch 1 done before"), r.notes.get(1));
        ResumeFixture.assertSameRun(expected, resumed);
        ResumeFixture.assertSameParameters(a, b2);
    }

    @Test
    void aFolderThatCannotBeWrittenFailsWhenTheTrainerIsBuilt() throws IOException {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> r.trainer(1, 7, file, b -> b.optLearningRate(0.1f)));
        assertTrue(e.getMessage().startsWith("Cannot write checkpoints to"), e.getMessage());
    }

    @Test
    void aFreshStartRemovesTheEarlierRunsCheckpointsAndTrainsFromEpochOne() {
        lenet(1, DataType.FLOAT32).fit(r.train, null, 2);
        DataParallelTrainer fresh = r.trainer(1, 7, dir, b -> b.optLearningRate(0.1f).optResume(false));
        List<EpochMetrics> run = fresh.fit(r.train, null, 1, r.notes());
        assertEquals(1, run.size());
        assertEquals(1, run.get(0).epoch());
        assertEquals(List.of("Starting afresh (resume off): removed 2 checkpoint(s) of an earlier run from " + dir + "."),
                r.notes);
        assertTrue(Files.isDirectory(dir.resolve("epoch-0001")) && !Files.exists(dir.resolve("epoch-0002")));
    }

    @Test
    void aRunWhoseEpochsAreAllCheckpointedTrainsNoMoreAndReturnsThem() {
        DataParallelTrainer a = lenet(1, DataType.FLOAT32);
        List<EpochMetrics> expected = a.fit(r.train, null, 2);
        DataParallelTrainer again = lenet(1, DataType.FLOAT32);
        List<EpochMetrics> run = again.fit(r.train, null, 2, r.notes());
        ResumeFixture.assertSameRun(expected, run);
        assertTrue(r.notes.get(0).endsWith("epochs 1 to 2 done before, all of this run's."), r.notes.toString());
        ResumeFixture.assertSameParameters(a, again);
    }
}
