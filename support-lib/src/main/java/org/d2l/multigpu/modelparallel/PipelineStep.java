package org.d2l.multigpu.modelparallel;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BiConsumer;
import org.d2l.multigpu.devices.Devices;

/**
 * One pipeline step's plumbing: the minibatch cut into micro-batches, a link each way between neighbouring stages,
 * and a timeline of the passes; a stage's own work is the caller's.
 */
public final class PipelineStep {

    /** The step's timeline and its wall-clock milliseconds, from handing the stages their work to the last one's end. */
    public record Result(Timeline timeline, double ms) {}

    private final Schedule.Kind kind;
    private final int stages;
    private final int microBatches;
    private final List<NDArray> inputs = new ArrayList<>();
    private final List<NDArray> labels = new ArrayList<>();
    private final List<Link> forward = new ArrayList<>();
    private final List<Link> backward = new ArrayList<>();
    private final Timeline timeline;
    private final long batchSize;

    private PipelineStep(List<Device> devices, Schedule.Kind kind, int microBatches, NDArray x, NDArray y,
            NDManager step) {
        this.kind = kind;
        this.stages = devices.size();
        this.microBatches = microBatches;
        this.batchSize = x.getShape().get(0);
        Device first = devices.get(0);
        Device last = devices.get(stages - 1);
        for (NDList part : Devices.split(x, y, Collections.nCopies(microBatches, first))) {
            inputs.add(part.get(0));
        }
        for (NDList part : Devices.split(x, y, Collections.nCopies(microBatches, last))) {
            labels.add(part.get(1));
        }
        for (int s = 0; s + 1 < stages; s++) {
            forward.add(new Link(devices.get(s + 1), step));
            backward.add(new Link(devices.get(s), step));
        }
        this.timeline = new Timeline(stages);
    }

    /**
     * Runs {@code stage} for every stage at once, each on its thread of {@code threads}, for the minibatch
     * {@code x}, {@code y} cut into {@code microBatches} (inputs on the first stage's device, labels on the last's);
     * the arrays the step makes, and those the links carry, are freed when it ends.
     */
    public static Result run(Stages threads, List<Device> devices, Schedule.Kind kind, int microBatches, NDArray x,
            NDArray y, BiConsumer<Integer, PipelineStep> stage) {
        if (devices.size() != threads.count()) {
            throw new IllegalArgumentException("a step has one device per stage: got " + devices.size()
                    + " devices for " + threads.count() + " stages.");
        }
        long n = x.getShape().get(0);
        if (microBatches < 1 || microBatches > n) {
            throw new IllegalArgumentException("cut the minibatch of " + n + " examples into 1 to " + n
                    + " micro-batches, not " + microBatches + ".");
        }
        try (NDManager step = x.getManager().newSubManager()) {
            step.tempAttachAll(x, y);
            PipelineStep st = new PipelineStep(devices, kind, microBatches, x, y, step);
            long start = System.nanoTime();
            threads.run(s -> stage.accept(s, st));
            return new Result(st.timeline, (System.nanoTime() - start) / 1e6);
        }
    }

    /** The passes of stage {@code s}, in its schedule's order. */
    public List<Schedule.Op> ops(int s) {
        return Schedule.ops(kind, s, stages, microBatches);
    }

    /** Micro-batch {@code i}'s inputs, on the first stage's device. */
    public NDArray input(int i) {
        return inputs.get(i);
    }

    /** Micro-batch {@code i}'s labels, on the last stage's device. */
    public NDArray labels(int i) {
        return labels.get(i);
    }

    /** The link from stage {@code s} to stage {@code s + 1}: activations going forward. */
    public Link forward(int s) {
        return forward.get(s);
    }

    /** The link from stage {@code s + 1} back to stage {@code s}: gradients going backward. */
    public Link backward(int s) {
        return backward.get(s);
    }

    /** When each of the step's passes ran. */
    public Timeline timeline() {
        return timeline;
    }

    /** The number of examples in the whole minibatch. */
    public long batchSize() {
        return batchSize;
    }
}
