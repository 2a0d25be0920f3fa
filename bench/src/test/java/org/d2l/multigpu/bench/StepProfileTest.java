package org.d2l.multigpu.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class StepProfileTest {

    @Test
    void refusesAPlaceOtherThanCpuOrGpuBeforeAnyWork() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StepProfile.main(new String[] {"lenet", "1", "--rounds"}));
        assertEquals("profile runs on cpu or gpu, got --rounds.", e.getMessage());
    }

    @Test
    void onAMachineWithoutAGpuSaysSoInsteadOfProfilingTheCpu() {
        Djl.setup();
        assumeTrue(Devices.gpuCount() == 0, "this machine has a GPU");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> StepProfile.main(new String[] {"lenet", "1", "gpu"}));
        assertEquals("profile on gpu: DJL sees no GPU on this machine.", e.getMessage());
    }
}
