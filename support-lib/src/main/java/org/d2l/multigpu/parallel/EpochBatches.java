package org.d2l.multigpu.parallel;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.training.dataset.Batch;
import ai.djl.training.dataset.RandomAccessDataset;
import ai.djl.training.dataset.Sampler;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.d2l.multigpu.data.Batches;

/**
 * One epoch's batches as the trainer takes them: one global batch a step, or k minibatches a round
 * (fewer in a last partial round), loaded ahead on a background thread when prefetching. The
 * arrays of a step are held by a manager of ours until {@link #release()}: DJL's iterator frees its
 * own batches as soon as it reports that no batch is left, before a last partial round has run.
 */
final class EpochBatches implements AutoCloseable {

    private final NDManager parent;
    private final int perStep;
    private final ExecutorService prefetcher;
    private final Iterator<Batch> it;
    private NDManager held;

    /** The batches of {@code trainSet} drawn by {@code order} (null: the data set's own sampler). */
    EpochBatches(RandomAccessDataset trainSet, Sampler order, NDManager manager, boolean prefetch, int perStep) {
        this.parent = manager;
        this.perStep = perStep;
        this.held = manager.newSubManager();
        this.prefetcher = prefetch ? Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "prefetch");
            t.setDaemon(true);
            return t;
        }) : null;
        it = Batches.of(trainSet, manager, order, prefetcher, "training").iterator();
    }

    /**
     * The next step's (examples, labels), one pair per batch; empty when the epoch is over. Throws
     * {@link InterruptedException} when interrupted while waiting for a prefetched batch.
     */
    List<NDList> next() throws InterruptedException {
        List<NDList> group = new ArrayList<>();
        try {
            while (group.size() < perStep && it.hasNext()) {
                try (Batch b = it.next()) {
                    NDArray x = b.getData().head();
                    NDArray y = b.getLabels().head();
                    x.attach(held);
                    y.attach(held);
                    group.add(new NDList(x, y));
                }
            }
        } catch (RuntimeException ex) {
            for (Throwable t = ex; t != null; t = t.getCause()) {
                if (t instanceof InterruptedException) {
                    throw new InterruptedException("interrupted while waiting for a prefetched batch");
                }
            }
            throw ex;
        }
        return group;
    }

    /** Frees the arrays of the step just taken. */
    void release() {
        held.close();
        held = parent.newSubManager();
    }

    /** The examples (index 0) or labels (index 1) of every batch of {@code group}. */
    static List<NDArray> part(List<NDList> group, int index) {
        return group.stream().map(b -> b.get(index)).toList();
    }

    @Override
    public void close() {
        if (prefetcher != null) {
            prefetcher.shutdownNow();
        }
        held.close();
    }

    /** Checks that a parameter-averaging round under {@code sync} gets 1 to k minibatches with as many label arrays. */
    static void checkRound(ReplicaSync sync, List<NDArray> xs, List<NDArray> ys, int k) {
        if (!sync.ownMinibatches()) {
            throw new IllegalStateException("trainRound gives each worker its own minibatch, which is "
                    + "parameter averaging; with " + sync.getClass().getSimpleName()
                    + " call trainStep(x, y) with the global batch.");
        }
        if (xs.isEmpty() || xs.size() != ys.size() || xs.size() > k) {
            throw new IllegalArgumentException("A round takes between 1 and " + k
                    + " minibatches (one per worker) with as many label arrays; got " + xs.size()
                    + " and " + ys.size() + ".");
        }
    }

    /** Array i of {@code arrays} on device i, the originals attached to {@code step} so that they go back with it. */
    static List<NDArray> onDevices(List<NDArray> arrays, List<Device> devices, NDManager step) {
        List<NDArray> moved = new ArrayList<>();
        for (int i = 0; i < arrays.size(); i++) {
            step.tempAttachAll(arrays.get(i));
            moved.add(arrays.get(i).toDevice(devices.get(i), false));
        }
        return moved;
    }
}
