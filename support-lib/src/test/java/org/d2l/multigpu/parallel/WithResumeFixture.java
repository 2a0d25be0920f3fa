package org.d2l.multigpu.parallel;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A test whose every method gets trainers' data, resumable runs over them and a folder for checkpoints, closed after it. */
public abstract class WithResumeFixture {

    /** This test method's folder for checkpoints. */
    @TempDir
    protected Path dir;

    /** This test method's trainers and data. */
    protected TrainerFixture f;

    /** This test method's resumable runs, over {@link #f}. */
    protected ResumeFixture r;

    @BeforeEach
    void openFixtures() {
        f = new TrainerFixture();
        r = new ResumeFixture(f);
    }

    @AfterEach
    void closeFixtures() throws Exception {
        f.close();
    }
}
