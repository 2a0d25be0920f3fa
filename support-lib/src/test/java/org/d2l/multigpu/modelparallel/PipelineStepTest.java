package org.d2l.multigpu.modelparallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.List;
import org.junit.jupiter.api.Test;

class PipelineStepTest {

    @Test
    void stagesPassMicroBatchesAlongTheLinksAndEveryPassIsTimed() {
        List<Device> cpus = List.of(Device.cpu(), Device.cpu());
        float[] received = new float[4];
        try (NDManager m = NDManager.newBaseManager(); Stages threads = Stages.of(2)) {
            NDArray x = m.arange(8f).reshape(8, 1);
            NDArray y = m.arange(8f);
            PipelineStep.Result r = PipelineStep.run(threads, cpus, Schedule.Kind.GPIPE, 4, x, y, (s, st) -> {
                for (Schedule.Op op : st.ops(s)) {
                    st.timeline().time(s, op, () -> {
                        if (s == 0 && op.forward()) {
                            st.forward(0).send(st.input(op.microBatch()).mul(10));
                        } else if (s == 1 && op.forward()) {
                            NDArray in = st.forward(0).receive();
                            received[op.microBatch()] = in.sum().getFloat() + st.labels(op.microBatch()).sum().getFloat();
                            st.backward(0).send(in);
                        } else if (s == 0) {
                            st.backward(0).receive();
                        }
                        return null;
                    });
                }
            });
            // micro-batch i holds rows 2i and 2i + 1: inputs times 10 plus labels
            assertArrayEquals(new float[] {11, 55, 99, 143}, received);
            assertEquals(16, r.timeline().entries().size());
            assertEquals(8, x.getShape().get(0)); // the minibatch is left as it was
            assertEquals(new Shape(8), y.getShape());
        }
    }

    @Test
    void aDeviceCountOtherThanTheStagesOrTooManyMicroBatchesIsRefused() {
        try (NDManager m = NDManager.newBaseManager(); Stages threads = Stages.of(2)) {
            NDArray x = m.ones(new Shape(4, 1));
            NDArray y = m.ones(new Shape(4));
            assertThrows(IllegalArgumentException.class, () -> PipelineStep.run(threads, List.of(Device.cpu()),
                    Schedule.Kind.GPIPE, 2, x, y, (s, st) -> {}));
            assertThrows(IllegalArgumentException.class, () -> PipelineStep.run(threads,
                    List.of(Device.cpu(), Device.cpu()), Schedule.Kind.GPIPE, 5, x, y, (s, st) -> {}));
        }
    }
}
