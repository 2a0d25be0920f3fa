package org.d2l.multigpu.runtime;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs {@link Djl#setup()} before every test class (registered for all tests through
 * {@code META-INF/services}), so that the test JVM starts PyTorch as every other entry point does:
 * with the allocator settings and, where {@link CpuCheck} found it needed, oneDNN's instruction sets capped.
 */
public final class DjlSetupExtension implements BeforeAllCallback {

    @Override
    public void beforeAll(ExtensionContext context) {
        Djl.setup();
    }
}
