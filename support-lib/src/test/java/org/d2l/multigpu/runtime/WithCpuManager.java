package org.d2l.multigpu.runtime;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A test whose every method gets a fresh CPU {@link NDManager}, closed after it. */
public abstract class WithCpuManager {

    /** This test method's manager. */
    protected NDManager manager;

    @BeforeEach
    void openManager() {
        Djl.setup();
        manager = NDManager.newBaseManager(Device.cpu());
    }

    @AfterEach
    void closeManager() {
        manager.close();
    }
}
