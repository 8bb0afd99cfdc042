package groupspec.kafka;

/**
 * The rules this build's Kafka release has where releases differ (groupspec.kafka_versions names
 * the same settings): a vector whose config asks for another release's rule is unsupported here,
 * not failed.
 */
final class ReleaseShim {
    static final String RELEASE = "4.3.1";
    /** The group and target assignment epoch a new modern group starts at (KAFKA-20268: 1 from 4.3). */
    static final int INITIAL_GROUP_EPOCH = 1;
    /** Whether a share-state read at leader epoch -1 is fenced (KAFKA-20694: not from 4.3). */
    static final boolean FENCES_READ_WITHOUT_LEADER_EPOCH = false;

    private ReleaseShim() {
    }

    /** Unsupported unless the config's setting (absent: Kafka 4.2's) is this release's. */
    static void require(boolean same, String setting, Object wanted) throws Adapter.Answer {
        if (!same) {
            throw Adapter.Answer.unsupported("config." + setting + " = " + wanted + " is another Kafka release's rule; "
                + "this adapter runs Kafka " + RELEASE + " (groupspec conformance --kafka-version selects the vectors "
                + "and the adapter together)");
        }
    }
}
