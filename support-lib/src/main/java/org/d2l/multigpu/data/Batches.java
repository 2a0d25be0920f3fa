package org.d2l.multigpu.data;

import ai.djl.Device;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.training.dataset.Batch;
import ai.djl.training.dataset.Dataset;
import ai.djl.training.dataset.RandomAccessDataset;
import ai.djl.training.dataset.Sampler;
import ai.djl.translate.TranslateException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.function.Predicate;

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

    /** The examples and labels of the first {@code count} batches of {@code data} (fewer if it has fewer), kept in {@code manager}. */
    public static List<NDList> first(Dataset data, NDManager manager, int count) {
        List<NDList> out = new ArrayList<>();
        if (count <= 0) {
            return out;
        }
        for (Batch b : of(data, manager, "training")) {
            NDList xy = new NDList(b.getData().head(), b.getLabels().head());
            xy.attach(manager); // kept in manager: closing the batch would free them
            out.add(xy);
            if (out.size() == count) {
                break;
            }
        }
        return out;
    }

    /**
     * The examples and labels of {@code count} batches of {@code data}, passing over the set again as needed (a set
     * of 3 batches gives batches 0, 1, 2, 0, 1 for 5), kept in {@code manager}.
     */
    public static List<NDList> take(Dataset data, NDManager manager, int count) {
        List<NDList> out = new ArrayList<>();
        if (count <= 0) {
            return out;
        }
        feed(data, manager, count, b -> {
            NDList xy = new NDList(b.getData().head(), b.getLabels().head());
            xy.attach(manager); // kept in manager: closing the batch would free them
            return out.add(xy);
        });
        return out;
    }

    /**
     * Gives {@code step} one batch of {@code data} after another, each closed after its step, passing over the
     * set again as needed, while {@code step} returns true and at most {@code most} times; returns the steps given.
     */
    public static int feed(Dataset data, NDManager manager, int most, Predicate<Batch> step) {
        int n = 0;
        while (n < most) {
            int before = n;
            for (Batch b : of(data, manager, "training")) {
                try (b) {
                    n++;
                    if (!step.test(b) || n == most) {
                        return n;
                    }
                }
            }
            if (n == before) {
                throw new IllegalArgumentException("The data set has no batches to feed: give it examples.");
            }
        }
        return n;
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
