package org.d2l.multigpu.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoint folders on disk: atomic writes, checksums, the last N kept, damaged ones skipped with a note. */
class CheckpointStoreTest {

    @TempDir
    Path dir;

    private static Checkpoint checkpoint(int epoch) {
        Checkpoint c = new Checkpoint(epoch);
        c.put("parameters.params", ("weights of epoch " + epoch).repeat(100).getBytes(StandardCharsets.UTF_8));
        c.putText("trainer.properties", Map.of("epoch", String.valueOf(epoch)));
        return c;
    }

    private CheckpointStore storeWithEpochs(int keep, int... epochs) {
        CheckpointStore store = new CheckpointStore(CheckpointPolicy.in(dir).keepLast(keep));
        for (int e : epochs) {
            store.write(checkpoint(e));
        }
        return store;
    }

    private List<String> hidden() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".")).toList();
        }
    }

    @Test
    void theLastNCheckpointsAreKeptAndNothingHalfWrittenIsLeft() throws IOException {
        CheckpointStore store = storeWithEpochs(2, 1, 2, 3, 4, 5);
        assertEquals(List.of(5, 4), store.epochs());
        assertEquals(List.of(), hidden());
        Checkpoint back = store.read(5);
        assertArrayEquals(checkpoint(5).get("parameters.params"), back.get("parameters.params"));
        assertEquals("5", back.text("trainer.properties").get("epoch"));
    }

    @Test
    void aTruncatedNewestCheckpointIsSkippedForThePreviousOneWithANote() throws IOException {
        CheckpointStore store = storeWithEpochs(3, 1, 2);
        Path f = store.path(2).resolve("parameters.params");
        byte[] whole = Files.readAllBytes(f);
        Files.write(f, java.util.Arrays.copyOf(whole, whole.length / 2));
        List<String> notes = new ArrayList<>();
        assertEquals(1, store.newestValid(0, 0, notes::add).epoch());
        assertEquals(1, notes.size());
        assertTrue(notes.get(0).contains("epoch 2") && notes.get(0).contains("SHA-256"), notes.get(0));
    }

    @Test
    void aChangedByteIsFoundByTheChecksum() throws IOException {
        CheckpointStore store = storeWithEpochs(3, 1);
        Path f = store.path(1).resolve("trainer.properties");
        byte[] b = Files.readAllBytes(f);
        b[0] ^= 1;
        Files.write(f, b);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> store.read(1));
        assertTrue(e.getMessage().contains("trainer.properties"), e.getMessage());
        assertNull(store.newestValid(0, 0, n -> {}));
    }

    @Test
    void aCheckpointWithoutChecksumsIsIncompleteAndAMissingFileIsNamed() throws IOException {
        CheckpointStore store = storeWithEpochs(3, 1, 2);
        Files.delete(store.path(2).resolve("SHA256SUMS"));
        Files.delete(store.path(1).resolve("trainer.properties"));
        assertTrue(assertThrows(IllegalStateException.class, () -> store.read(2)).getMessage().contains("incomplete"));
        assertTrue(assertThrows(IllegalStateException.class, () -> store.read(1)).getMessage().contains("missing"));
    }

    @Test
    void aWriteKilledHalfWayIsIgnoredAndCleanedUpByTheNextWrite() throws IOException {
        CheckpointStore store = storeWithEpochs(3, 1, 2);
        Path unfinished = Files.createDirectory(dir.resolve(".writing-epoch-0003-123"));
        Files.writeString(unfinished.resolve("parameters.params"), "half");
        assertEquals(List.of(2, 1), store.epochs());
        assertEquals(2, store.newestValid(0, 0, n -> {}).epoch());
        store.write(checkpoint(3));
        assertEquals(List.of(), hidden());
    }

    @Test
    void writingAnEarlierEpochRemovesTheLaterOnesOfTheAbandonedRun() {
        CheckpointStore store = storeWithEpochs(5, 1, 2, 3);
        store.write(checkpoint(2));
        assertEquals(List.of(2, 1), store.epochs());
    }

    @Test
    void theNewestValidIsLookedForOnlyWithinTheEpochsAsked() {
        CheckpointStore store = storeWithEpochs(5, 1, 2, 3, 4);
        assertEquals(3, store.newestValid(1, 3, n -> {}).epoch());
        assertNull(store.newestValid(4, 0, n -> {}));
    }

    @Test
    void aFolderThatCannotBeWrittenFailsBeforeTraining() throws IOException {
        Path file = Files.writeString(dir.resolve("a-file"), "not a folder");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CheckpointPolicy.in(file.resolve("run")).checkWritable());
        assertTrue(e.getMessage().startsWith("Cannot write checkpoints to"), e.getMessage());
    }

    @Test
    void anotherRunIsRefusedWithWhatDiffers() {
        Map<String, String> saved = new LinkedHashMap<>(Map.of("replicas", "2", "precision", "FLOAT32"));
        Map<String, String> now = new LinkedHashMap<>(Map.of("replicas", "1", "precision", "FLOAT32"));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Checkpoint.checkSameRun(saved, now, "epoch-0001"));
        assertTrue(e.getMessage().contains("replicas: 2 in the checkpoint, 1 in this run"), e.getMessage());
        assertFalse(e.getMessage().contains("precision:"), e.getMessage());
        Checkpoint.checkSameRun(saved, saved, "epoch-0001");
    }
}
