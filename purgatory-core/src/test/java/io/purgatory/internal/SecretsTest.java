package io.purgatory.internal;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The doors between the packages are registered once, by their owners, and cannot be replaced. */
class SecretsTest {

    @Test
    void aDoorIsRegisteredByItsPackageAndASecondRegistrationIsRefused() throws Exception {
        Class.forName("io.purgatory.timer.SystemTimer"); // its package registers the node control
        Class.forName("io.purgatory.DelayedOperationPurgatory"); // and the purgatory the state control and node owner
        NodeControl<Object, Object> control = Secrets.nodeControl();
        StateControl<Object, Object, Object> state = Secrets.stateControl();

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Secrets.registerNodeControl(control));
        assertTrue(e.getMessage().startsWith("already registered: "), e.getMessage());
        assertThrows(IllegalStateException.class, () -> Secrets.registerStateControl(state));
        assertSame(control, Secrets.nodeControl(), "the first registration stays");
        assertSame(state, Secrets.stateControl());
    }
}
