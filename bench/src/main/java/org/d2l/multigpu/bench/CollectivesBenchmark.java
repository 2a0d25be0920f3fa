package org.d2l.multigpu.bench;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.d2l.multigpu.collective.Collective;
import org.d2l.multigpu.collective.Ring;
import org.d2l.multigpu.collective.Traffic;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.models.ResNet;
import org.d2l.multigpu.runtime.Djl;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH micro-benchmark of {@link Ring#allreduce} (through device 0) against
 * {@link Ring#allreduce} on the CPU: k arrays (one per virtual device) of as many float32
 * elements as LeNet's or ResNet-18's parameters (a flattened gradient), milliseconds per call. Short
 * by default (1 fork, 2 warm-up and 3 measured iterations of 1 s); JMH's options override it, e.g.
 * {@code BENCH_ARGS="-f 3 -wi 5 -i 10" bench/run.sh collectives}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class CollectivesBenchmark {

    /** Whose parameter count the arrays have: lenet (the lessons' LeNet) or resnet18 (width 64, one input channel). */
    @Param({"lenet", "resnet18"})
    public String model;

    /** The number of arrays, one per virtual device. */
    @Param({"2", "4"})
    public int devices;

    private NDManager manager;
    private List<NDArray> data;

    /**
     * Makes the k arrays: zeros, which stay zeros however many times they are summed (an addition's
     * time does not depend on the values, and no run drifts into infinities).
     */
    @Setup(Level.Trial)
    public void setUp() {
        Djl.setup();
        manager = NDManager.newBaseManager(Device.cpu());
        long n = parameterCount(model.equals("resnet18") ? ResNet.resnet18(10, 1) : LeNet.block(), manager);
        data = new ArrayList<>();
        for (int i = 0; i < devices; i++) {
            data.add(manager.zeros(new Shape(n)));
        }
    }

    /** Frees the arrays. */
    @TearDown(Level.Trial)
    public void tearDown() {
        manager.close();
    }

    /** Sums into device 0 and copies the sum back: device 0 sends and receives (k-1) x N elements. */
    @Benchmark
    public Traffic allreduce() {
        return Collective.direct().allreduce("data", data);
    }

    /** Reduce-scatter and all-gather round the ring: every device sends and receives 2(k-1)/k x N elements. */
    @Benchmark
    public Traffic ringAllreduce() {
        return Ring.allreduce(data);
    }

    /** The number of parameters of {@code net} initialised for 28x28 grey images. */
    static long parameterCount(Block net, NDManager manager) {
        net.initialize(manager, DataType.FLOAT32, new Shape(1, 1, 28, 28));
        return net.getParameters().values().stream().mapToLong(p -> p.getArray().size()).sum();
    }
}
