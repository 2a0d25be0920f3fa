package org.d2l.multigpu.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import java.util.ArrayList;
import java.util.List;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.runtime.LiveResources;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.d2l.multigpu.lesson.FromScratch;

/**
 * Nothing is left behind per step: the live arrays and managers under DJL's root manager are the
 * same before and after 20 steps (counted after one warm-up step, which creates gradients and
 * optimizer state), for the trainer under both rules and in FLOAT16, for the jar's from-scratch
 * functions, and for the from-scratch lesson's own code as the lesson writes it.
 */
class LeakTest {

    static final int STEPS = 20;

    private final TrainerFixture f = new TrainerFixture();

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    /** The devices the leak tests run on: 2 replicas on the first GPU, or 2 virtual CPU replicas (as in the lesson test). */
    static List<Device> devices() {
        return java.util.Collections.nCopies(2, Devices.gpuCount() > 0 ? Device.gpu(0) : Device.cpu());
    }

    /**
     * Runs {@code step} twice to warm up (gradients, optimizer state and a first averaging are made
     * then), then {@code STEPS} times; fails when anything was left alive.
     */
    static void assertNothingLeftBehind(String what, Runnable step) {
        assertNothingLeftBehind(what, 2, STEPS, step);
    }

    /** The same with {@code warmUp} warm-up calls and {@code times} measured calls of {@code step}. */
    static void assertNothingLeftBehind(String what, int warmUp, int times, Runnable step) {
        for (int i = 0; i < warmUp; i++) {
            step.run();
        }
        LiveResources before = LiveResources.now();
        java.util.Set<String> old = LiveResources.managerTree().keySet();
        for (int i = 0; i < times; i++) {
            step.run();
        }
        LiveResources after = LiveResources.now();
        System.out.printf("%s: %s before, %s after%n", what, before, after);
        // where the managers left behind sit: a few of them, with their devices and their ancestors'
        LiveResources.managerTree().entrySet().stream().filter(e -> !old.contains(e.getKey())).limit(3)
                .forEach(e -> System.out.println("    left behind: " + e.getValue()));
        assertEquals(before, after, what + " left " + (after.arrays() - before.arrays()) + " array(s) and "
                + (after.managers() - before.managers()) + " manager(s) behind");
    }

    /** A step's batch of {@code n} random images on a manager of its own, freed after {@code use}. */
    void withBatch(int n, java.util.function.Consumer<NDList> use) {
        try (NDManager step = f.manager.newSubManager()) {
            NDArray x = step.randomUniform(0, 1, new Shape(n, 1, 28, 28));
            NDArray y = step.randomInteger(0, 10, new Shape(n), DataType.INT32).toType(DataType.FLOAT32, false);
            use.accept(new NDList(x, y));
        }
    }

    private DataParallelTrainer trainer(Optimizer opt, ReplicaSync sync, DataType type) {
        DataParallelTrainer t = DataParallelTrainer.builder(f.initialize(LeNet.block(), null))
                .setDevices(devices()).optOptimizer(opt).optSync(sync).optDataType(type).optProgress(false).build();
        return f.closeLater(t);
    }

    private static Optimizer momentum() {
        return Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.05f)).optMomentum(0.9f).build();
    }

    @Test
    void gradientAveragingStepsLeaveNothingBehind() {
        DataParallelTrainer t = trainer(momentum(), GradientAveraging.mean(), DataType.FLOAT32);
        assertNothingLeftBehind("gradient averaging, " + STEPS + " steps", () -> withBatch(16, b -> t.trainStep(b.get(0), b.get(1))));
    }

    @Test
    void parameterAveragingRoundsLeaveNothingBehind() {
        DataParallelTrainer t = trainer(momentum(), ParameterAveraging.every(2), DataType.FLOAT32);
        assertNothingLeftBehind("parameter averaging, " + STEPS + " rounds", () -> withBatch(16, b -> {
            NDList[] two = {new NDList(b.get(0).get("0:8"), b.get(1).get("0:8")),
                    new NDList(b.get(0).get("8:16"), b.get(1).get("8:16"))};
            t.trainRound(List.of(two[0].get(0), two[1].get(0)), List.of(two[0].get(1), two[1].get(1)));
        }));
    }

    @Test
    void float16StepsLeaveNothingBehind() {
        DataParallelTrainer t = trainer(TrainerFixture.sgd(0.05f), GradientAveraging.mean(), DataType.FLOAT16);
        assertNothingLeftBehind("FLOAT16, " + STEPS + " steps", () -> withBatch(16, b -> t.trainStep(b.get(0), b.get(1))));
    }

    @Test
    void epochsWithPrefetchAndEvaluationLeaveNothingBehind() {
        ArrayDataset data = TrainerFixture.quarters(f.manager, 2 * STEPS * 8, 8, true);
        DataParallelTrainer t = f.closeLater(DataParallelTrainer.builder(f.initialize(LeNet.block(), null))
                .setDevices(devices()).optOptimizer(momentum()).optSync(ParameterAveraging.every(3))
                .optPrefetch(true).optProgress(false).build());
        assertNothingLeftBehind("fit: an epoch of " + STEPS + " rounds with prefetch and evaluation", 1, 1,
                () -> t.fit(data, data, 1));
    }

    @Test
    void fromScratchTrainBatchLeavesNothingBehind() {
        List<Device> devices = devices();
        List<NDArray> params = LeNet.initParams(f.manager);
        List<List<NDArray>> deviceParams = new ArrayList<>();
        for (Device d : devices) {
            deviceParams.add(FromScratch.getParams(params, d, f.manager));
        }
        Loss loss = Loss.softmaxCrossEntropyLoss();
        assertNothingLeftBehind("FromScratch.trainBatch, " + STEPS + " steps", () -> withBatch(16,
                b -> FromScratch.trainBatch(b.get(0), b.get(1), deviceParams, devices, 0.1f, loss, LeNet::lenet)));
    }

    @Test
    void theFromScratchLessonsOwnTrainingCodeLeavesNothingBehind() throws Exception {
        try (LessonCode lesson = LessonCode.fromScratchTraining(
                "java.util.Collections.nCopies(2, Devices.gpuCount() > 0 ? Device.gpu(0) : Device.cpu())", 16)) {
            try {
                assertNothingLeftBehind("the from-scratch lesson's sgd/trainBatch, " + STEPS + " steps", () -> lesson.eval("step();"));
            } finally {
                lesson.eval("manager.close();");
            }
        }
    }
}
