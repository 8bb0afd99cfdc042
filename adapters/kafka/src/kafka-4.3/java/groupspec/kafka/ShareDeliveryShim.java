package groupspec.kafka;

/** Kafka 4.3.1: the share_delivery driver is built against 4.2.1 only (its ShareFetch answers
 *  carry records written with the record classes 4.3 moved to common.record.internal, and it
 *  reaches package-private constructors of 4.2.1's client), so this build answers unsupported. */
final class ShareDeliveryShim {
    private ShareDeliveryShim() {
    }

    static Adapter.Machine machine() {
        return null;
    }

    static final String ABSENT = "the Kafka 4.3.1 build does not drive kafka-clients' share delivery path "
        + "(ShareDeliveryRun is written against 4.2.1's client internals and record classes)";
}
