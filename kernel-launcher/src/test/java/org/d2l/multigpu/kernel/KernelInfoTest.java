package org.d2l.multigpu.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.rapaio.jupyter.kernel.core.LanguageInfo;
import org.rapaio.jupyter.kernel.message.messages.ShellKernelInfoReply;

class KernelInfoTest {

    @Test
    void theLanguageVersionIsTheJavaFeatureVersionAndTheRestOfTheReplyIsRapaios() {
        LanguageInfo rapaio = new LanguageInfo("java", "17.0.15+6-Debian-1deb12u1", "text/x-java-source", ".jshell", "java",
                "java", "script");
        ShellKernelInfoReply reply = new ShellKernelInfoReply("5.3", "rapaio", "3.0.1", rapaio, "banner", List.of());
        ShellKernelInfoReply n = KernelInfo.normalised(reply);
        assertEquals(Integer.toString(Runtime.version().feature()), n.langInfo().version());
        assertEquals(new LanguageInfo("java", n.langInfo().version(), "text/x-java-source", ".jshell", "java", "java",
                "script"), n.langInfo());
        assertEquals(List.of("5.3", "rapaio", "3.0.1", "banner"), List.of(n.protocolVersion(), n.implementationName(),
                n.implementationVersion(), n.banner()));
    }
}
