package org.apache.kafka.server.util.timer;

/**
 * One scheduling of a {@link TimerTask} (Kafka's, as in kafka-server-common 4.4.0): the task and the
 * time it is due. A task holds the entry of its latest add; an entry whose task has moved on (been
 * cancelled, or added again) is {@linkplain #cancelled() cancelled}.
 *
 * <p>A task that is its own node on the module's {@link SystemTimer} holds that timer's marker entry
 * instead of an entry of its own. Any other entry is in at most one of two places: a node of purgatory-core's timing wheel, when the
 * module's {@link SystemTimer} scheduled it ({@code wheelNode}), or a list of Kafka's own
 * {@code TimerTaskList}, when Kafka's {@code TimingWheel} holds it ({@code list}, {@code next},
 * {@code prev}: Kafka's links, kept package-private and with Kafka's meaning so that Kafka's list
 * classes, still in Kafka's jar, work on this entry). A foreign timer such as Kafka's test
 * {@code MockTimer} keeps entries in a collection of its own and uses neither.
 *
 * <p>Not final: Kafka 3.9's class is open (4.0 made it final), and one source serves every line; a
 * subclass overriding {@link #cancelled()} or {@link #remove()} changes what Kafka's would too.
 *
 * <p>Thread-safe: Kafka's links are guarded by the {@code TimerTaskList} that holds the entry;
 * {@code wheelNode} is written once, before the node is added to the wheel.
 */
public class TimerTaskEntry {

    public final TimerTask timerTask;
    public final long expirationMs;

    /** Kafka's: the list that holds this entry, or null; written by that list under its monitor. */
    volatile TimerTaskList list;
    /** Kafka's: links in {@code list}. */
    TimerTaskEntry next;
    TimerTaskEntry prev;

    /** The module's: the wheel node that runs this entry, or null if this entry is not on the module's SystemTimer. */
    private volatile io.purgatory.timer.TimerTask wheelNode;
    /** The module's: for a SystemTimer's marker entry, that timer; else null. */
    private final SystemTimer markerOf;

    /**
     * Makes {@code timerTask}'s entry this one, removing its previous entry.
     *
     * @param timerTask the task; null only in Kafka's own list tests (a list's sentinel)
     * @param expirationMs when the task is due, on the scheduling timer's clock
     */
    public TimerTaskEntry(TimerTask timerTask, long expirationMs) {
        this.timerTask = timerTask;
        this.expirationMs = expirationMs;
        this.markerOf = null;
        if (timerTask != null) {
            timerTask.setTimerTaskEntry(this);
        }
    }

    /** True once the task was cancelled or added again: this entry must then not run it. */
    public boolean cancelled() {
        return timerTask.getTimerTaskEntry() != this;
    }

    /** Takes the entry out of whatever holds it: its wheel node is cancelled, or it leaves Kafka's list. */
    public void remove() {
        io.purgatory.timer.TimerTask node = wheelNode;
        if (node != null) {
            node.cancel();
        }
        // a Kafka list may be moving the entry to another list meanwhile: retry until it holds it no more
        for (TimerTaskList holder = list; holder != null; holder = list) {
            holder.remove(this);
        }
    }

    /**
     * The marker entry of one module SystemTimer: a task that is its own node on that timer holds it
     * as its entry. It holds no task and is never in a list.
     */
    TimerTaskEntry(SystemTimer markerOf) {
        this.timerTask = null;
        this.expirationMs = -1;
        this.markerOf = markerOf;
    }

    /** True for a SystemTimer's marker entry. */
    boolean isNodeMarker() {
        return markerOf != null;
    }

    /** For a marker entry, the core wheel of its SystemTimer; else null. */
    io.purgatory.timer.Timer markerTimer() {
        return markerOf == null ? null : markerOf.coreTimer();
    }

    /** Called after a task holding this entry ran on the module's SystemTimer. */
    void ran() {
        if (markerOf != null) {
            markerOf.ran();
        }
    }

    /** Records the wheel node that will run this entry; by the module's SystemTimer, before it adds the node. */
    void wheelNode(io.purgatory.timer.TimerTask node) {
        this.wheelNode = node;
    }
}
