package org.d2l.multigpu.spark.task;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.runtime.IntraOpThreads;
import org.d2l.multigpu.spark.ModelFactory;

/**
 * What each executor JVM sets up once and keeps between tasks: the DJL engine (started once, with
 * PyTorch's threads capped at {@code spark.task.cpus}) and a pool of model replicas, one per task
 * running at the same time, so that a round does not rebuild the network.
 */
public final class ExecutorRuntime {

    /** Built networks by {@link ModelFactory#name()}, not by factory object: each task deserialises its own. */
    private static final Map<String, Queue<Block>> POOL = new ConcurrentHashMap<>();
    private static final java.util.concurrent.atomic.AtomicInteger BUILT = new java.util.concurrent.atomic.AtomicInteger();
    private static volatile NDManager manager;
    private static volatile int defaultThreads = -1;

    private ExecutorRuntime() {}

    /**
     * Starts the engine in this JVM if it has not started yet; when this call starts it, PyTorch
     * gets {@code taskCpus} intra-op threads and one inter-op thread (system properties
     * {@code ai.djl.pytorch.num_threads} and {@code ai.djl.pytorch.num_interop_threads}).
     */
    public static NDManager start(int taskCpus) {
        if (manager == null) {
            synchronized (ExecutorRuntime.class) {
                if (manager == null) {
                    Djl.setup();
                    setIfAbsent("ai.djl.pytorch.num_threads", Integer.toString(taskCpus));
                    setIfAbsent("ai.djl.pytorch.num_interop_threads", "1");
                    manager = Engine.getInstance().newBaseManager(); // lives as long as the JVM
                }
            }
        }
        return manager;
    }

    /**
     * Caps PyTorch's intra-op threads for the calling task thread at {@code taskCpus}: in an
     * executor that already runs (or in {@code local[k]}, where the driver started the engine), the
     * properties of {@link #start} come too late. PyTorch keeps this number per thread and also as
     * the default for threads that start using it later, so {@link #restoreThreads} puts that
     * default back after the task (in {@code local[k]} the driver's threads share it).
     */
    public static void capThreads(int taskCpus) {
        if (!"PyTorch".equals(Engine.getInstance().getEngineName())) {
            return;
        }
        synchronized (ExecutorRuntime.class) {
            if (defaultThreads < 0) {
                defaultThreads = IntraOpThreads.current();
            }
        }
        if (IntraOpThreads.current() != taskCpus) {
            IntraOpThreads.setTo(taskCpus);
        }
    }

    /** Puts PyTorch's thread count back to what it was before the first {@link #capThreads}. */
    public static void restoreThreads() {
        if (defaultThreads > 0 && IntraOpThreads.current() != defaultThreads) {
            IntraOpThreads.setTo(defaultThreads);
        }
    }

    /** A replica of the network built by {@code factory}, from the pool or newly built; give it back with {@link #release}. */
    public static Block borrow(ModelFactory factory) {
        Block net = POOL.computeIfAbsent(factory.name(), f -> new ConcurrentLinkedQueue<>()).poll();
        if (net != null) {
            return net;
        }
        BUILT.incrementAndGet();
        net = factory.newBlock();
        net.initialize(manager, DataType.FLOAT32, factory.inputShape());
        for (Pair<String, Parameter> p : net.getParameters()) {
            if (p.getValue().requiresGradient()) {
                NDArray a = p.getValue().getArray();
                a.setRequiresGradient(true);
            }
        }
        return net;
    }

    /** Puts {@code net} back into the pool for the next task. */
    public static void release(ModelFactory factory, Block net) {
        POOL.computeIfAbsent(factory.name(), f -> new ConcurrentLinkedQueue<>()).add(net);
    }

    /** How many networks this JVM has built for its pool so far. */
    public static int networksBuilt() {
        return BUILT.get();
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
