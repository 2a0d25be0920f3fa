package org.d2l.multigpu.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MemoryTest {

    private static final long GB = 1L << 30;

    @Test
    void enoughMemoryKeepsTheRequestedBatch() {
        assertEquals(256, Memory.fittingBatch(256, 24 * GB, Memory.BASE_BYTES, Memory.RESNET18_BYTES_PER_EXAMPLE));
    }

    @Test
    void binderTwoGigabytesHalveResNetBatch256To128() {
        assertEquals(128, Memory.fittingBatch(256, 2 * GB, Memory.BASE_BYTES, Memory.RESNET18_BYTES_PER_EXAMPLE));
        assertEquals(128, Memory.fittingBatch(512, 2 * GB, Memory.BASE_BYTES, Memory.RESNET18_BYTES_PER_EXAMPLE));
    }

    @Test
    void binderTwoGigabytesKeepBatch256OfTheWidth16ResNet() {
        assertEquals(Memory.RESNET18_BYTES_PER_EXAMPLE / 4, Memory.resnet18BytesPerExample(16));
        assertEquals(256, Memory.fittingBatch(256, 2 * GB, Memory.BASE_BYTES, Memory.resnet18BytesPerExample(16)));
        assertThrows(IllegalArgumentException.class, () -> Memory.batchSize(256, 0));
    }

    @Test
    void tooLittleForOneExampleStopsWithAClearMessage() {
        var e = assertThrows(IllegalStateException.class, () -> Memory.fittingBatch(256, GB / 2, GB, 1));
        assertTrue(e.getMessage().contains("not enough"), e.getMessage());
    }

    @Test
    void thisMachineReportsSomeMemory() {
        assertTrue(Memory.availableBytes() > 0);
    }

    @Test
    void aMemoryLimitSettingReadsSizesAsTheJvmWritesThem() {
        assertEquals(2L << 30, Memory.parseBytes("2g").getAsLong());
        assertEquals(1536L << 20, Memory.parseBytes("1536M").getAsLong());
        assertEquals(2147483648L, Memory.parseBytes(" 2147483648 ").getAsLong());
        assertEquals(512L << 10, Memory.parseBytes("512k").getAsLong());
    }

    @Test
    void aMemoryLimitInAnotherFormSaysWhatItTakes() {
        for (String bad : new String[] {"2 GB", "1.5g", "0", "-1g", "lots"}) {
            var e = assertThrows(IllegalArgumentException.class, () -> Memory.parseBytes(bad));
            assertTrue(e.getMessage().contains("D2L_MEMORY_LIMIT must be a size such as 2g"), e.getMessage());
        }
    }
}
