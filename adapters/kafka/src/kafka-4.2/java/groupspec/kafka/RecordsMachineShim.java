package groupspec.kafka;

/** The records machine, built on Kafka 4.2's record classes in {@code org.apache.kafka.common.record}. */
final class RecordsMachineShim {
    private RecordsMachineShim() {
    }

    static Adapter.Machine machine() {
        return new Records();
    }
}
