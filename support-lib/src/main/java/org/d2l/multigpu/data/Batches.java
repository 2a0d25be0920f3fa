package org.d2l.multigpu.data;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.training.dataset.Batch;
import ai.djl.training.dataset.Dataset;
import ai.djl.training.dataset.RandomAccessDataset;
import ai.djl.training.dataset.Sampler;
import ai.djl.translate.TranslateException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.concurrent.ExecutorService;

/** The batches of a DJL data set, with DJL's checked exceptions turned into unchecked ones that say what failed. */
public final class Batches {

    private Batches() {}

    /** The batches of {@code data}, their arrays made by {@code manager}; {@code what} names the set in errors ("test"). */
    public static Iterable<Batch> of(Dataset data, NDManager manager, String what) {
        return of(data, manager, null, what);
    }

    /** The same, read ahead on {@code prefetcher}'s thread through DJL's own prefetching (none when null). */
    public static Iterable<Batch> of(Dataset data, NDManager manager, ExecutorService prefetcher, String what) {
        return of(data, manager, null, prefetcher, what);
    }

    /**
     * The same, drawn by {@code order} instead of the data set's own sampler (unless null; needs random access);
     * read on the CPU when {@code manager} is on a GPU (DJL would index the data set's CPU arrays with an index
     * array on the GPU, which PyTorch refuses), for the trainer to move to its devices.
     */
    public static Iterable<Batch> of(Dataset data, NDManager manager, Sampler order, ExecutorService prefetcher,
            String what) {
        if (!manager.getDevice().isGpu()) {
            return read(data, manager, order, prefetcher, what);
        }
        return () -> new Iterator<>() {
            private final NDManager cpu = manager.newSubManager(Device.cpu());
            private final Iterator<Batch> batches = read(data, cpu, order, prefetcher, what).iterator();

            @Override
            public boolean hasNext() {
                boolean more = batches.hasNext();
                if (!more) {
                    cpu.close();
                }
                return more;
            }

            @Override
            public Batch next() {
                return batches.next();
            }
        };
    }

    private static Iterable<Batch> read(Dataset data, NDManager manager, Sampler order, ExecutorService prefetcher,
            String what) {
        try {
            if (order != null) {
                RandomAccessDataset r = (RandomAccessDataset) data;
                return prefetcher == null ? r.getData(manager, order) : r.getData(manager, order, prefetcher);
            }
            return prefetcher == null ? data.getData(manager) : data.getData(manager, prefetcher);
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not read the " + what + " set: " + ex.getMessage(), ex);
        } catch (TranslateException ex) {
            throw new IllegalStateException("Could not read a " + what + " batch: " + ex.getMessage(), ex);
        }
    }
}
