package org.d2l.multigpu.notebook;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CellOutputTest {

    @Test
    void outsideAKernelTheMessageGoesToSystemOut() {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            CellOutput.remember();
            CellOutput.println("Training interrupted in epoch 1 after step 2");
        } finally {
            System.setOut(old);
        }
        assertEquals("Training interrupted in epoch 1 after step 2" + System.lineSeparator(),
                buf.toString(StandardCharsets.UTF_8));
    }
}
