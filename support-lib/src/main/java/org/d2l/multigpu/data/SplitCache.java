package org.d2l.multigpu.data;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.training.dataset.Dataset;
import ai.djl.training.dataset.Batch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One in-memory copy of each Fashion-MNIST split, shared by every {@link FashionMnistData} of a manager.
 *
 * <p>DJL's {@code FashionMnist} decodes a whole split into float32 (188 MB for the training set) in a
 * manager of its own, whatever its limit. A lesson that built a loader per run kept one such copy per run
 * until the JVM ended. Here the split is decoded once, only its first rows are kept (the limit), DJL's
 * manager is closed at once, and later loaders of the same split reuse the rows. Rows live in a
 * sub-manager of the loader's manager (freed when that manager closes), or, for loaders without one, in
 * one manager for the whole process.
 */
final class SplitCache {

    /** The first {@code rows} images (N, 28, 28, 1) and labels (N) of a split, both float32 as DJL makes them. */
    record Rows(NDArray images, NDArray labels, long rows, boolean whole) {}

    /** A split of one set of files: the folder DJL reads (empty: DJL's cache) and the files' size and time. */
    private record Key(Optional<Path> folder, Dataset.Usage usage, List<Long> stamp) {}

    /** Reads a split of at most {@code limit} rows through DJL into {@code manager}. */
    interface Loader {
        Rows load(long limit, NDManager manager) throws IOException;
    }

    private static final Map<NDManager, Map<Key, Rows>> BY_OWNER = new IdentityHashMap<>();
    private static final Map<NDManager, NDManager> OWNED = new IdentityHashMap<>();
    private static NDManager shared;

    private SplitCache() {}

    /**
     * Returns the split's first {@code limit} rows, loaded by {@code loader} only when no copy held for
     * {@code manager} (null: the process's) has that many.
     */
    static synchronized Rows get(
            NDManager manager, Optional<Path> folder, Dataset.Usage usage, long limit, Loader loader)
            throws IOException {
        NDManager owner = owner(manager);
        Map<Key, Rows> held = BY_OWNER.computeIfAbsent(owner, m -> new HashMap<>());
        Key key = new Key(folder, usage, stamp(folder, usage));
        Rows rows = held.get(key);
        if (rows != null && (rows.whole() || rows.rows() >= limit)) {
            return rows;
        }
        // A smaller copy made before stays where it is: datasets built on it may still be reading it.
        Rows loaded = loader.load(limit, owner);
        held.put(key, loaded);
        return loaded;
    }

    /** Returns the rows of every split held now, whatever their manager (for tests and memory reports). */
    static synchronized long rowsHeld() {
        dropClosed();
        long n = 0;
        for (Map<Key, Rows> held : BY_OWNER.values()) {
            for (Rows r : held.values()) {
                n += r.rows();
            }
        }
        return n;
    }

    /**
     * Keeps copies of a split's first rows, as DJL's {@code getByRange} gave them, as arrays of {@code owner};
     * the caller then closes the manager DJL decoded the split into, which frees the rest.
     */
    static Rows keep(Batch first, boolean whole, NDManager owner) {
        // A slice shares the whole split's memory: only a copy lets that memory go.
        NDArray images = first.getData().head().duplicate();
        NDArray labels = first.getLabels().head().duplicate();
        images.attach(owner);
        labels.attach(owner);
        return new Rows(images, labels, images.getShape().get(0), whole);
    }

    private static NDManager owner(NDManager manager) {
        dropClosed();
        if (manager == null) {
            if (shared == null || !shared.isOpen()) {
                shared = NDManager.newBaseManager();
                shared.setName("fashion-mnist splits");
            }
            return shared;
        }
        NDManager sub = OWNED.get(manager);
        if (sub == null || !sub.isOpen()) {
            sub = manager.newSubManager();
            sub.setName("fashion-mnist splits");
            OWNED.put(manager, sub);
        }
        return sub;
    }

    private static void dropClosed() {
        BY_OWNER.keySet().removeIf(m -> !m.isOpen());
        OWNED.values().removeIf(m -> !m.isOpen());
        OWNED.keySet().removeIf(m -> !m.isOpen());
    }

    /** The size and modification time of the split's two files, so that changed files are read again. */
    private static List<Long> stamp(Optional<Path> folder, Dataset.Usage usage) throws IOException {
        List<Long> stamp = new ArrayList<>();
        if (folder.isEmpty()) {
            return stamp;
        }
        boolean train = usage == Dataset.Usage.TRAIN;
        for (IdxFile part : train
                ? new IdxFile[] {IdxFile.TRAIN_DATA, IdxFile.TRAIN_LABELS}
                : new IdxFile[] {IdxFile.TEST_DATA, IdxFile.TEST_LABELS}) {
            Path file = folder.get().resolve(part.djlName);
            if (Files.isRegularFile(file)) {
                stamp.add(Files.size(file));
                stamp.add(Files.getLastModifiedTime(file).toMillis());
            }
        }
        return stamp;
    }
}
