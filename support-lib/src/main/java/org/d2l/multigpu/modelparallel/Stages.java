package org.d2l.multigpu.modelparallel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.d2l.multigpu.runtime.IntraOpThreads;

/**
 * The threads a pipeline's stages run on, one per stage, all at once: each run sets PyTorch's threads per operation
 * (to one unless asked otherwise), so that p stages on p cores keep p cores busy, as p devices would.
 */
public final class Stages implements AutoCloseable {

    private final int count;
    private final int threadsPerOp;
    private final ExecutorService pool;

    private Stages(int count, int threadsPerOp) {
        if (count < 1) {
            throw new IllegalArgumentException("a pipeline has at least 1 stage, got " + count + ".");
        }
        if (threadsPerOp < 1) {
            throw new IllegalArgumentException("PyTorch needs at least one thread per operation, got " + threadsPerOp + ".");
        }
        this.count = count;
        this.threadsPerOp = threadsPerOp;
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(count, r -> {
            Thread t = new Thread(r, "pipeline-stage-" + n.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
    }

    /** Threads for {@code count} stages, each PyTorch operation on one thread; close them when done. */
    public static Stages of(int count) {
        return new Stages(count, 1);
    }

    /** Threads for {@code count} stages, each PyTorch operation on {@code threadsPerOp} threads (one stage on all cores, say). */
    public static Stages of(int count, int threadsPerOp) {
        return new Stages(count, threadsPerOp);
    }

    /** The number of stages. */
    public int count() {
        return count;
    }

    /**
     * Runs {@code stage} for every stage index at once, each on its own thread, and waits for all of them; the first
     * stage that fails stops the others and its error is thrown, naming the stage.
     */
    public void run(IntConsumer stage) {
        CompletionService<Integer> done = new ExecutorCompletionService<>(pool);
        List<Future<Integer>> running = new ArrayList<>();
        try (IntraOpThreads scope = IntraOpThreads.set(threadsPerOp)) {
            for (int s = 0; s < count; s++) {
                int index = s;
                running.add(done.submit(() -> {
                    // on the stage's own thread: OpenMP's and MKL's thread counts belong to the thread that sets them
                    IntraOpThreads.setTo(threadsPerOp);
                    stage.accept(index);
                    return index;
                }));
            }
            for (int finished = 0; finished < count; finished++) {
                Future<Integer> f = done.take(); // in the order the stages end: a failure stops the others at once
                try {
                    f.get();
                } catch (ExecutionException e) {
                    running.forEach(r -> r.cancel(true));
                    int s = running.indexOf(f);
                    throw new IllegalStateException("stage " + s + " failed: " + e.getCause(), e.getCause());
                }
            }
        } catch (InterruptedException e) {
            running.forEach(r -> r.cancel(true));
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the stages ran; they were stopped", e);
        }
    }

    /** Stops the threads. */
    @Override
    public void close() {
        pool.shutdownNow();
    }
}
